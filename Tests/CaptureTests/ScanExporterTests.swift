import DSP
import Foundation
import Signals
import Testing
@testable import Capture

/// `export --scan-format wwb|wsm|sdb2`: the held trace on one grid of whole
/// kHz at least the step apart, in dBm, laid out as the real coordination
/// files in Fixtures/coordination are, and read back by tscope's own readers.
@Suite struct ScanExporterTests {
    static func fixture(_ name: String) -> String { Fixtures.path("coordination/" + name) }

    /// A demo-like capture in dBm: two sweeps of 4000 bins of 2 kHz over
    /// 470–478 MHz, a noise floor with three carriers, seeded.
    static func capture(unit: PowerUnit = .dBm, binWidthHz: Double = 2_000, bins: Int = 4_000) -> (metadata: CaptureMetadata, frames: [SpectrumFrame]) {
        var random = SeededRandom(seed: 64)
        let frames = (0..<2).map { sweep in
            var levels = (0..<bins).map { _ in Float(-100 + random.unit() * 8) }
            for carrier in [200, 1_234, 3_000] where carrier < bins { levels[carrier] = -40 - Float(sweep) }
            levels[7] = .nan
            return SpectrumFrame(startHz: 470e6, binWidthHz: binWidthHz, timestamp: 1_760_000_000.5 + Double(sweep), powerDB: levels)
        }
        var metadata = CaptureMetadata(format: "tscope")
        metadata.gains = unit.recordedToken
        metadata.device = "HackRF One"
        return (metadata, frames)
    }

    func export(_ layout: ScanExporter.Layout, _ capture: (metadata: CaptureMetadata, frames: [SpectrumFrame]) = capture(),
                settings: ScanExporter.Settings = .init(), in directory: TemporaryDirectory,
                name: String = "venue.tscope") throws -> (path: String, summary: ScanExporter.Summary) {
        let path = directory.path("scan-\(layout.rawValue).\(layout == .sdb2 ? "sdb2" : "csv")")
        let reader = ScanFileReader(metadata: capture.metadata, frames: capture.frames, totalBytes: 0)
        return (path, try ScanExporter.export(reader, layout: layout, settings: settings, to: path, input: directory.path(name)))
    }

    /// per 25 kHz grid point (multiples of 25 kHz), the loudest bin over both sweeps whose centre is nearest it
    static func expectedPoints(_ frames: [SpectrumFrame], offset: Double = 0) -> [Int: Double] {
        var loudest: [Int: Double] = [:]
        for frame in frames {
            for (i, level) in frame.powerDB.enumerated() where level.isFinite {
                let kHz = Int((frame.binCenterHz(i) / 25_000).rounded()) * 25
                loudest[kHz] = max(loudest[kHz] ?? -.infinity, Double(level) + offset)
            }
        }
        return loudest
    }

