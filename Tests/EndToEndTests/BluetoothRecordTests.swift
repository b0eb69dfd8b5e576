import Foundation
import Testing

/// `--record FILE` on a Bluetooth stream from the BlueZ stand-in: what is
/// written survives a SIGKILL and gives record 100's beats, a normal end
/// writes the final header, and a dropped link is marked in the file.
@Suite(.serialized, .enabled(if: BlueZStandIn.available, "needs dbus-daemon, python3-dbus and python3-gi (Tools/install-deps --test)"))
struct BluetoothRecordTests {
    static let reference = BlueZStandIn.ecgFixtures.appendingPathComponent("mitdb-100/100.atr").path

    /// Se and +P from `ecg score`'s lines, with TP.
    static func score(_ path: String) throws -> (truePositives: Int, f1: Double, text: String) {
        let result = try run(Paths.tscope, ["ecg", "score", path, "--reference", reference], timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.stderr)")
        func count(_ label: String) -> Int? {
            result.stdoutText.split(separator: "\n").first { $0.hasPrefix(label + "  ") }
                .flatMap { Int($0.dropFirst(label.count).trimmingCharacters(in: .whitespaces)) }
        }
        let truePositives = try #require(count("TP"), "\(result.stdoutText)")
        let falsePositives = try #require(count("FP")), falseNegatives = try #require(count("FN"))
        return (truePositives, 2 * Double(truePositives) / Double(2 * truePositives + falsePositives + falseNegatives), result.stdoutText)
    }

