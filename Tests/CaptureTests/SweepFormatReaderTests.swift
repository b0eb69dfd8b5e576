import Foundation
import Signals
import Testing
@testable import Capture

/// hackrf_sweep text and -B and soapy_power_bin: written by tscope's writers,
/// read back; damage in each.
@Suite struct SweepFormatReaderTests {
    /// Three sweeps of 2400–2440 MHz in hackrf_sweep order, N = 20 (5 bins per 5 MHz slice).
    private func sweepFile(_ layout: HackRFSweepWriter.Layout) throws -> (bytes: [UInt8], sweeps: [[Float]]) {
        let directory = try temporaryDirectory("hackrf")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("out").path
        let sink = try OutputSink.file(path: path)
        let writer = HackRFSweepWriter(sink: sink, layout: layout, fftSize: 20)
        var rng = SeededRandom(seed: 3)
        var sweeps: [[Float]] = []
        for sweep in 0..<3 {
            var bins = [Float](repeating: .nan, count: 40)
            for step in 0..<2 {
                let f = UInt64(2_400_000_000 + step * 20_000_000)
                let lower = (0..<5).map { _ in (Float.random(in: -90 ... -20, using: &rng) * 100).rounded() / 100 }
                let upper = (0..<5).map { _ in (Float.random(in: -90 ... -20, using: &rng) * 100).rounded() / 100 }
                let base = step * 20
                for i in 0..<5 { bins[base + i] = lower[i]; bins[base + 10 + i] = upper[i] }
                try lower.withUnsafeBufferPointer { l in
                    try upper.withUnsafeBufferPointer { u in
                        try writer.writeBlock(frequencyHz: f, seconds: 1_700_000_000 + sweep, microseconds: 500_000,
                                              lower: l, upper: u)
                    }
                }
            }
            // the frame ends with the last slice: 2430–2435 MHz
            sweeps.append(Array(bins[0..<35]))
        }
        try writer.flush()
        return (Array(try Data(contentsOf: URL(fileURLWithPath: path))), sweeps)
    }