    /// Export, read back through detection: the same points to the tenth of a dB printed, strictly increasing, ≥ 25 kHz apart.
    @Test(arguments: ScanExporter.Layout.allCases)
    func exportsReadBackToTheSameLevelsOnOneGrid(layout: ScanExporter.Layout) throws {
        let directory = try TemporaryDirectory("scan-round-trip")
        defer { directory.remove() }
        let capture = Self.capture()
        let (path, summary) = try export(layout, capture, in: directory)
        let expected = Self.expectedPoints(capture.frames)
        #expect(summary.points == 321 && summary.withoutData == 0 && summary.stepHz == 25_000)
        let format: CaptureFormat = [.wwb: .wwbCSV, .wsm: .wsm, .sdb2: .sdb2][layout]!
        #expect(try CaptureFormat.detect(path: path) == format)
        let frames = try readAll(try format.openReader(path: path, options: utc))
        try #require(frames.count == 1)
        let frame = frames[0]
        #expect(abs(frame.binWidthHz - 25_000) < 1e-6)
        let points = frame.powerDB.indices.filter { !frame.powerDB[$0].isNaN }.map { (kHz: frame.binCenterHz($0) / 1000, dB: frame.powerDB[$0]) }
        #expect(points.count == expected.count)
        for (point, next) in zip(points, points.dropFirst()) { #expect(next.kHz - point.kHz >= 25 - 1e-6) }
        for point in points {
            let kHz = Int(point.kHz.rounded())
            #expect(abs(point.kHz - Double(kHz)) < 1e-6)
            let want = try #require(expected[kHz], "\(kHz) kHz is not a grid point")
            #expect(abs(Double(point.dB) - want) <= 0.05 + 1e-4, "\(kHz) kHz: \(point.dB) vs \(want)")
        }
        // the carriers survive the merge
        #expect(points.filter { $0.dB == -40 }.count == 3)
    }

    /// Bins wider than the step stay one point each, at their centres rounded to the kHz, the same in every layout.
    @Test func coarseBinsKeepTheirCentresRoundedAlikeInEveryLayout() throws {
        let directory = try TemporaryDirectory("scan-coarse")
        defer { directory.remove() }
        let capture = Self.capture(binWidthHz: 31_250, bins: 64)
        let wwb = try String(contentsOfFile: export(.wwb, capture, in: directory).path, encoding: .utf8)
        let wsm = try String(contentsOfFile: export(.wsm, capture, in: directory).path, encoding: .utf8)
        let sdb2 = try String(contentsOfFile: export(.sdb2, capture, in: directory).path, encoding: .utf8)
        let fromWWB = wwb.split(separator: "\r\n").map { Int((Double($0.split(separator: ",")[0])! * 1000).rounded()) }
        let fromWSM = wsm.split(separator: "\r\n").dropFirst(15).map { Int($0.split(separator: ";")[0])! }
        let fromSDB2 = sdb2.components(separatedBy: "<f>").dropFirst().map { Int($0.components(separatedBy: "</f>")[0])! }
        // bin 7 has no data: left out of the CSVs, -140 in the .sdb2
        let centres = (0..<64).map { Int(((470e6 + (Double($0) + 0.5) * 31_250) / 1000).rounded()) }
        #expect(fromSDB2 == centres)
        #expect(fromWWB == centres.enumerated().filter { $0.offset != 7 }.map(\.element) && fromWSM == fromWWB)
        #expect(sdb2.components(separatedBy: "<v>")[8].hasPrefix("-140</v>"))
    }

    @Test func levelsAreConvertedToDBmOrRefused() throws {
        let directory = try TemporaryDirectory("scan-units")
        defer { directory.remove() }
        // dBµV across 50 Ω: dBm = dBµV − 106.99
        let dBuV = Self.capture(unit: .dBuV)
        let path = try export(.wwb, dBuV, in: directory).path
        let expected = Self.expectedPoints(dBuV.frames, offset: -106.98970004336019)
        for row in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\r\n") {
            let fields = row.split(separator: ",")
            let kHz = Int((Double(fields[0])! * 1000).rounded())
            #expect(fields[1] == Substring(String(format: "%.1f", expected[kHz]!)), "\(row)")
        }
        // an uncalibrated analyzer's dB full scale: refused, unless the user says they are dBm
        let uncalibrated = Self.capture(unit: .dB)
        let refusal = captureError { _ = try export(.wsm, uncalibrated, in: directory) }
        #expect(refusal?.detail.contains("tscope calibrate") == true && refusal?.detail.contains("--assume-dbm") == true)
        #expect(try export(.wsm, uncalibrated, settings: .init(assumeDBm: true), in: directory).summary.points == 321)
        let field = captureError { _ = try export(.sdb2, Self.capture(unit: .dBuVPerMetre), in: directory) }
        #expect(field?.detail.contains("field strength") == true)
    }

    @Test func maxPointsWidensTheStepToAMultipleOfItself() throws {
        let directory = try TemporaryDirectory("scan-max-points")
        defer { directory.remove() }
        let summary = try export(.wwb, settings: .init(maxPoints: 100), in: directory).summary
        // 8 MHz in 25 kHz steps is 321 points; 4 × 25 kHz gives 81
        #expect(summary.stepHz == 100_000 && summary.points == 81)
    }

