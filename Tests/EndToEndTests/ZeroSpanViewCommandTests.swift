import Foundation
import Testing

/// The zero-span view of the built binary under tmux, as a user starts it:
/// `watch --view zerospan` on the demo HackRF (its pulsed transmitter at
/// 1030 MHz keys 50 µs every 2.5 ms), on the demo tinySA (the unit's own
/// zero span) and on a replay (no samples against time: one line says so).
@Suite(.serialized) struct ZeroSpanViewCommandTests {
    /// "… period 2.5 ms …" → 2.5e-3, from the view's reading row
    static func seconds(after label: String, in screen: String) -> Double? {
        guard let range = screen.range(of: label + " ") else { return nil }
        let words = screen[range.upperBound...].split(separator: " ", maxSplits: 2)
        guard words.count >= 2, let value = Double(words[0]) else { return nil }
        switch words[1] {
        case "s": return value
        case "ms": return value * 1e-3
        case "µs": return value * 1e-6
        default: return nil
        }
    }

    @Test(arguments: [(80, 24), (160, 48)])
    func theDemosPulsedTransmitterReadsItsWidthAndPeriod(width: Int, height: Int) throws {
        let tmux = try #require(try TmuxSession(width: width, height: height), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --view zerospan --band 1020:1040; echo \"STAT\"\"US=$?\"")
        let screen = try #require(tmux.waitFor("period", timeoutSeconds: 30), "\(tmux.screen())")
        // the status line: what is measured, at the band's centre
        #expect(screen.contains("zero span at 1.03 GHz"), "\(screen)")
        // the reading: the keyed 50 µs and 2.5 ms, within the 1 MHz RBW's rise time (0.68 µs) and a point (10 µs)
        let pulse = try #require(Self.seconds(after: "width", in: screen), "\(screen)")
        #expect(abs(pulse - 50e-6) < 11e-6, "width \(pulse) s: \(screen)")
        let period = try #require(Self.seconds(after: "period", in: screen), "\(screen)")
        #expect(abs(period - 2.5e-3) < 11e-6, "period \(period) s: \(screen)")
        // the time axis is in ms over the 10 ms sweep
        #expect(screen.contains("ms"), "\(screen)")
        // t sets a trigger at the trace's mid level: its line and the T on the time axis
        try tmux.keys("t")
        #expect(tmux.waitFor("trig ", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(tmux.waitFor("trigger ", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        // ] lengthens the sweep time
        try tmux.keys("]")
        #expect(tmux.waitFor("sweep 20 ms", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        // back to the plot: the spectrum again
        try tmux.keys("1")
        #expect(tmux.waitForAbsence(of: "zero span at", timeoutSeconds: 10), "\(tmux.screen())")
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"), "\(done)")
    }

    /// The drawer (d) types zero span's RBW, sweep time and trigger level and switches the edge; each reaches
    /// the analyzer (the status line says what it measures with) and the reading follows: 300 kHz over 2 ms
    /// reads the demo's 50 µs bursts within its rise time (2.3 µs) and a point (2 µs).
    @Test func theDrawerTypesTheRBWSweepTimeAndTrigger() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 48), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --view zerospan --band 1020:1040; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("period", timeoutSeconds: 30) != nil, "\(tmux.screen())")
        try tmux.keys("d")
        #expect(tmux.waitFor("trigger edge", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        // start, stop, RBW kHz: Enter, a number, Enter
        try tmux.keys("Down", "Down", "Enter", "3", "0", "0", "Enter")
        #expect(tmux.waitFor("RBW 300 kHz", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        try tmux.keys("Down", "Enter", "2", "Enter")
        #expect(tmux.waitFor("sweep 2 ms", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        try tmux.keys("Down", "Enter", "-", "3", "0", "Enter")
        #expect(tmux.waitFor("trigger -30 dB ↑", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        try tmux.keys("Down", "Enter")
        let screen = try #require(tmux.waitFor("trigger -30 dB ↓", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(screen.contains("falling"), "\(screen)")
        // a trace at the new settings: one burst in 2 ms, as wide as keyed
        usleep(1_000_000)
        let reading = try #require(tmux.waitFor("width", timeoutSeconds: 10), "\(tmux.screen())")
        let width = try #require(Self.seconds(after: "width", in: reading), "\(reading)")
        #expect(abs(width - 50e-6) < 2.3e-6 + 2e-6, "width \(width) s: \(reading)")
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"), "\(done)")
    }

    @Test func aTinySAShowsItsOwnZeroSpan() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 48), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo-tinysa --view zerospan --band 1020:1040; echo \"STAT\"\"US=$?\"")
        let screen = try #require(tmux.waitFor("tinySA's own zero span", timeoutSeconds: 30), "\(tmux.screen())")
        // its widest RBW, not the 1 MHz a radio starts with
        #expect(screen.contains("RBW 850 kHz"), "\(screen)")
        let period = try #require(tmux.waitFor("period", timeoutSeconds: 20).flatMap { Self.seconds(after: "period", in: $0) },
                                  "\(tmux.screen())")
        // 10 ms over 450 points: 22 µs a point
        #expect(abs(period - 2.5e-3) < 25e-6, "period \(period) s")
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"), "\(done)")
    }

    @Test func aReplaySaysWhyItHasNoZeroSpan() throws {
        let tmux = try #require(try TmuxSession(width: 120, height: 30), "Tools/install-deps --test installs tmux")
        let directory = try Paths.temporaryDirectory("zerospan-replay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorded = try run(Paths.tscope, ["record", "--device", "demo", "--band", "1020:1040", "--duration", "3",
                                              "--output", directory.path + "/"])
        #expect(recorded.status == 0, "stderr: \(recorded.stderr)")
        let path = recorded.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        try tmux.type("\(Paths.tscope.path) replay \(path) --view zerospan; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("zero span needs a live analyzer", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        // the other views still play
        try tmux.keys("1")
        #expect(tmux.waitForAbsence(of: "zero span needs", timeoutSeconds: 10), "\(tmux.screen())")
        try tmux.keys("q")
        let done = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(done.contains("STATUS=0"), "\(done)")
    }
}
