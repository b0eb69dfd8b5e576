import Capture
import Devices
import Foundation
import Testing

/// A HackRF (emulated, through the libusb stand-in) that opens fine but stops
/// delivering: `watch` says "reconnecting…" on the status line for the whole
/// stall, through many open-and-stall cycles, longer than --reconnect-timeout.
@Suite(.serialized) struct StallTests {
    @Test func watchShowsAStallForItsWholeLength() throws {
        let served = try ServedHackRF(options: .init(pacing: .realTime(extraRetuneSeconds: 0), stallAfterBlocks: 3000))
        let environment = try FakeUSB.environment(sockets: [served.socketPath])
        let tmux = try #require(try TmuxSession(width: 160, height: 36, shellEnvironment: environment),
                                "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) watch --device hackrf --reconnect-timeout 2; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("fps", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        let first = try #require(tmux.waitFor("reconnecting… (no data from HackRF One", timeoutSeconds: 90),
                                 "\(tmux.screen())")
        #expect(first.contains("lost "), "\(first)")
        // 6 s of stall (three times --reconnect-timeout): every status line says so
        var missing: [String] = []
        var sawWaiting = false
        let until = Date().addingTimeInterval(6)
        while Date() < until {
            let screen = tmux.screen()
            if !screen.contains("reconnecting… (no data from HackRF One") {
                missing.append(screen.split(separator: "\n").first { $0.contains("fps") }.map(String.init) ?? screen)
            }
            if screen.contains("waiting for data") || screen.contains("connected, waiting") { sawWaiting = true }
            usleep(150_000)
        }
        #expect(missing.isEmpty, "status lines without the stall: \(missing.prefix(3))")
        #expect(sawWaiting || first.contains("attempt"), "\(first)")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }
}

/// `replay --follow` of a capture being recorded: while the recorder is
/// stopped (SIGSTOP) the status line says so for the whole stall, with the
/// time since it began; when it goes on, frames flow and the text goes.
@Suite(.serialized) struct FollowStallTests {
    @Test func aFollowedRecordingThatStopsSaysSoForItsWholeLength() throws {
        let directory = try Paths.temporaryDirectory("follow")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("live.tscope").path
        let recorder = try BackgroundTscope(["record", "--device", "demo", "--duration", "60", "--output", path])
        defer { recorder.stop() }
        // the store exists with frames in it
        let ready = Date().addingTimeInterval(20)
        while (try? CaptureStoreReader(path: path))?.frameCount ?? 0 < 5, Date() < ready { usleep(100_000) }
        let tmux = try #require(try TmuxSession(width: 240, height: 40), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) replay --follow \(path); echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("recording live.tscope", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        Thread.sleep(forTimeInterval: 1)
        #expect(!tmux.screen().contains("reconnecting"), "\(tmux.screen())")

        recorder.pause()
        let first = try #require(tmux.waitFor("reconnecting… (no data from recording live.tscope for 5 s",
                                              timeoutSeconds: 15), "\(tmux.screen())")
        #expect(first.contains("lost "))
        // 6 s more of stall: every status line says so
        var missing: [String] = []
        let until = Date().addingTimeInterval(6)
        while Date() < until {
            let screen = tmux.screen()
            if !screen.contains("reconnecting… (no data from recording live.tscope") {
                missing.append(String(screen.split(separator: "\n").first ?? ""))
            }
            usleep(200_000)
        }
        #expect(missing.isEmpty, "status lines without the stall: \(missing.prefix(3))")

        recorder.resume()
        #expect(tmux.waitForAbsence(of: "reconnecting", timeoutSeconds: 20), "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }
}
