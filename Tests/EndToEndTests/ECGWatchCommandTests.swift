import Foundation
import Testing

@Suite(.serialized) struct ECGWatchCommandTests {
    @Test func refusesToRunWithoutATerminal() throws {
        let result = try run(Paths.tscope, ["ecg", "watch"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("interactive terminal"))
        #expect(result.stdout.isEmpty)
    }

    @Test func rejectsOptionsOutOfRange() throws {
        for (option, value) in [("--leads", "13"), ("--rate", "5"), ("--strip", "20"), ("--fps", "0"), ("--layout", "3x4")] {
            let result = try run(Paths.tscope, ["ecg", "watch", option, value])
            #expect(result.status != 0, "\(option) \(value)")
            #expect(result.stderr.contains(option), "\(option) \(value): \(result.stderr)")
        }
    }

    @Test func syntheticUnderTmuxRespondsToKeysThenQuitsToACleanShell() throws {
        let tmux = try #require(try TmuxSession(width: 120, height: 32), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) ecg watch --rate 250")
        let screen = try #require(tmux.waitFor("synthetic", timeoutSeconds: 20), "viewer did not draw:\n\(tmux.screen())")
        #expect(screen.contains("250 Hz │ 10 s │ 10 mm/mV"))
        for label in ["aVR", "aVL", "aVF", "V1", "V6"] { #expect(screen.contains(label), "\(label)") }
        #expect(tmux.paneFormat("#{alternate_on}") == "1")
        // a trace and a measured latency
        #expect(tmux.waitFor("⠤", timeoutSeconds: 10) != nil)
        #expect(tmux.waitFor(" ms │", timeoutSeconds: 10) != nil, "\(tmux.screen())")

        try tmux.keys("v")                              // 12-lead → strips
        #expect(tmux.waitFor("l leads", timeoutSeconds: 5) != nil)
        #expect(waitUntil { !tmux.screen().contains("aVR") }, "\(tmux.screen())")
        try tmux.keys("Left")
        #expect(tmux.waitFor("│ 7.5 s │", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("Up")
        #expect(tmux.waitFor("20 mm/mV", timeoutSeconds: 5) != nil)
        try tmux.keys("]")                              // sample rate 250 → 360 Hz
        #expect(tmux.waitFor("360 Hz", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("-")                              // refresh 30 → 25 fps
        #expect(waitUntil { tmux.screen().contains("│ 25 fps") || tmux.screen().contains("│ 24 fps") }, "\(tmux.screen())")
        try tmux.keys("Space")
        #expect(tmux.waitFor("PAUSED", timeoutSeconds: 5) != nil)
        try tmux.keys("Space")
        #expect(waitUntil { !tmux.screen().contains("PAUSED") })

        // the stand-in rhythm script turns to bradycardia 4 s in: one event
        #expect(tmux.waitFor("events 1", timeoutSeconds: 15) != nil, "\(tmux.screen())")
        try tmux.keys("e")
        let list = try #require(tmux.waitFor("Events (1)", timeoutSeconds: 5), "\(tmux.screen())")
        #expect(list.contains("Bradycardia  42 bpm"))
        try tmux.keys("x")
        #expect(tmux.waitFor("Events (0)", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        #expect(tmux.screen().contains("no events yet"))
        try tmux.keys("e")
        #expect(waitUntil { !tmux.screen().contains("Events (") })

        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(tmux.paneFormat("#{alternate_on}") == "0")
        #expect(tmux.paneFormat("#{cursor_flag}") == "1")
    }

    @Test func tinyTerminalDoesNotCrash() throws {
        let tmux = try #require(try TmuxSession(width: 20, height: 6))
        try tmux.type("\(Paths.tscope.path) ecg watch --leads 1; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("HR", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        usleep(1_500_000)
        try tmux.keys("q")
        let screen = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 10), "\(tmux.screen())")
        #expect(screen.contains("STATUS=0"))
    }

    /// Polls `condition` for up to `timeoutSeconds`.
    private func waitUntil(timeoutSeconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            if condition() { return true }
            usleep(100_000)
        } while Date() < deadline
        return false
    }
}
