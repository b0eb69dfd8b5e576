import Foundation
import GRDB
import Signals
import Testing
@testable import Capture

/// rtl_power, hackrf_sweep and `-B` files convert back to the same bytes,
/// directly and through a capture store (issue 10), with `nan` and the
/// Microsoft runtime's `-1.#J` kept as written (issue 16).
@Suite struct SweepRoundTripTests {
    /// Copies every frame of `reader` into `writer` with its rows, as `tscope convert` does.
    private func copy(_ reader: SpectrumFrameReader, into writer: SpectrumFrameWriter) throws {
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        while try reader.next(into: &frame) { try writer.write(frame, readBy: reader) }
        try writer.finish()
    }

    /// The bytes `format` writes for `input` read in that format, directly
    /// (`viaStore` false) or through a capture store. Times are read in the
    /// local zone, as the writers print them.
    private func convertBack(_ input: String, _ format: CaptureFormat, viaStore: Bool) throws -> [UInt8] {
        let directory = try TemporaryDirectory("roundtrip")
        defer { directory.remove() }
        var reader = try format.openReader(path: input, options: CaptureReadOptions())
        if viaStore {
            let store = directory.path("x.tscope")
            try copy(reader, into: try CaptureFormat.tscope.openWriter(path: store, metadata: reader.metadata))
            reader = try CaptureFormat.tscope.openReader(path: store, options: CaptureReadOptions())
        }
        let output = directory.path("y")
        try copy(reader, into: try format.openWriter(path: output))
        #expect(reader.skipped == 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    private func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    static let realFiles: [(String, CaptureFormat)] = Fixtures.osakaFiles.map { ($0, .rtlPower) } + [
        ("excerpts/rtl_power-test5-excerpt.csv", .rtlPower),
        ("excerpts/rtl_power-fm_stations-excerpt.csv", .rtlPower),
        ("excerpts/rtl_power-filename_jackie-excerpt.csv", .rtlPower),
        ("excerpts/hackrf_sweep-html-sdr-sweep-head64.csv", .hackrfSweep),
        ("excerpts/hackrf_sweep-issue237-whole-seconds.csv", .hackrfSweep),
        ("excerpts/hackrf_sweep-tst-excerpt.bin", .hackrfSweepBinary),
    ]

    @Test(arguments: realFiles, [false, true])
    func realFilesComeBackByteForByte(_ file: (String, CaptureFormat), viaStore: Bool) throws {
        let path = Fixtures.path(file.0)
        let original = try bytes(path)
        let converted = try convertBack(path, file.1, viaStore: viaStore)
        #expect(converted.count == original.count)
        #expect(converted == original, "first difference at byte \(zip(converted, original).prefix { $0 == $1 }.count)")
    }

    /// Writes `text` to a file and checks it comes back byte for byte both ways.
    private func expectRoundTrip(_ text: String, _ format: CaptureFormat, extension ext: String = "csv",
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = try TemporaryDirectory("generated")
        defer { directory.remove() }
        let path = directory.path("in.\(ext)")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        for viaStore in [false, true] {
            let converted = String(decoding: try convertBack(path, format, viaStore: viaStore), as: UTF8.self)
            #expect(converted == text, "via store: \(viaStore)", sourceLocation: sourceLocation)
        }
    }

