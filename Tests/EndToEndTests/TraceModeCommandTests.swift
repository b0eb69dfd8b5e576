import Foundation
import Testing

/// Trace modes in `watch`, driven by keys under tmux on the demo, whose 1030
/// MHz transmitter is keyed on 50 µs in every 2.5 ms: live it flickers, max
/// hold keeps it.
@Suite(.serialized) struct TraceModeCommandTests {
    @Test func tCyclesTheTraceAndMaxHoldKeepsThePulse() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 40), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 1020:1040 --trace min; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("trace min hold", timeoutSeconds: 20) != nil, "--trace min: \(tmux.screen())")
        try tmux.keys("t")
        #expect(tmux.waitFor("trace avg 16", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("t")
        // live: the trace note leaves the status line
        var live = tmux.screen()
        let until = Date().addingTimeInterval(5)
        while live.contains("trace ") && Date() < until {
            usleep(100_000)
            live = tmux.screen()
        }
        #expect(!live.contains("trace ") && live.contains("fps"), "live shows no trace note: \(live)")
        try tmux.keys("t")
        #expect(tmux.waitFor("trace max hold", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        // after 2 s of max hold the pulse's column stands far above the floor in every drawn frame
        usleep(2_000_000)
        let held = tmux.screen()
        try tmux.keys("?")
        #expect(tmux.waitFor("trace (plot, meter): live, max hold", timeoutSeconds: 5) != nil, "help lists t: \(tmux.screen())")
        try tmux.keys("q")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        // the plot's top rows (just under the status line) hold braille where the pulse's peak is drawn
        let rows = held.split(separator: "\n", omittingEmptySubsequences: false)
        let upper = rows.dropFirst(1).prefix(12).joined()
        #expect(upper.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) }, "\(held)")
    }

    /// Markers by key on the demo's FM band: m on the loudest station, M a
    /// second on the next loudest, x makes it a delta read against marker 1.
    @Test func markerKeysPlaceMarkersAndTheTableReadsThem() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 40), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 88:108 --trace max; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("trace max hold", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        usleep(1_000_000)
        try tmux.keys("m")
        let one = try #require(tmux.waitFor("▸1  ", timeoutSeconds: 5), "\(tmux.screen())")
        #expect(one.contains("◆") && one.contains(" MHz  −"), "\(one)")
        // 160 columns: the table has a pane of its own right of the plot, titled
        #expect(one.contains("markers 1 of 4"), "\(one)")
        try tmux.keys("M")
        try tmux.keys("x")
        let delta = try #require(tmux.waitFor("▸Δ2 ", timeoutSeconds: 5), "\(tmux.screen())")
        let line = delta.split(separator: "\n").first { $0.contains("▸Δ2 ") }.map(String.init) ?? ""
        #expect(line.contains(" MHz  ") && line.hasSuffix(" dB"), "\(line)")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }

    /// The meter measures the trace: on the demo's 1030 MHz pulse (2 % duty)
    /// the live readings jump with how often each frame's sweeps caught it;
    /// t in the meter view switches to max hold, whose readings hold at least
    /// the loudest live one and stay put.
    @Test func tInTheMeterMeasuresTheMaxHoldTrace() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 40), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 1025:1035 --mode sweep; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("fps", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        try tmux.keys("3")
        #expect(tmux.waitFor("   max ", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        // min and max since r: the readings of the next 2 s
        func extremes(after keys: String, seconds: Double) throws -> (min: Double, max: Double, screen: String) {
            try tmux.keys(keys)
            usleep(UInt32(seconds * 1e6))
            let screen = tmux.screen()
            guard let line = screen.split(separator: "\n").first(where: { $0.contains(" band ") && $0.contains("   max ") })
            else { return (.nan, .nan, screen) }
            func value(_ label: String) -> Double {
                guard let range = line.range(of: "   \(label) ") else { return .nan }
                return Double(line[range.upperBound...].prefix { $0 != " " }) ?? .nan
            }
            return (value("min"), value("max"), screen)
        }
        usleep(1_000_000)
        let live = try extremes(after: "r", seconds: 2)
        try tmux.keys("t")
        #expect(tmux.waitFor("trace max hold   min", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        usleep(2_000_000)
        let held = try extremes(after: "r", seconds: 1.5)
        #expect(held.screen.contains("│ trace max hold"), "the status line names the trace: \(held.screen)")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(held.min >= live.max - 0.5, "max hold \(held) dB vs live \(live) dB")
        #expect(held.max - held.min < 1, "max hold stays put: \(held)")
        #expect(live.max - live.min > 3, "live readings jump with the pulse: \(live)")
    }

    @Test func aBadTraceIsOneLine() throws {
        let result = try run(Paths.tscope, ["watch", "--device", "demo", "--trace", "hold"])
        #expect(result.status == 64 && result.stderr.contains("--trace"), "\(result.stderr)")
    }
}

/// `--reference`, `--subtract-reference` and `s` / `S` in `watch`.
@Suite(.serialized) struct ReferenceCommandTests {
    @Test func aReferenceFileIsShownSubtractedAndSReplacesIt() throws {
        let directory = try Paths.temporaryDirectory("reference")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ref.csv")
        try Data("frequency_hz,power_db\n88000000,-60\n108000000,-60\n".utf8).write(to: file)
        let tmux = try #require(try TmuxSession(width: 160, height: 40), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 88:108 --reference \(file.path) --subtract-reference"
            + "; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("│ live − reference", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        // s stores the trace drawn: wait for one (braille dots below the status line)
        let drawn = Date().addingTimeInterval(10)
        while !tmux.screen().split(separator: "\n").dropFirst().joined().unicodeScalars.contains(where: { (0x2801...0x28FF).contains($0.value) }),
              Date() < drawn { usleep(100_000) }
        try tmux.keys("s")
        #expect(tmux.waitFor("reference stored: ", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("S")
        var screen = tmux.screen()
        let until = Date().addingTimeInterval(5)
        while screen.contains("reference") && Date() < until {
            usleep(100_000)
            screen = tmux.screen()
        }
        #expect(!screen.split(separator: "\n").first.map(String.init).map { $0.contains("reference") }!, "\(screen)")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }

    @Test func badReferencesAreOneLine() throws {
        let lone = try run(Paths.tscope, ["watch", "--device", "demo", "--subtract-reference"])
        #expect(lone.status == 64 && lone.stderr.contains("--subtract-reference needs --reference"), "\(lone.stderr)")
    }
}
