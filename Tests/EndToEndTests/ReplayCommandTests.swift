import Capture
import Foundation
import Testing

/// `tscope replay` and recording from `tscope watch`, run as a user would:
/// under tmux, then the files checked with the capture reader.
@Suite(.serialized) struct ReplayCommandTests {
    /// Records `seconds` from the demo device into `directory`; returns the file's path.
    func recordDemo(seconds: Int, into directory: URL) throws -> String {
        let result = try run(Paths.tscope, ["record", "--device", "demo", "--duration", "\(seconds)",
                                            "--output", directory.path + "/"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func waitForShell(_ tmux: TmuxSession) {
        let deadline = Date().addingTimeInterval(10)
        while tmux.paneFormat("#{alternate_on}") != "0" && Date() < deadline { usleep(100_000) }
    }

    @Test func replaysARecordingThroughTheViewsWithPauseSeekAndSpeed() throws {
        let tmux = try #require(try TmuxSession(width: 200, height: 40), "Tools/install-deps --test installs tmux")
        let directory = try Paths.temporaryDirectory("replay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try recordDemo(seconds: 2, into: directory)
        let reader = try CaptureStoreReader(path: path)
        #expect(reader.frameCount > 10)

        try tmux.type("\(Paths.tscope.path) replay \(path) --speed 0.25; echo \"STAT\"\"US=$?\"")
        let first = try #require(tmux.waitFor("REPLAY ×0.25 00:00:00 / 00:00:0", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(first.contains("(HackRF One (demo))"))
        // the recorded frames are drawn: a braille trace and the stored bin width
        let plotted = try #require(tmux.waitFor("kHz │", timeoutSeconds: 5), "\(tmux.screen())")
        #expect(plotted.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) }, "\(plotted)")

        try tmux.keys("Space")
        #expect(tmux.waitFor(" PAUSED ", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("g", "1", "Enter")
        #expect(tmux.waitFor("REPLAY ×0.25 00:00:01 / 00:00:0", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("2")
        let waterfall = try #require(tmux.waitFor("0s┤", timeoutSeconds: 5), "\(tmux.screen())")
        // paused after the seek: the refilled history is on screen
        #expect(waterfall.contains("▀") || waterfall.contains("▄"), "\(waterfall)")
        #expect(waterfall.contains(" PAUSED "))

        try tmux.keys(">", ">", ".")
        #expect(tmux.waitFor("REPLAY ×2 ", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("End")
        #expect(tmux.waitFor(" END ", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("Home")
        #expect(tmux.waitFor("REPLAY ×2 00:00:00 /", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("Space")
        // playing again at ×2 reaches the end of the 2 s file
        #expect(tmux.waitFor(" END ", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        try tmux.keys("3")
        #expect(tmux.waitFor("meter band", timeoutSeconds: 5) != nil, "\(tmux.screen())")

        try tmux.keys("q")
        waitForShell(tmux)
        #expect(tmux.paneFormat("#{alternate_on}") == "0")
        #expect(tmux.paneFormat("#{mouse_sgr_flag}") == "0")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.type("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ' '; echo \"EN\"\"D\"")
        let after = try #require(tmux.waitFor("END", timeoutSeconds: 5))
        #expect(after.contains("icanon echo"))
    }

    @Test func recordsTwiceFromTheViewerAndQuittingFinishesTheSecond() throws {
        let tmux = try #require(try TmuxSession(width: 140, height: 40), "Tools/install-deps --test installs tmux")
        let directory = try Paths.temporaryDirectory("watch-record")
        defer { try? FileManager.default.removeItem(at: directory) }
        let records = directory.appendingPathComponent("records")
        try tmux.type("\(Paths.tscope.path) watch --device demo --record-dir \(records.path) --label e2e "
            + "--operator bench; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("DEMO", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        try tmux.keys("r")
        #expect(tmux.waitFor("● REC 00:0", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        usleep(1_500_000)
        try tmux.keys("r")
        #expect(tmux.waitFor("saved bench_e2e_", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        // R records in the meter too, where r resets min/max
        try tmux.keys("3", "R")
        #expect(tmux.waitFor("● REC 00:0", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        usleep(1_200_000)
        try tmux.keys("q")
        waitForShell(tmux)
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(tmux.screen().components(separatedBy: "recorded ").count - 1 == 2, "\(tmux.screen())")

        let names = try FileManager.default.contentsOfDirectory(atPath: records.path)
            .filter { $0.hasSuffix(".tscope") }.sorted()
        #expect(names.count == 2, "\(names)")
        for name in names {
            #expect(name.hasPrefix("bench_e2e_"))
            let reader = try CaptureStoreReader(path: records.appendingPathComponent(name).path)
            #expect(reader.frameCount >= 5, "\(name): \(reader.frameCount) frames")
            #expect(reader.sessions.first?.stoppedAt != nil, "\(name) was not finished")
            #expect(reader.metadata.device == "HackRF One (demo)")
        }
    }

    @Test func headlessReplayAndBadInputGetOneClearLine() throws {
        let directory = try Paths.temporaryDirectory("replay-headless")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try recordDemo(seconds: 1, into: directory)

        let piped = try run(Paths.tscope, ["replay", path])
        #expect(piped.status != 0)
        #expect(piped.stderr.contains("needs an interactive terminal") && piped.stderr.contains("tscope convert"),
                "\(piped.stderr)")

        let notCapture = directory.appendingPathComponent("notes.tscope").path
        _ = FileManager.default.createFile(atPath: notCapture, contents: Data("hello\n".utf8))
        let bad = try run(Paths.tscope, ["replay", notCapture])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains(notCapture) && bad.stderr.contains("byte 0"), "\(bad.stderr)")
        #expect(bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")

        let unknown = try run(Paths.tscope, ["replay", directory.appendingPathComponent("scan.xyz").path])
        #expect(unknown.status != 0 && unknown.stderr.contains("no such file"), "\(unknown.stderr)")

        let speed = try run(Paths.tscope, ["replay", path, "--speed", "100"])
        #expect(speed.status != 0 && speed.stderr.contains("--speed"), "\(speed.stderr)")
        let start = try run(Paths.tscope, ["replay", path, "--start", "1:75"])
        #expect(start.status != 0 && start.stderr.contains("--start"), "\(start.stderr)")
    }
}