    private func sameBins(_ a: [Float], _ b: [Float]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }
    }

    @Test func hackrfSweepTextAssemblesInterleavedSlicesIntoSweeps() throws {
        let (bytes, sweeps) = try sweepFile(.text)
        let frames = try withMemoryReader(bytes, { HackRFSweepCSVReader(input: $0, options: utcStrict) }) { try readAll($0) }
        #expect(frames.count == 3)
        for (frame, expected) in zip(frames, sweeps) {
            #expect(frame.startHz == 2_400_000_000)
            #expect(frame.binWidthHz == 1_000_000)
            // 2400–2440 MHz: slices at 2400, 2405, 2410, 2415 (+20) — 2420… are the second step
            #expect(sameBins(frame.powerDB, expected), "\(frame.powerDB) vs \(expected)")
        }
        #expect(frames.map(\.timestamp) == [1_700_000_000.5, 1_700_000_001.5, 1_700_000_002.5])
    }

    @Test func hackrfSweepBinaryReadsTheSameSweeps() throws {
        let (bytes, sweeps) = try sweepFile(.binary)
        let frames = try withMemoryReader(bytes, { HackRFSweepBinaryReader(input: $0, options: utcStrict) }) { try readAll($0) }
        #expect(frames.count == 3)
        for (frame, expected) in zip(frames, sweeps) { #expect(sameBins(frame.powerDB, expected)) }
        #expect(frames.map(\.timestamp) == [0, 1, 2])
    }

    @Test func aTruncatedBinaryRecordIsCountedOrFatal() throws {
        let (bytes, _) = try sweepFile(.binary)
        let cut = Array(bytes.dropLast(7))
        let lenient = try withMemoryReader(cut, { HackRFSweepBinaryReader(input: $0, options: utc) }) { reader in
            (try readAll(reader).count, reader.skipped)
        }
        #expect(lenient == (3, 1))
        let error = captureError {
            _ = try withMemoryReader(cut, { HackRFSweepBinaryReader(input: $0, options: utcStrict) }) { try readAll($0) }
        }
        // 12 records of 4 + 16 + 20 bytes: the last starts at 11 × 40
        #expect(error?.location == .byte(440))
        #expect(error?.detail.contains("truncated") == true)
    }

    @Test func aBinaryFileWithAnImpossibleLengthIsRefusedAtItsOffset() {
        let bytes: [UInt8] = [3, 0, 0, 0] + [UInt8](repeating: 0, count: 40)
        let error = captureError {
            _ = try withMemoryReader(bytes, { HackRFSweepBinaryReader(input: $0, options: utc) }) { try readAll($0) }
        }
        #expect(error?.location == .byte(0))
        #expect(error?.detail.contains("record length") == true)
    }

    @Test func hackrfSweepTextDamage() throws {
        let (bytes, _) = try sweepFile(.text)
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        // line 3: one value missing; line 6: time going backwards
        lines[2] = lines[2].components(separatedBy: ", ").dropLast().joined(separator: ", ")
        lines[5] = lines[5].replacingOccurrences(of: "2023", with: "2022")
        let text = lines.joined(separator: "\n") + "\n"
        let lenient = try withMemoryReader(Array(text.utf8), { HackRFSweepCSVReader(input: $0, options: utc) }) { reader in
            (try readAll(reader).count, reader.skipped)
        }
        #expect(lenient == (3, 2))
        let error = captureError {
            _ = try withMemoryReader(Array(text.utf8), { HackRFSweepCSVReader(input: $0, options: utcStrict) }) { try readAll($0) }
        }
        #expect(error?.location == .line(3))
        #expect(error?.detail.contains("expected 5 values") == true)
    }

    @Test func soapyPowerBinRoundTripsThroughItsWriter() throws {
        let directory = try temporaryDirectory("soapy")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("x.sdrff").path
        let writer = SoapyPowerBinWriter(sink: try OutputSink.file(path: path))
        var rng = SeededRandom(seed: 5)
        var written: [SpectrumFrame] = []
        for k in 0..<4 {
            let values = (0..<64).map { _ in Float.random(in: -100 ... -10, using: &rng) }
            let frame = SpectrumFrame(startHz: 100e6, binWidthHz: 1e3, timestamp: 1_600_000_000.25 + Double(k), powerDB: values)
            try writer.write(frame)
            written.append(frame)
        }
        try writer.finish()
        let frames = try readAll(try SoapyPowerBinReader(path: path, options: utcStrict))
        #expect(frames == written)
    }

    /// A soapy_power_bin record as soapy_power writes it (one hop).
    private func soapyRecord(start: Double, step: Double, time: Double, values: [Float], version: UInt8 = 2) -> [UInt8] {
        var bytes = Array("SDRFF".utf8) + [version]
        for value in [time - 1, time, start, start + step * Double(values.count), step] {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
        }
        withUnsafeBytes(of: UInt64(1000).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt64(values.count * 4).littleEndian) { bytes += $0 }
        bytes += [0, 0]
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    @Test func soapyHopsAssembleIntoSweeps() throws {
        let bytes = soapyRecord(start: 1000, step: 10, time: 5, values: [1, 2])
            + soapyRecord(start: 1020, step: 10, time: 6, values: [3, 4])
            + soapyRecord(start: 1000, step: 10, time: 7, values: [5, 6])
            + soapyRecord(start: 1020, step: 10, time: 8, values: [7, 8])
        let frames = try withMemoryReader(bytes, { SoapyPowerBinReader(input: $0, options: utcStrict) }) { try readAll($0) }
        #expect(frames.map(\.powerDB) == [[1, 2, 3, 4], [5, 6, 7, 8]])
        #expect(frames.map(\.timestamp) == [6, 8])
    }

    @Test func soapyDamage() {
        let good = soapyRecord(start: 1000, step: 10, time: 5, values: [1, 2])
        let cases: [([UInt8], String)] = [
            (good + soapyRecord(start: 1000, step: 5, time: 6, values: [1, 2, 3, 4]), "mixed bin widths"),
            (good + soapyRecord(start: 1000, step: 10, time: 1, values: [1, 2]), "backwards"),
            (good + soapyRecord(start: 1000, step: 10, time: 6, values: [.nan, 2]), "NaN"),
            (good + Array(soapyRecord(start: 1000, step: 10, time: 6, values: [1, 2]).dropLast(3)), "truncated"),
        ]
        for (bytes, expected) in cases {
            let error = captureError {
                _ = try withMemoryReader(bytes, { SoapyPowerBinReader(input: $0, options: utcStrict) }) { try readAll($0) }
            }
            #expect(error?.location == .byte(good.count), "\(expected)")
            #expect(error?.detail.contains(expected) == true, "\(String(describing: error))")
            let lenient = try? withMemoryReader(bytes, { SoapyPowerBinReader(input: $0, options: utc) }) { r in
                (try readAll(r).count, r.skipped)
            }
            #expect(lenient.map { $0 == (1, 1) } == true, "\(expected)")
        }
        let badMagic = good + Array("XXXXX".utf8) + [UInt8](repeating: 0, count: 70)
        let error = captureError {
            _ = try withMemoryReader(badMagic, { SoapyPowerBinReader(input: $0, options: utc) }) { try readAll($0) }
        }
        #expect(error?.detail.contains("SDRFF") == true)
        #expect(error?.location == .byte(good.count))
    }
}