    /// The WWB CSV as the real WWB-import sample: `MHz,dBm` with four and one decimals, CRLF, no header.
    @Test func wwbExportHasTheLayoutOfTheRealSample() throws {
        let directory = try TemporaryDirectory("scan-wwb-bytes")
        defer { directory.remove() }
        let sample = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("wwb-style-572-636-head.csv")))
        let ours = try Data(contentsOf: URL(fileURLWithPath: export(.wwb, in: directory).path))
        let row = #"^\d+\.\d{4},-?\d+\.\d$"#
        for data in [sample, ours] {
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.hasSuffix("\r\n") && !text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
            for line in text.split(separator: "\r\n") { #expect(line.range(of: row, options: .regularExpression) != nil, "\(line)") }
        }
        #expect(String(decoding: ours, as: UTF8.self).hasPrefix("470.0000,"))
    }

    /// The WSM file as the real WSM-import sample: its keys in its order, the range and column lines, CRLF.
    @Test func wsmExportHasTheLayoutOfTheRealSample() throws {
        let directory = try TemporaryDirectory("scan-wsm-bytes")
        defer { directory.remove() }
        let sample = try String(contentsOfFile: Self.fixture("wsm-import-from-sheets-converter.csv"), encoding: .utf8)
        // a name that would break the header: a newline and a ';'
        let path = try export(.wsm, in: directory, name: "hall;\nB.tscope").path
        let ours = try String(contentsOfFile: path, encoding: .utf8)
        for text in [sample, ours] { #expect(text.hasSuffix("\r\n") && !text.replacingOccurrences(of: "\r\n", with: "").contains("\n")) }
        let sampleLines = sample.components(separatedBy: "\r\n"), ourLines = ours.components(separatedBy: "\r\n")
        func key(_ line: String) -> String { line.split(separator: ";", omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces) }
        #expect(ourLines.prefix(16).map(key) == sampleLines.prefix(16).map(key))
        #expect(ourLines[2] == "RFUnit;dBm" && ourLines[11] == "ScanName;hall  B.tscope" && ourLines[0] == "Receiver;HackRF One")
        #expect(ourLines[14] == "Frequency Range [kHz];470000;478000;25")
        #expect(ourLines[15] == "Frequency;RF level (%);RF level")
        for line in ourLines[16...].dropLast() {
            #expect(line.range(of: #"^\d+;;-?\d+\.\d$"#, options: .regularExpression) != nil, "\(line)")
        }
    }

    /// The .sdb2 as WWB 6 wrote the real one: the same lines but for the numbers, LF, no end-of-line after the root.
    @Test func sdb2ExportHasTheLayoutOfTheRealFile() throws {
        let directory = try TemporaryDirectory("scan-sdb2-bytes")
        defer { directory.remove() }
        let real = try String(contentsOfFile: Self.fixture("wwb6-ulxd4q-572-636.sdb2"), encoding: .utf8)
        let ours = try String(contentsOfFile: export(.sdb2, in: directory).path, encoding: .utf8)
        // each line with its numbers and quoted values blanked: the structure, indentation and attribute order
        func shape(_ text: String) -> [String] {
            var seen = Set<String>()
            return text.components(separatedBy: "\n").map {
                $0.replacingOccurrences(of: #""[^"]*""#, with: "\"\"", options: .regularExpression)
                    .replacingOccurrences(of: #">-?[0-9.]+<"#, with: "><", options: .regularExpression)
            }.filter { seen.insert($0).inserted }
        }
        #expect(!real.hasSuffix("\n") && !ours.hasSuffix("\n") && !ours.contains("\r"))
        #expect(shape(ours) == shape(real))
        #expect(ours.components(separatedBy: "\n")[0] == real.components(separatedBy: "\n")[0])
        // the time: Unix ms of the first sweep, and its wall-clock date and time in WWB's spelling
        #expect(ours.contains(#"date_time="1760000000500""#))
        #expect(ours.range(of: #"date="(Sun|Mon|Tue|Wed|Thu|Fri|Sat) Oct (8|9) 2025" time="\d\d:\d\d:\d\d\.500""#,
                           options: .regularExpression) != nil)
        #expect(ours.contains(#"start_freq="470000.0" stop_freq="478000.0" step_freq="25.000""#))
    }
}
