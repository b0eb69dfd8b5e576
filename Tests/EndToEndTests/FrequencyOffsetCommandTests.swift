import Capture
import Foundation
import Signals
import Testing

/// `--frequency-offset` and `--spectrum-inverted` (issue 44): a converter in
/// front of the analyzer. Each command run behind one is compared with the
/// same command run at the tuned frequencies without it, on the emulated
/// HackRF and RTL-SDR (whose demo scenes are the same for the same seed):
/// the levels must agree and every frequency must be the real one.
@Suite struct FrequencyOffsetCommandTests {
    static func lines(_ arguments: [String]) throws -> [String] {
        let result = try run(Paths.tscope, arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdoutText.split(separator: "\n").map(String.init)
    }

    static func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// hackrf_sweep's columns after the time: low, high, step, samples, values
    static func columns(_ line: String) -> [String] {
        Array(line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.dropFirst(2))
    }

    @Test func hackRFSweepBehindAnLNBPrintsRealFrequenciesWithTheSameLevels() throws {
        // an LNB with a 9.75 GHz LO: 10180–10190 MHz arrive at 430–440 MHz
        let plain = try Self.lines(["sweep", "--device", "demo", "-f", "430:440", "-1"])
        let behind = try Self.lines(["sweep", "--device", "demo", "-f", "10180:10190", "--frequency-offset", "9750M", "-1"])
        try #require(plain.count == behind.count && plain.count >= 2)
        for (a, b) in zip(plain.map(Self.columns), behind.map(Self.columns)) {
            #expect(Int(b[0])! == Int(a[0])! + 9_750_000_000 && Int(b[1])! == Int(a[1])! + 9_750_000_000)
            #expect(Array(a[2...]) == Array(b[2...]))
        }
    }

    @Test func anInvertingConverterMirrorsEachBlock() throws {
        // the LO 10.6 GHz above the signal: real = 10600 − tuned, so 10180–10190 MHz arrive at 410–420 MHz mirrored
        let plain = try Self.lines(["sweep", "--device", "demo", "-f", "410:420", "-1"])
        let behind = try Self.lines(["sweep", "--device", "demo", "-f", "10180:10190", "--frequency-offset", "10600M",
                                     "--spectrum-inverted", "-1"])
        try #require(plain.count == behind.count && plain.count >= 2)
        for (a, b) in zip(plain.map(Self.columns), behind.map(Self.columns)) {
            #expect(Int(b[0])! == 10_600_000_000 - Int(a[1])! && Int(b[1])! == 10_600_000_000 - Int(a[0])!)
            #expect(Array(b[4...]) == Array(a[4...].reversed()))
        }
    }

    @Test func meterAndEventsSeeTheRealBand() throws {
        let plain = try Self.json(try #require(try Self.lines(["meter", "--device", "demo", "--band", "88:108", "-n", "1",
                                                               "--json"]).first))
        let behind = try Self.json(try #require(try Self.lines(["meter", "--device", "demo", "--band", "9838:9858", "-n", "1",
                                                                "--json", "--frequency-offset", "9750M"]).first))
        #expect(behind["start_hz"] as? Double == 9_838_000_000 && behind["stop_hz"] as? Double == 9_858_000_000)
        let a = try #require(plain["power_db"] as? Double), b = try #require(behind["power_db"] as? Double)
        #expect(abs(a - b) < 0.5, "\(a) vs \(b) dB")

        // the demo's burst at 1030 MHz tuned is at 905 MHz real with an offset of −125 MHz
        let events = try Self.lines(["events", "--device", "demo", "--band", "895:915", "--above", "-45", "--json",
                                     "--duration", "2s", "--frequency-offset", "-125M"])
        let peak = try #require(events.first.map(Self.json)?["peak_hz"] as? Double)
        #expect(abs(peak - 905_000_000) < 100_000, "\(peak)")
    }

    @Test func rtlPowerSweepAndMeterOnTheRTLSDR() throws {
        // a 125 MHz up-converter the other way: HF 0–1 MHz arrives at 125–126 MHz
        let plain = try Self.lines(["sweep", "--device", "demo-rtlsdr", "-f", "125M:126M:50k", "-1", "-i", "1"])
        let behind = try Self.lines(["sweep", "--device", "demo-rtlsdr", "-f", "0M:1M:50k", "-1", "-i", "1",
                                     "--frequency-offset", "-125M"])
        try #require(plain.count == behind.count && !plain.isEmpty)
        for (a, b) in zip(plain.map(Self.columns), behind.map(Self.columns)) {
            #expect(Int(b[0])! == Int(a[0])! - 125_000_000 && Int(b[1])! == Int(a[1])! - 125_000_000)
            #expect(a.count == b.count)
            // the dongle's noise differs run to run: the levels agree to a fraction of a dB
            let difference = zip(a[4...], b[4...]).map { abs(Double($0)! - Double($1)!) }.max() ?? 99
            #expect(difference < 1, "\(difference) dB")
        }
        let meter = try Self.json(try #require(try Self.lines(["meter", "--device", "demo-rtlsdr", "--band", "0:2", "-n", "1",
                                                               "--json", "--frequency-offset", "-125M"]).first))
        #expect(meter["start_hz"] as? Double == 0 && meter["stop_hz"] as? Double == 2_000_000)
    }

    @Test func aRecordingKeepsRealFrequenciesAndTheConverter() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offset-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("lnb.tscope").path
        let recorded = try run(Paths.tscope, ["record", "--device", "demo", "-f", "9838:9858", "--duration", "2s",
                                              "--output", capture, "--frequency-offset", "9750M"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let reader = try CaptureStoreReader(path: capture)
        #expect(reader.metadata.conversion == FrequencyConversion(offsetHz: 9_750_000_000))
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        #expect(try reader.next(into: &frame))
        #expect(abs(frame.startHz - 9_838_000_000) < frame.binWidthHz && abs(frame.stopHz - 9_858_000_000) < frame.binWidthHz)
        // what replay and export read: the real band, and the demo's FM stations in it (98.1 MHz + 9750)
        let peak = frame.powerDB.indices.max { frame.powerDB[$0] < frame.powerDB[$1] }!
        #expect(frame.binCenterHz(peak) > 9_838_000_000)
        // without -f the default band is the analyzer's own (88–108 MHz), moved by the converter
        let defaultCapture = directory.appendingPathComponent("default.tscope").path
        let byDefault = try run(Paths.tscope, ["record", "--device", "demo", "--duration", "1s", "--output", defaultCapture,
                                               "--frequency-offset", "9750M"])
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        var defaultFrame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        #expect(try CaptureStoreReader(path: defaultCapture).next(into: &defaultFrame))
        #expect(abs(defaultFrame.startHz - 9_838_000_000) < defaultFrame.binWidthHz, "\(defaultFrame.startHz)")
        let exported = try run(Paths.tscope, ["export", "--csv", "-", "--trace", "max", capture])
        #expect(exported.status == 0, "\(exported.stderr)")
        let first = try #require(exported.stdoutText.split(separator: "\n").dropFirst().first)
        #expect(Double(first.split(separator: ",")[0])! >= 9_838_000_000)
    }

    @Test func aConverterThatCannotReachIsOneLine() throws {
        let cases: [([String], String)] = [
            (["meter", "--device", "demo", "--band", "88:108", "--spectrum-inverted"], "--spectrum-inverted needs --frequency-offset"),
            (["sweep", "--device", "demo", "-f", "100:110", "--frequency-offset", "9750M", "-1"], "would tune below 0 MHz"),
            (["sweep", "--device", "demo", "-f", "10180:10190", "--frequency-offset", "9750.5M", "-1"], "whole MHz"),
            (["meter", "--device", "demo", "--band", "88:108", "--frequency-offset", "9750M", "-n", "1"], "outside the analyzer's 9750–15750 MHz"),
        ]
        for (arguments, message) in cases {
            let result = try run(Paths.tscope, arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"))
        }
    }
}
