import Foundation
import Testing

@Suite(.serialized) struct WatchCommandTests {
    @Test func refusesToRunWithoutATerminal() throws {
        let result = try run(Paths.tscope, ["watch", "--device", "demo"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("interactive terminal"))
        #expect(result.stderr.contains("tscope sweep"))
        #expect(result.stdout.isEmpty)
    }

    @Test func rejectsABandOutsideTheAnalyzer() throws {
        for band in [["--band", "108:88"], ["--band", "x"], ["--band=-5:10"]] {
            let result = try run(Paths.tscope, ["watch", "--device", "demo"] + band)
            #expect(result.status == 64, "\(band)")
            #expect(result.stderr.contains("--band"), "\(band)")
        }
        // beyond the analyzer, but a converter could bring it in: refused once the analyzer is known, in one line
        let tmux = try #require(try TmuxSession(width: 120, height: 32), "Tools/install-deps --test installs tmux")
        // the status is echoed as "EXIT=…", which the typed line itself does not contain
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 7000:7100; echo \"EX\"\"IT=$?\"")
        let screen = try #require(tmux.waitFor("EXIT=", timeoutSeconds: 20), "no exit:\n\(tmux.screen())")
        #expect(screen.contains("Error: --band 7000:7100: outside the analyzer's 0–6000 MHz"), "\(screen)")
        #expect(screen.contains("EXIT=1"), "\(screen)")
    }

    /// A tinySA over 30 MHz–1 GHz measures each point through its own RBW filter, narrower than the step
    /// between points: the status line says tones between points read low. The HackRF's FFT columns hold
    /// the largest of the bins under them, so the same band on it says nothing of the kind.
    @Test func aTinySAOverAWideSpanWarnsThatTonesBetweenPointsReadLow() throws {
        for (device, warns) in [("demo-tinysa", true), ("demo", false)] {
            let tmux = try #require(try TmuxSession(width: 160, height: 40), "Tools/install-deps --test installs tmux")
            try tmux.type("\(Paths.tscope.path) watch --device \(device) --band 30:1000")
            let drawn = try #require(tmux.waitFor("MHz", timeoutSeconds: 20), "viewer did not draw:\n\(tmux.screen())")
            if warns {
                let screen = try #require(tmux.waitFor("between points read", timeoutSeconds: 20), "\(tmux.screen())")
                #expect(screen.contains("RBW ") && screen.contains(" step: tones between points read"), "\(screen)")
            } else {
                // several frames in, still no warning
                Thread.sleep(forTimeInterval: 3)
                #expect(!tmux.screen().contains("between points"), "\(drawn)")
            }
            try tmux.keys("q")
        }
    }

    @Test func demoUnderTmuxShowsAxesAndDemoThenQuitsToACleanShell() throws {
        let tmux = try #require(try TmuxSession(width: 120, height: 32), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 88:108")
        let screen = try #require(tmux.waitFor("MHz", timeoutSeconds: 20), "viewer did not draw:\n\(tmux.screen())")
        #expect(screen.contains(" DEMO "))
        #expect(screen.contains("span 20 MHz"))
        #expect(screen.contains("┤"))           // dB axis
        #expect(screen.contains("┬"))           // frequency ticks
        #expect(screen.contains("100"))         // a tick label
        #expect(tmux.paneFormat("#{alternate_on}") == "1")
        // a trace is drawn once frames arrive
        #expect(tmux.waitFor("⣿", timeoutSeconds: 10) != nil || tmux.screen().contains { ("\u{2801}"..."\u{28FF}").contains($0) })

        try tmux.keys("+")
        #expect(tmux.waitFor("span 10 MHz", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("Right")
        try tmux.keys("Space")
        #expect(tmux.waitFor("PAUSED", timeoutSeconds: 5) != nil)
        try tmux.keys("Space")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(tmux.paneFormat("#{alternate_on}") == "0")
        #expect(tmux.paneFormat("#{cursor_flag}") == "1")
        // the shell got its cooked terminal back
        try tmux.type("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ' '; echo \"EN\"\"D\"")
        let after = try #require(tmux.waitFor("END", timeoutSeconds: 5))
        #expect(after.contains("icanon echo"))
    }

    @Test func sigtermRestoresTheTerminal() throws {
        let tmux = try #require(try TmuxSession(width: 100, height: 30))
        // a band no other test uses, to find this process
        try tmux.type("\(Paths.tscope.path) watch --device demo --band 433:435; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor(" DEMO ", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        let kill = try run(try #require(which("pkill")), ["-TERM", "-f", "watch --device demo --band 433:435"])
        #expect(kill.status == 0)
        let screen = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("STATUS=143"))  // died by SIGTERM, as a well-behaved program does
        #expect(tmux.paneFormat("#{alternate_on}") == "0")
        #expect(tmux.paneFormat("#{cursor_flag}") == "1")
    }

    @Test func unplugMidRunShowsReconnectingAndQuitsToARestoredTerminal() throws {
        // an emulated HackRF that disappears after 2000 blocks (a few seconds of real-time sweeping)
        let served = try ServedHackRF(options: .init(pacing: .realTime, disconnectAfterBlocks: 2000))
        let tmux = try #require(try TmuxSession(width: 160, height: 30,
                                                shellEnvironment: try FakeUSB.environment(sockets: [served.socketPath])))
        try tmux.type("\(Paths.tscope.path) watch --device hackrf; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("span", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        #expect(!tmux.screen().contains(" DEMO "))
        // the viewer keeps trying (the device is gone for good here) and says so
        let lost = try #require(tmux.waitFor("reconnecting…", timeoutSeconds: 30), "\(tmux.screen())")
        #expect(lost.contains("HackRF One disconnected") || lost.contains("no data from HackRF One"), "\(lost)")
        try tmux.keys("q")
        let screen = try #require(tmux.waitFor("STATUS=", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("STATUS=0"))
        #expect(tmux.paneFormat("#{alternate_on}") == "0")
        #expect(tmux.paneFormat("#{cursor_flag}") == "1")
    }
}
