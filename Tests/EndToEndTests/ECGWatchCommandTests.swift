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
        for (option, value) in [("--leads", "13"), ("--rate", "5"), ("--strip", "20"), ("--fps", "0"), ("--layout", "3x4"),
                                ("--mains", "55"), ("--heart-rate", "400"), ("--episodes", "some"), ("--speed", "100")] {
            let result = try run(Paths.tscope, ["ecg", "watch", option, value])
            #expect(result.status != 0, "\(option) \(value)")
            #expect(result.stderr.contains(option), "\(option) \(value): \(result.stderr)")
        }
    }

    /// The real ECG records the ECG tests use (Tests/ECGTests/Fixtures, provenance there).
    private static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/ECGTests/Fixtures")
    private static let mitdb100 = fixtures.appendingPathComponent("mitdb-100/100").path
    private static let ptb = fixtures.appendingPathComponent("ptbdb-s0010_re/s0010_re.hea").path

    @Test func syntheticUnderTmuxRespondsToKeysThenQuitsToACleanShell() throws {
        let tmux = try #require(try TmuxSession(width: 120, height: 32), "Tools/install-deps --test installs tmux")
        // the real generator, seeded, with the demo script: bradycardia from 20 s
        try tmux.type("\(Paths.tscope.path) ecg watch --rate 250 --episodes demo --seed 3")
        let screen = try #require(tmux.waitFor("synthetic", timeoutSeconds: 20), "viewer did not draw:\n\(tmux.screen())")
        #expect(screen.contains("250 Hz │ 10 s │ 10 mm/mV"))
        for label in ["aVR", "aVL", "aVF", "V1", "V6"] { #expect(screen.contains(label), "\(label)") }
        #expect(tmux.paneFormat("#{alternate_on}") == "1")
        // a trace, a measured latency and the heart rate the detector measures (70 ± HRV)
        #expect(tmux.waitFor("⠤", timeoutSeconds: 10) != nil)
        #expect(tmux.waitFor(" ms │", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(tmux.waitFor("Sinus rhythm", timeoutSeconds: 15) != nil, "\(tmux.screen())")
        #expect(waitUntil(timeoutSeconds: 10) { Self.heartRate(tmux.screen()).map { (60...80).contains($0) } ?? false },
                "\(tmux.screen())")

        try tmux.keys("v")                              // 12-lead → strips
        #expect(tmux.waitFor("l leads", timeoutSeconds: 5) != nil)
        #expect(waitUntil { !tmux.screen().contains("aVR") }, "\(tmux.screen())")
        try tmux.keys("Left")
        #expect(tmux.waitFor("│ 7.5 s │", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("Up")
        #expect(tmux.waitFor("20 mm/mV", timeoutSeconds: 5) != nil)
        try tmux.keys("-")                              // refresh 30 → 25 fps
        // the measured rate comes down to the new ceiling (a loaded machine draws fewer, never more;
        // the key's step is ECGMonitorModelTests')
        #expect(waitUntil { Self.framesPerSecond(tmux.screen()).map { (1...25).contains($0) } ?? false },
                "\(tmux.screen())")
        try tmux.keys("Space")
        #expect(tmux.waitFor("PAUSED", timeoutSeconds: 5) != nil)
        try tmux.keys("Space")
        #expect(waitUntil { !tmux.screen().contains("PAUSED") })

        // the script's bradycardia (40 beats/min from 20 s) reaches the detector: one event, once it has held
        // the 10 s that make an episode (RhythmEventLog)
        #expect(tmux.waitFor("events 1", timeoutSeconds: 60) != nil, "\(tmux.screen())")
        try tmux.keys("e")
        let list = try #require(tmux.waitFor("Events (1)", timeoutSeconds: 5), "\(tmux.screen())")
        #expect(list.contains("Bradycardia"))
        try tmux.keys("x")
        #expect(tmux.waitFor("Events (0)", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        #expect(tmux.screen().contains("no events yet"))
        try tmux.keys("e")
        #expect(waitUntil { !tmux.screen().contains("Events (") })

        // the rate keys drive the generator: the detector keeps measuring at the new rate
        try tmux.keys("]")                              // 250 → 360 Hz
        #expect(tmux.waitFor("360 Hz", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        #expect(tmux.waitFor("HR --", timeoutSeconds: 5) != nil, "the pipeline restarts at the new rate")
        #expect(waitUntil(timeoutSeconds: 15) { Self.heartRate(tmux.screen()) != nil }, "\(tmux.screen())")

        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(tmux.paneFormat("#{alternate_on}") == "0")
        #expect(tmux.paneFormat("#{cursor_flag}") == "1")
    }

    @Test func mitdbRecordReplaysWithReferenceBeatsSpeedAndPause() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 32))
        try tmux.type("\(Paths.tscope.path) ecg watch \(Self.mitdb100) --strip 5")
        let screen = try #require(tmux.waitFor("│ 100", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("360 Hz │ 5 s"))
        // the first capture can catch the frame half drawn (a full run once saw the V5 row not yet
        // written): wait for both leads' labels rather than read them from that one screen
        #expect(waitUntil(timeoutSeconds: 5) { ["MLII", "V5"].allSatisfy(tmux.screen().contains) }, "\(tmux.screen())")
        // the .atr beats are marked above the trace; record 100 runs at about 75 beats/min
        #expect(tmux.waitFor("▾", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(waitUntil(timeoutSeconds: 15) { Self.heartRate(tmux.screen()).map { (65...90).contains($0) } ?? false },
                "\(tmux.screen())")
        try tmux.keys(">")
        #expect(tmux.waitFor("360 Hz ×2 │", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("]")                              // a record's rate is its own
        #expect(tmux.waitFor("rate fixed by the source", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        try tmux.keys("Space")
        #expect(tmux.waitFor("PAUSED", timeoutSeconds: 5) != nil)
        usleep(500_000)
        // paused, the traces hold still (the status line's figures aside)
        let traces = { (text: String) in text.split(separator: "\n").dropFirst().joined(separator: "\n") }
        let frozen = traces(tmux.screen())
        usleep(1_000_000)
        #expect(traces(tmux.screen()) == frozen)
        try tmux.keys("Space")
        #expect(waitUntil { traces(tmux.screen()) != frozen }, "resumes where it stopped")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    /// Key t: the heart-rate trend against the .atr's rate and the target zone, then back.
    @Test func trendKeyShowsTheRateAgainstReferenceAndTarget() throws {
        let tmux = try #require(try TmuxSession(width: 120, height: 32))
        try tmux.type("\(Paths.tscope.path) ecg watch \(Self.mitdb100) --layout strip --target-hr 60:100 --speed 8")
        #expect(tmux.waitFor("│ 100", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        try tmux.keys("t")
        let screen = try #require(tmux.waitFor("HR trend", timeoutSeconds: 5), "\(tmux.screen())")
        #expect(screen.contains("target 60–100"), "\(screen)")
        // the legend names each trace with its newest rate, the .atr's once beats have come
        #expect(waitUntil(timeoutSeconds: 10) {
            tmux.screen().range(of: "measured [0-9]+ │ annotated [0-9]+ │", options: .regularExpression) != nil
        }, "\(tmux.screen())")
        // seconds of measured rate arrive as a braille line between the labels
        #expect(waitUntil(timeoutSeconds: 15) {
            tmux.screen().split(separator: "\n").dropFirst(2).contains { line in
                line.unicodeScalars.dropFirst(4).contains { $0.value > 0x2800 && $0.value <= 0x28FF } }
        }, "\(tmux.screen())")
        try tmux.keys("t")
        #expect(waitUntil { !tmux.screen().contains("HR trend") && tmux.screen().contains("MLII") }, "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
        let bad = try run(Paths.tscope, ["ecg", "watch", "--target-hr", "100:60"])
        #expect(bad.status != 0 && bad.stderr.contains("--target-hr"))
    }

    /// One column, no header, no time (heartpy's e0103, MIT): plays with --rate.
    @Test func oneColumnCSVPlaysWithTheGivenRate() throws {
        let tmux = try #require(try TmuxSession(width: 120, height: 32))
        let csv = Self.fixtures.appendingPathComponent("edb-e0103-csv/e0103.csv").path
        try tmux.type("\(Paths.tscope.path) ecg watch \(csv) --rate 250 --strip 5")
        let screen = try #require(tmux.waitFor("│ e0103", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("250 Hz │ 5 s"))
        #expect(waitUntil(timeoutSeconds: 15) { Self.heartRate(tmux.screen()).map { (50...110).contains($0) } ?? false },
                "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    @Test func ptbRecordPlaysInTheTwelveLeadView() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 48))
        try tmux.type("\(Paths.tscope.path) ecg watch \(Self.ptb)")
        _ = try #require(tmux.waitFor("│ s0010_re", timeoutSeconds: 20), "\(tmux.screen())")
        // the panes are labelled as they are first drawn: wait for all of them, not only the title
        let labels = ["1000 Hz", "I ", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6"]
        #expect(waitUntil(timeoutSeconds: 15) { let screen = tmux.screen(); return labels.allSatisfy(screen.contains) },
                "\(tmux.screen())")
        #expect(waitUntil(timeoutSeconds: 15) { Self.heartRate(tmux.screen()).map { (50...110).contains($0) } ?? false },
                "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    /// Every key counts: the PTB record opens in the 12-lead printout (its
    /// key line says `v strips`); `v` pressed 1, 3 and 6 s after start
    /// switches each time — to the strips (no aVR panel, `v 12-lead`) and
    /// back. (Issue 36: the key line used to say `v 12-lead` in the printout
    /// too, so the first `v` seemed to do nothing.)
    @Test func everyVSwitchesTheLayoutWhenEverItIsPressed() throws {
        let tmux = try #require(try TmuxSession(width: 80, height: 24))
        try tmux.type("\(Paths.tscope.path) ecg watch \(Self.ptb)")
        #expect(tmux.waitFor("v strips", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        let started = Date()
        var twelveLead = true
        for moment in [1.0, 3.0, 6.0] {
            let wait = moment - Date().timeIntervalSince(started)
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            try tmux.keys("v")
            twelveLead.toggle()
            let expected = twelveLead ? "v strips" : "v 12-lead"
            #expect(tmux.waitFor(expected, timeoutSeconds: 3) != nil, "v at \(moment) s:\n\(tmux.screen())")
            #expect(tmux.screen().contains("aVR") == twelveLead, "v at \(moment) s:\n\(tmux.screen())")
        }
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    /// A 6-lead device's EDF as a KardiaMobile 6L writes it — limb leads
    /// labelled "EKG I" … "EKG aVF" — made from the PTB record's six limb leads
    /// (`ecg convert --lead`, then the EDF label fields rewritten): the 12-lead
    /// view places all six, and its rhythm strip is lead II.
    @Test func aSixLeadDevicesEDFFillsTheLimbLeadPanels() throws {
        let directory = try Paths.temporaryDirectory("ecg-six-lead")
        defer { try? FileManager.default.removeItem(at: directory) }
        let edf = directory.appendingPathComponent("kardia.edf")
        let converted = try run(Paths.tscope, ["ecg", "convert", Self.ptb, edf.path, "--lead", "i", "--lead", "ii",
                                               "--lead", "iii", "--lead", "avr", "--lead", "avl", "--lead", "avf"])
        #expect(converted.status == 0, "\(converted.stderr)")
        var bytes = [UInt8](try Data(contentsOf: edf))
        // EDF: the number of signals at 252 (4 ASCII bytes), then each signal's 16-byte label from 256
        let signals = Int(String(decoding: bytes[252..<256], as: UTF8.self).trimmingCharacters(in: .whitespaces)) ?? 0
        #expect(signals >= 6)
        for (index, label) in ["EKG I", "EKG II", "EKG III", "EKG aVR", "EKG aVL", "EKG aVF"].enumerated() {
            let field = Array(label.padding(toLength: 16, withPad: " ", startingAt: 0).utf8)
            bytes.replaceSubrange((256 + 16 * index)..<(256 + 16 * (index + 1)), with: field)
        }
        try Data(bytes).write(to: edf)
        let tmux = try #require(try TmuxSession(width: 160, height: 48))
        try tmux.type("\(Paths.tscope.path) ecg watch \(edf.path)")
        _ = try #require(tmux.waitFor("│ kardia", timeoutSeconds: 20), "\(tmux.screen())")
        // the printout's labels, and the rhythm strip under them named as the file names lead II
        let labels = ["I ", "II ", "III ", "aVR", "aVL", "aVF", "V1", "EKG II"]
        #expect(waitUntil(timeoutSeconds: 15) { let screen = tmux.screen(); return labels.allSatisfy(screen.contains) },
                "\(tmux.screen())")
        // the detector runs on lead II found by its name ("EKG II"): a heart rate near the record's 81/min
        #expect(waitUntil(timeoutSeconds: 15) { Self.heartRate(tmux.screen()).map { (50...110).contains($0) } ?? false },
                "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil)
    }

    @Test func spectrumAndECGPaneShareTheScreen() throws {
        let tmux = try #require(try TmuxSession(width: 160, height: 48))
        try tmux.type("\(Paths.tscope.path) watch --device demo --ecg synthetic")
        let screen = try #require(tmux.waitFor("│ synthetic", timeoutSeconds: 30), "\(tmux.screen())")
        #expect(screen.contains("MHz"), "spectrum axis")
        #expect(screen.contains("DEMO"), "spectrum status")
        #expect(screen.contains("mm/mV"), "ECG status")
        #expect(tmux.waitFor("Sinus rhythm", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        // the ECG pane is below the spectrum, the spectrum's keys line above it
        let lines = tmux.screen().split(separator: "\n", omittingEmptySubsequences: false)
        let spectrumRow = try #require(lines.firstIndex { $0.contains("MHz") })
        let ecgRow = try #require(lines.firstIndex { $0.contains("mm/mV") })
        #expect(spectrumRow < ecgRow)
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        #expect(tmux.paneFormat("#{alternate_on}") == "0")
    }

    @Test func stdinSamplesPlayWhileKeysComeFromTheTerminalAndGarbageIsCounted() throws {
        let tmux = try #require(try TmuxSession(width: 120, height: 32))
        let producer = "awk 'BEGIN { for (i = 0; i < 400; i++) print 0.1; print \"garbage\"; print \"nan\" }'; sleep 4"
        try tmux.type("(\(producer)) | \(Paths.tscope.path) ecg watch --stdin --rate 250")
        let screen = try #require(tmux.waitFor("│ stdin", timeoutSeconds: 20), "\(tmux.screen())")
        #expect(screen.contains("250 Hz"))
        #expect(tmux.waitFor("2 skipped", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        try tmux.keys("Up")                              // keys reach the viewer through /dev/tty
        #expect(tmux.waitFor("20 mm/mV", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        #expect(tmux.waitFor("END", timeoutSeconds: 10) != nil, "stdin closed: \(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }

    /// A live source that goes quiet says so on the status line for as long as the silence lasts.
    @Test func aSilentStdinSaysSoForTheWholeSilence() throws {
        let tmux = try #require(try TmuxSession(width: 200, height: 32))
        let producer = "awk 'BEGIN { for (i = 0; i < 300; i++) print 0.1 }'; sleep 9"
        try tmux.type("(\(producer)) | \(Paths.tscope.path) ecg watch --stdin --rate 250")
        #expect(tmux.waitFor("no data from stdin for 2 s", timeoutSeconds: 15) != nil, "\(tmux.screen())")
        #expect(tmux.waitFor("no data from stdin for 5 s", timeoutSeconds: 6) != nil, "still said: \(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("READY$", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }

    @Test func badSourcesGiveOneLineAndAFailingStatus() throws {
        let directory = try Paths.temporaryDirectory("ecg-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: directory.appendingPathComponent(name))
        }
        try write("bad.hea", Array("not a header\n".utf8))
        try write("short.hea", Array("short 1 360 1000\nshort.dat 16 200 11 1024 0 0 0 II\n".utf8))
        try write("short.dat", [UInt8](repeating: 0, count: 100))
        try write("f310.hea", Array("f310 1 360 10\nf310.dat 310 200 11 1024 0 0 0 II\n".utf8))
        try write("f310.dat", [UInt8](repeating: 0, count: 40))
        try write("nan.csv", Array("time,II\n0,0.1\n0.004,nan\n0.008,0.2\n".utf8))
        let cases: [(arguments: [String], mentions: String)] = [
            ([directory.appendingPathComponent("bad.hea").path], "bad.hea:1"),
            // a signal file shorter than its header says: refused with --strict (else its complete frames play)
            ([directory.appendingPathComponent("short").path, "--strict"], "short.dat"),
            ([directory.appendingPathComponent("f310").path], "format 310 not supported"),
            ([directory.appendingPathComponent("missing").path], "no such file"),
            ([Self.mitdb100, "--rate", "250"], "360"),
            ([Self.mitdb100, "--qrs-lead", "5"], "--qrs-lead"),
            (["--stdin"], "--rate"),
            ([Self.fixtures.appendingPathComponent("edb-e0103-csv/e0103.csv").path], "e0103.csv: no time column (no header): give the sample rate with --rate"),
            ([Self.mitdb100, "--gain", "0"], "--gain"),
        ]
        for (arguments, mentions) in cases {
            let result = try run(Paths.tscope, ["ecg", "watch"] + arguments)
            #expect(result.status != 0, "\(arguments)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 || result.stderr.contains("Usage"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"), "\(arguments)")
        }
        let watch = try run(Paths.tscope, ["watch", "--device", "demo", "--ecg", directory.appendingPathComponent("bad.hea").path])
        #expect(watch.status != 0)
        #expect(watch.stderr.contains("--ecg") && watch.stderr.contains("bad.hea:1"), "\(watch.stderr)")
    }

    /// The heart rate on the status line ("HR 72"), nil while "HR --".
    /// The frame rate the status line shows ("… 24 fps"): the number before " fps".
    private static func framesPerSecond(_ screen: String) -> Int? {
        guard let range = screen.range(of: " fps") else { return nil }
        let digits = screen[..<range.lowerBound].reversed().prefix { $0.isNumber }
        return digits.isEmpty ? nil : Int(String(digits.reversed()))
    }

    private static func heartRate(_ screen: String) -> Int? {
        guard let range = screen.range(of: "HR ") else { return nil }
        return Int(screen[range.upperBound...].prefix { $0.isNumber })
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