    @Test func generatedRTLPowerLayoutsComeBackByteForByte() throws {
        // three hops (an odd count), a step with decimals, edges that are not multiples of it
        try expectRoundTrip("""
            2020-06-01, 16:54:26, 24000000, 24349162, 87290.50, 256, -1.00, -2.00, -3.00, -4.00, -4.00
            2020-06-01, 16:54:26, 24349162, 24698324, 87290.50, 256, -5.00, nan, -7.00, -8.25, -8.25
            2020-06-01, 16:54:26, 24698324, 25047486, 87290.50, 256, -9.00, -10.00, -11.00, nan, nan
            2020-06-01, 16:54:27, 24000000, 24349162, 87290.50, 240, -1.50, -2.50, -3.50, -4.50, -4.50
            2020-06-01, 16:54:27, 24349162, 24698324, 87290.50, 255, -0.00, 0.00, 12.34, -inf, -inf
            2020-06-01, 16:54:27, 24698324, 25047486, 87290.50, 256, -nan, -10.00, -11.00, -12.00, -12.00

            """, .rtlPower)
        // a hop whose value count disagrees with its step (3 values for a 4-bin span, as rtl_power's
        // crop may leave), overlapping the next hop by a bin, and lines without the repeated value
        try expectRoundTrip("""
            2021-01-01, 00:00:00, 1000000, 1004000, 1000.00, 10, -1.00, -2.00, -3.00, -3.00
            2021-01-01, 00:00:00, 1002000, 1006000, 1000.00, 10, -5.00, -6.00, -7.00, -8.00, -8.00
            2021-01-01, 00:00:00, 1006000, 1010000, 1000.00, 10, -9.00, -10.00, -11.00, -12.00
            2021-01-01, 00:00:05, 1000000, 1004000, 1000.00, 12, -1.25, -2.25, -3.25, -3.25
            2021-01-01, 00:00:05, 1002000, 1006000, 1000.00, 12, -5.25, -6.25, -7.25, -8.25, -8.25
            2021-01-01, 00:00:05, 1006000, 1010000, 1000.00, 12, -9.25, -10.25, -11.25, -12.25

            """, .rtlPower)
    }

    @Test func windowsLineEndsAndALastLineWithoutNewlineComeBack() throws {
        try expectRoundTrip("2016-11-15, 22:11:14, 88000000, 88312500, 78125.00, 5120, -1.#J, -8.69, -1.#J, -10.84, -10.84\r\n"
            + "2016-11-15, 22:11:14, 88312500, 88625000, 78125.00, 5120, -1.00, -2.00, 1.#R, -1.#J, -1.#J\r\n"
            + "2016-11-15, 22:11:24, 88000000, 88312500, 78125.00, 5376, -1.#J, -8.00, -1.#J, -10.00, -10.00\r\n"
            + "2016-11-15, 22:11:24, 88312500, 88625000, 78125.00, 5376, -1.50, -2.50, -3.50, -4.50, -4.50", .rtlPower)
        try expectRoundTrip("2024-06-17, 15:55:05.945471, 0, 5000000, 1000000.00, 20, -75.39, -67.84, -60.39, -61.46, -58.52\r\n"
            + "2024-06-17, 15:55:05.945472, 10000000, 15000000, 1000000.00, 20, -56.71, -60.30, -63.95, -62.53, -65.35",
            .hackrfSweep)
    }

    @Test func generatedHackRFSweepLayoutsComeBackByteForByte() throws {
        // hops out of order (0, 10, 5, 15 and an odd fifth), steps with decimals, a time per line,
        // a last sweep cut short
        try expectRoundTrip("""
            2024-06-17, 15:55:05.000001, 0, 3, 0.75, 4, -1.00, -2.00, -3.00, -4.00
            2024-06-17, 15:55:05.000001, 6, 9, 0.75, 4, -5.00, -6.00, -7.00, -8.00
            2024-06-17, 15:55:05.363982, 3, 6, 0.75, 4, -9.00, nan, -11.00, -12.00
            2024-06-17, 15:55:05.363982, 9, 12, 0.75, 4, -13.00, -14.00, -15.00, -16.00
            2024-06-17, 15:55:05.999999, 12, 15, 0.75, 4, -17.00, -18.00, -19.00, -inf
            2024-06-17, 15:55:06.000000, 0, 3, 0.75, 4, -1.50, -2.50, -3.50, -4.50
            2024-06-17, 15:55:06.500000, 6, 9, 0.75, 4, -5.50, -6.50, -7.50, -8.50

            """, .hackrfSweep)
    }

