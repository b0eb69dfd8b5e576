import Foundation
import Testing

/// `tscope replay` of real one- and two-sweep files counts the first sweep
/// (issue 10 point 6): the meter's min and max are the sweeps' band powers.
@Suite(.serialized) struct ReplayFirstFrameCommandTests {
    /// Power of all bins of an rtl_power or hackrf_sweep line together [dB]
    /// (rtl_power's repeated last value left out).
    func bandPower(_ lines: [Substring], rtlPower: Bool) -> Double {
        var linear = 0.0
        for line in lines {
            var values = line.components(separatedBy: ", ").dropFirst(6).map { Double($0)! }
            if rtlPower { values.removeLast() }
            linear += values.reduce(0) { $0 + pow(10, $1 / 10) }
        }
        return 10 * log10(linear)
    }

    /// Replays `file` in the meter view to its end; returns the meter's min and max [dB].
    func meterExtremes(_ file: String) throws -> (min: Double, max: Double, screen: String) {
        let tmux = try #require(try TmuxSession(width: 160, height: 40), "Tools/install-deps --test installs tmux")
        try tmux.type("TZ=UTC \(Paths.tscope.path) replay \(file) --view meter; echo \"STAT\"\"US=$?\"")
        let screen = try #require(tmux.waitFor(" END", timeoutSeconds: 20), "\(tmux.screen())")
        let line = try #require(screen.split(separator: "\n").first { $0.hasPrefix(" band ") }, "\(screen)")
        let numbers = line.components(separatedBy: "   ").compactMap { part -> (String, Double)? in
            let words = part.trimmingCharacters(in: .whitespaces).split(separator: " ")
            guard words.count >= 2, let value = Double(words[1]) else { return nil }
            return (String(words[0]), value)
        }
        let minimum = try #require(numbers.first { $0.0 == "min" }?.1, "no min in \(line)")
        let maximum = try #require(numbers.first { $0.0 == "max" }?.1, "no max in \(line)")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        return (minimum, maximum, screen)
    }

    @Test func aOneSweepHackRFSweepFileGivesAMeterReading() throws {
        let lines = try String(contentsOfFile: RealFiles.sweepCSV, encoding: .utf8).split(separator: "\n")
        let expected = bandPower(lines, rtlPower: false)
        let meter = try meterExtremes(RealFiles.sweepCSV)
        #expect(abs(meter.min - expected) <= 0.051, "\(meter.screen)")
        #expect(abs(meter.max - expected) <= 0.051)
        #expect(!meter.screen.contains("---"))
    }

    @Test func aTwoSweepRTLPowerFileMeasuresBothSweeps() throws {
        let directory = try Paths.temporaryDirectory("replay-two")
        defer { try? FileManager.default.removeItem(at: directory) }
        // the first two sweeps of the real Osaka capture
        let lines = try String(contentsOfFile: osakaCapture, encoding: .utf8).split(separator: "\n").prefix(2)
        let file = directory.appendingPathComponent("two.csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let powers = lines.map { bandPower([$0], rtlPower: true) }
        #expect(abs(powers[0] - powers[1]) > 0.1)
        let meter = try meterExtremes(file)
        #expect(abs(meter.min - powers.min()!) <= 0.051, "\(powers) vs \(meter.screen)")
        #expect(abs(meter.max - powers.max()!) <= 0.051, "\(powers) vs \(meter.screen)")
    }
}