    /// Polls until `path` holds at least `bytes` bytes, for at most `seconds`.
    static func waitForSize(_ path: String, bytes: Int, seconds: Double) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var size = 0
        while Date() < deadline {
            size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if size >= bytes { break }
            usleep(100_000)
        }
        return size
    }

    /// About 10 s of the board's stream into EDF+ and WFDB, then kill -9: each file reads
    /// (EDF's header still says −1 records) and its beats are record 100's.
    @Test func aRecordingKilledWithSIGKILLReadsAndHoldsRecord100sBeats() throws {
        let directory = try Paths.temporaryDirectory("ble-record-kill")
        for name in ["board.edf", "board.hea"] {
            let bus = try BlueZStandIn()
            defer { bus.stop() }
            let path = directory.appendingPathComponent(name).path
            let tscope = try BackgroundTscope(["ecg", "monitor", "--ble", "Kardia-ECG", "--rate", "360", "--json", "--record", path],
                                              environment: bus.environment)
            // 10 s at 360 Hz: 7,200 bytes of samples (EDF+: the header, and 10 records of samples and annotations)
            let data = name.hasSuffix(".edf") ? path : directory.appendingPathComponent("board.dat").path
            let wanted = name.hasSuffix(".edf") ? 768 + 10 * (2 * 360 + 120) : 7_200
            let size = Self.waitForSize(data, bytes: wanted, seconds: 30)
            kill(tscope.process.processIdentifier, SIGKILL)
            tscope.process.waitUntilExit()
            #expect(size >= wanted, "\(name): \(size) bytes")
            if name.hasSuffix(".edf") {
                let header = try #require(FileManager.default.contents(atPath: path))
                #expect(String(decoding: header[236..<244], as: UTF8.self).trimmingCharacters(in: .whitespaces) == "-1")
            } else {
                let header = try String(contentsOfFile: path, encoding: .utf8)
                #expect(header.hasPrefix("board 1 360\n"), "\(header)")
            }
            let scored = try Self.score(path)
            #expect(scored.truePositives >= 12 && scored.f1 >= 0.999, "\(name): \(scored.text)")
            let copy = directory.appendingPathComponent(name + ".csv").path
            let convert = try run(Paths.tscope, ["ecg", "convert", path, copy], timeoutSeconds: 30)
            #expect(convert.status == 0, "\(convert.stderr)")
        }
    }

    /// `--to 10` ends normally: the final header counts the 3,600 samples (EDF+: 10 records of 1 s).
    @Test func aNormalEndWritesTheFinalHeader() throws {
        let bus = try BlueZStandIn()
        defer { bus.stop() }
        let directory = try Paths.temporaryDirectory("ble-record-end")
        let wfdb = directory.appendingPathComponent("board.hea").path
        let monitor = try run(Paths.tscope, ["ecg", "monitor", "--ble", "Kardia-ECG", "--rate", "360", "--to", "10", "--record", wfdb],
                              environment: bus.environment, timeoutSeconds: 60)
        #expect(monitor.status == 0, "\(monitor.stderr)")
        let header = try String(contentsOfFile: wfdb, encoding: .utf8)
        #expect(header.hasPrefix("board 1 360 3600\n") && header.contains(" 0 ECG\n"), "\(header)")
        let scored = try Self.score(wfdb)
        #expect(scored.truePositives >= 12 && scored.f1 >= 0.999, "\(scored.text)")

        let edf = directory.appendingPathComponent("board.edf").path
        let again = try run(Paths.tscope, ["ecg", "monitor", "--ble", "Kardia-ECG", "--rate", "360", "--to", "10", "--record", edf],
                            environment: bus.environment, timeoutSeconds: 60)
        #expect(again.status == 0, "\(again.stderr)")
        let bytes = try #require(FileManager.default.contents(atPath: edf))
        #expect(String(decoding: bytes[236..<244], as: UTF8.self).trimmingCharacters(in: .whitespaces) == "10")
        #expect(bytes.count == 768 + 10 * (2 * 360 + 120))

        // a strap has RR intervals, not an ECG: one line, and no empty file left behind
        let strap = directory.appendingPathComponent("strap.edf").path
        let refused = try run(Paths.tscope, ["ecg", "monitor", "--ble", "HRM-Strap", "--to", "2", "--record", strap],
                              environment: bus.environment, timeoutSeconds: 30)
        #expect(refused.status == 1 && refused.stderr.contains("not an ECG to record"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: strap))
    }

    /// The stand-in drops the link a second in: the gap is an EDF+ TAL and a WFDB NOTE, "link lost N s".
    @Test func aDroppedLinkIsMarkedInTheRecording() throws {
        let directory = try Paths.temporaryDirectory("ble-record-gap")
        for name in ["board.edf", "board.hea"] {
            let bus = try BlueZStandIn(options: ["--speed", "4", "--drop-link-after", "1"])
            defer { bus.stop() }
            let path = directory.appendingPathComponent(name).path
            let result = try run(Paths.tscope, ["ecg", "monitor", "--ble", "Kardia-ECG", "--rate", "360", "--to", "12", "--record", path],
                                 environment: bus.environment, timeoutSeconds: 60)
            #expect(result.status == 0 && result.stderr.contains("link lost 1 times"), "\(result.stderr)")
            let marked = name.hasSuffix(".edf") ? path : directory.appendingPathComponent("board.atr").path
            let bytes = try #require(FileManager.default.contents(atPath: marked))
            #expect(bytes.range(of: Data("link lost ".utf8)) != nil, "\(name): no gap annotation")
            // the samples stay contiguous: the file's beats are still record 100's
            let scored = try Self.score(path)
            #expect(scored.f1 >= 0.999, "\(name): \(scored.text)")
        }
        let bad = try run(Paths.tscope, ["ecg", "monitor", "--ble", "Kardia-ECG", "--rate", "360", "--record",
                                         directory.appendingPathComponent("no/such/dir/x.edf").path], timeoutSeconds: 30)
        #expect(bad.status == 1 && bad.stderr.split(separator: "\n").count == 1 && bad.stderr.contains("cannot write"), "\(bad.stderr)")
    }

    /// `ecg watch --ble … --record` under tmux: the Polar H10's 130 Hz into EDF+ while the strip shows, and q writes the final header.
    @Test func watchRecordsAndQuitWritesTheFinalHeader() throws {
        let bus = try BlueZStandIn(options: ["--speed", "2"])
        defer { bus.stop() }
        let path = try Paths.temporaryDirectory("ble-record-watch").appendingPathComponent("h10.edf").path
        let tmux = try #require(try TmuxSession(width: 120, height: 30, shellEnvironment: bus.environment),
                                "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) ecg watch --ble 'Polar H10 8AA87D20' --record \(path); echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("130 Hz", timeoutSeconds: 30) != nil, "\(tmux.screen())")
        // three records of 1 s written while the strip runs
        let size = Self.waitForSize(path, bytes: 768 + 3 * (2 * 130 + 120), seconds: 20)
        #expect(size >= 768 + 3 * (2 * 130 + 120), "\(size) bytes")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let records = Int(String(decoding: bytes[236..<244], as: UTF8.self).trimmingCharacters(in: .whitespaces))
        #expect(records.map { $0 >= 3 && bytes.count == 768 + $0 * (2 * 130 + 120) } == true, "\(records.map(String.init) ?? "none"), \(bytes.count) bytes")
    }
}