    /// hackrf_sweep 2018.01.1 and older printed whole seconds; a time keeps
    /// the digits it was printed with, line by line.
    @Test func hackRFSweepTimesKeepTheirPrintedPrecision() throws {
        try expectRoundTrip("""
            2017-07-27, 16:38:48, 0, 3, 0.75, 4, -1.00, -2.00, -3.00, -4.00
            2017-07-27, 16:38:48, 6, 9, 0.75, 4, -5.00, -6.00, -7.00, -8.00
            2017-07-27, 16:38:49.5, 3, 6, 0.75, 4, -9.00, -10.00, -11.00, -12.00
            2017-07-27, 16:38:49.750, 9, 12, 0.75, 4, -13.00, -14.00, -15.00, -16.00
            2017-07-27, 16:38:50.000001, 0, 3, 0.75, 4, -1.50, -2.50, -3.50, -4.50

            """, .hackrfSweep)
    }

    @Test func soapyPowerBinRecordsComeBackByteForByte() throws {
        var file: [UInt8] = []
        func record(_ timeStart: Double, _ timeStop: Double, _ start: Double, _ step: Double, _ samples: UInt64,
                    _ values: [Float]) {
            file += Array("SDRFF".utf8) + [2]
            for double in [timeStart, timeStop, start, start + step * Double(values.count), step] {
                withUnsafeBytes(of: double.bitPattern.littleEndian) { file += $0 }
            }
            withUnsafeBytes(of: samples.littleEndian) { file += $0 }
            withUnsafeBytes(of: UInt64(values.count * 4).littleEndian) { file += $0 }
            file += [0, 0]
            for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { file += $0 } }
        }
        // three hops per sweep with a step of 87290.5 Hz, times with fractions, samples per record
        for sweep in 0..<2 {
            let t = 1_718_639_705.363_982 + Double(sweep) * 0.7
            record(t, t + 0.01, 24e6, 87290.5, 1024, [-1.5, -2.25, -.infinity])
            record(t + 0.02, t + 0.03, 24e6 + 3 * 87290.5, 87290.5, 1000 + UInt64(sweep), [-4, -5, -6.125])
            record(t + 0.04, t + 0.05, 24e6 + 6 * 87290.5, 87290.5, 7, [-7, -8, -9])
        }
        let directory = try TemporaryDirectory("soapy")
        defer { directory.remove() }
        let path = directory.path("in.sdrff")
        try Data(file).write(to: URL(fileURLWithPath: path))
        #expect(try convertBack(path, .soapyPowerBin, viaStore: false) == file)
        #expect(try convertBack(path, .soapyPowerBin, viaStore: true) == file)
    }

    @Test func randomMicrosecondsComeBackExactly() throws {
        var random = SeededRandom(seed: 16)
        var micros = 1_718_639_705_000_000 as Int64
        var text = ""
        var expected: [Int] = []
        for _ in 0..<400 {
            micros += 1 + Int64(random.unit() * 2_000_000)
            let (seconds, fraction) = PrintableTime.split(micros: micros)
            expected.append(fraction)
            var time = time_t(seconds)
            var parts = tm()
            localtime_r(&time, &parts)
            let stamp = String(format: "%04d-%02d-%02d, %02d:%02d:%02d.%06d", Int(parts.tm_year) + 1900,
                               Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
                               Int(parts.tm_sec), fraction)
            // one slice per line: every line is a sweep of its own with its own time
            text += "\(stamp), 0, 5000000, 1000000.00, 20, -1.00, -2.00, -3.00, -4.00, -5.00\n"
        }
        try expectRoundTrip(text, .hackrfSweep)
        // also from the frames alone (no rows): the frame times print to the same µs
        let directory = try TemporaryDirectory("micros")
        defer { directory.remove() }
        let path = directory.path("in.csv")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let frames = try readAll(try HackRFSweepCSVReader(path: path))
        #expect(frames.count == 400)
        #expect(frames.map { PrintableTime.microseconds($0.timestamp).micros } == expected)
        let out = directory.path("out.csv")
        let writer = try CaptureFormat.hackrfSweep.openWriter(path: out)
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        #expect(try String(contentsOfFile: out, encoding: .utf8) == text)
    }

    @Test func nanBinsAreKeptAsMissingAndCounted() throws {
        let path = Fixtures.path("excerpts/rtl_power-test5-excerpt.csv")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        // the values rtl_power wrote as nan, without the repeated last value
        let nanTokens = lines.map { $0.components(separatedBy: ", ").dropFirst(6).dropLast().filter { $0 == "nan" }.count }
        let reader = try RTLPowerCSVReader(path: path, options: utcStrict)
        let frames = try readAll(reader)
        #expect(frames.count == 2)
        #expect(reader.skipped == 0)
        #expect(reader.missingValues == nanTokens.reduce(0, +))
        #expect(reader.missingValues == 11)
        #expect(frames.map { $0.powerDB.count } == [320, 320])
        // each row's nan lands on its own bin; everything else is a number
        for (index, frame) in frames.enumerated() {
            let rowsNaN = nanTokens[(index * 10)..<(index * 10 + 10)].reduce(0, +)
            #expect(frame.powerDB.filter(\.isNaN).count == rowsNaN)
        }
        #expect(frames[0].powerDB[2 * 32 + 24].isNaN)  // line 24 of test5.csv: "-1.04, nan, nan, 0.97"
        #expect(frames[0].powerDB[2 * 32 + 23] == -1.04)
    }

    @Test func nanIsNoDataInThePNG() throws {
        let directory = try TemporaryDirectory("png-nan")
        defer { directory.remove() }
        let path = Fixtures.path("excerpts/rtl_power-test5-excerpt.csv")
        let finite = try readAll(try RTLPowerCSVReader(path: path, options: utc)).flatMap(\.powerDB).filter(\.isFinite)
        let summary = try PNGWaterfallExporter().export(open: { try RTLPowerCSVReader(path: path, options: utc) },
                                                        to: directory.path("w.png"), title: "test5")
        #expect(summary.frames == 2)
        // NaN is neither the loudest nor the quietest value drawn
        #expect(summary.topDB == finite.max())
        #expect(summary.floorDB.isFinite)
    }

    @Test func windowsSpellingsOfInfinityAndNaNAreRead() throws {
        let path = Fixtures.path("excerpts/rtl_power-fm_stations-excerpt.csv")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let tokens = lines.map { $0.components(separatedBy: ", ").dropFirst(6).dropLast().filter { $0 == "-1.#J" }.count }
        let reader = try RTLPowerCSVReader(path: path, options: utcStrict)
        let frames = try readAll(reader)
        #expect(frames.count == 2)
        let negativeInfinities = frames.flatMap(\.powerDB).filter { $0 == -Float.infinity }.count
        #expect(negativeInfinities == tokens.reduce(0, +))
        #expect(tokens.reduce(0, +) > 100)
        #expect(frames.flatMap(\.powerDB).allSatisfy { !$0.isNaN })
        #expect(reader.rows?.spelling == .msvc(decimals: 2))
    }

    @Test(arguments: [
        ("-1.#J", -Float.infinity, 2), ("-1.#INF", -.infinity, 4), ("-1.#INF00", -.infinity, 6), ("-1.$", -.infinity, 1),
        ("-1.#IO", -.infinity, 3), ("1.#QNAN", .nan, 5), ("1.#R", .nan, 2), ("1.#QNB", .nan, 4), ("1.#QNAN0", .nan, 6),
        ("-1.#IND", -.nan, 4), ("-1.#IND00", -.nan, 6),
    ] as [(String, Float, Int)])
    func microsoftRuntimeSpellings(_ text: String, _ value: Float, _ decimals: Int) throws {
        let parsed = Array(text.utf8).withUnsafeBufferPointer { NonFiniteSpelling.parseMSVC($0) }
        let result = try #require(parsed)
        #expect(result.decimals == decimals)
        #expect(result.value.isNaN == value.isNaN)
        #expect(result.value.sign == value.sign)
        if !value.isNaN { #expect(result.value == value) }
        // and written back the same way at that precision
        var out = [UInt8](repeating: 0, count: 16)
        let n = out.withUnsafeMutableBufferPointer { NonFiniteSpelling.msvc(decimals: decimals).write(result.value, to: $0.baseAddress!) }
        #expect(String(decoding: out[0..<n], as: UTF8.self) == text)
    }

    @Test func aSignallingNaNReadsAsNaN() throws {
        let parsed = try #require(Array("1.#SNAN".utf8).withUnsafeBufferPointer { NonFiniteSpelling.parseMSVC($0) })
        #expect(parsed.value.isNaN)
        #expect(parsed.decimals == 5)
    }

    @Test(arguments: ["-1.#K", "1.#", "2.#INF", "-1.#INFX", "1.#QNAX", "-1.#"])
    func otherHashTokensAreNotValues(_ text: String) {
        #expect(Array(text.utf8).withUnsafeBufferPointer { NonFiniteSpelling.parseMSVC($0) } == nil)
    }

    @Test func printedTimesRoundToTheMicrosecondAndCarry() {
        var random = SeededRandom(seed: 10)
        for _ in 0..<10_000 {
            let micros = 1_500_000_000_000_000 + Int64(random.unit() * 2e15)
            let (seconds, fraction) = PrintableTime.microseconds(Double(micros) / 1e6)
            #expect(Int64(seconds) * 1_000_000 + Int64(fraction) == micros)
        }
        #expect(PrintableTime.microseconds(1_718_639_705.999_999_7) == (1_718_639_706, 0))
        #expect(PrintableTime.split(micros: -1) == (-1, 999_999))
        #expect(PrintableTime.split(micros: .min) == (Int(PrintableTime.earliest), 0))
        #expect(PrintableTime.split(micros: .max) == (Int(PrintableTime.latest), 999_999))
    }

    @Test func aDamagedRowLayoutLeavesTheFrameReadable() throws {
        let directory = try TemporaryDirectory("rows-damaged")
        defer { directory.remove() }
        let input = Fixtures.path("excerpts/rtl_power-test5-excerpt.csv")
        let store = directory.path("x.tscope")
        let reader = try RTLPowerCSVReader(path: input)
        try copy(reader, into: try CaptureFormat.tscope.openWriter(path: store, metadata: reader.metadata))
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM frame_rows") == 2)
            try db.execute(sql: "UPDATE frame_rows SET layout = x'0102' WHERE frame_id = 1")
        }
        try queue.close()
        let stored = try CaptureStoreReader(path: store)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        #expect(try stored.next(into: &frame))
        #expect(stored.rows == nil)
        #expect(frame.powerDB.count == 320)
        #expect(try stored.next(into: &frame))
        #expect(stored.rows?.rows.count == 10)
        #expect(stored.skipped == 0)
    }

    @Test func rowBlobsDecodeToWhatWasEncoded() {
        let layout = SweepRowLayout(format: .hackrfSweep, spelling: .msvc(decimals: 2), rows: [
            SweepRow(lowHz: 0, highHz: 5e6, stepHz: 87290.5, samples: 20, timeMicros: 1_718_639_705_363_982,
                     firstBin: 10, binCount: 5, repeatsLast: true, ownValuesAt: 1, lineEnd: .crlf),
            SweepRow(lowHz: 10e6, highHz: 15e6, stepHz: 1e6, samples: -3, timeMicros: -7, firstBin: 0, binCount: 5,
                     timeStart: 1.25, timeStop: -2, lineEnd: .none, timeDecimals: 0),
            SweepRow(lowHz: 5e6, highHz: 10e6, stepHz: 1e6, samples: 20, timeMicros: 1_500_000, firstBin: 5,
                     binCount: 5, timeDecimals: 3),
        ], ownValues: [1, -.infinity, .nan, 4, 5, 6])
        var bytes: [UInt8] = []
        SweepRowCoding.encode(layout, into: &bytes)
        var decoded = SweepRowLayout(format: .rtlPower)
        #expect(bytes.withUnsafeBytes { SweepRowCoding.decode($0, into: &decoded) })
        #expect(decoded.rows == layout.rows)
        #expect(decoded.spelling == layout.spelling)
        #expect(decoded.ownValues.map(\.bitPattern) == layout.ownValues.map(\.bitPattern))
        #expect(decoded.format == .hackrfSweep)
        bytes.removeLast()
        #expect(!bytes.withUnsafeBytes { SweepRowCoding.decode($0, into: &decoded) })
    }
}
