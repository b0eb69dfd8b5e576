import Capture
import Foundation
import Signals
import Testing

/// `tscope record` run as a user would, then its files opened with the capture reader.
@Suite(.serialized) struct RecordCommandTests {
    /// Starts `tscope record` in the background with stderr/stdout to files.
    func launch(_ arguments: [String], in directory: URL) throws -> Process {
        let process = Process()
        process.executableURL = Paths.tscope
        process.arguments = ["record", "--device", "demo"] + arguments
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("stderr.txt").path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: directory.appendingPathComponent("stderr.txt"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits until `path` is a capture holding at least `frames` committed frames.
    func waitForFrames(_ path: String, atLeast frames: Int, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let reader = try? CaptureStoreReader(path: path), reader.frameCount >= frames { return true }
            usleep(100_000)
        }
        return false
    }

    func captures(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tscope") }
    }

    @Test func recordsForTheDurationIntoANamedFile() throws {
        let directory = try Paths.temporaryDirectory("record")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(Paths.tscope, ["record", "--device", "demo", "--duration", "2", "--label", "fm-survey",
                                            "--operator", "bench2", "--output", directory.path + "/"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let names = try captures(in: directory)
        #expect(names.count == 1)
        let name = try #require(names.first)
        #expect(name.range(of: #"^bench2_fm-survey_\d{8}T\d{6}Z\.tscope$"#, options: .regularExpression) != nil)
        #expect(result.stdoutText == directory.appendingPathComponent(name).path + "\n")
        #expect(result.stderr.contains("frame rate requested 10.00/s, achieved"))
        // the count printed is the count stored (on a loaded machine the DSP thread may drop a few)
        let dropsPattern = try Regex(#"dropped blocks (\d+)"#, as: (Substring, Substring).self)
        let printedDrops = result.stderr.firstMatch(of: dropsPattern).flatMap { Int($0.1) }
        #expect(printedDrops != nil, "stderr: \(result.stderr)")

        let reader = try CaptureStoreReader(path: directory.appendingPathComponent(name).path)
        // At most 10 frames/s for 2 s (the demo makes about 30/s; the rate and the duration are
        // RecordingSessionTests' on a manual clock): bounds a loaded machine cannot break, as it
        // only ever makes fewer frames. Tools/bench-record measures the rate achieved.
        #expect((2...21).contains(reader.frameCount), "frames: \(reader.frameCount)")
        let range = try #require(reader.timeRange)
        #expect(range.upperBound > range.lowerBound && range.upperBound - range.lowerBound <= 2.05)
        let session = try #require(reader.sessions.first)
        #expect(session.requestedFrameRate == 10 && session.stoppedAt != nil && session.frames == reader.frameCount)
        let achieved = try #require(session.achievedFrameRate)
        #expect(achieved > 0 && achieved <= 10.5, "achieved \(achieved) frames/s")
        #expect(session.droppedBlocks == printedDrops)
        #expect(reader.metadata.device == "HackRF One (demo)" && reader.metadata.label == "fm-survey")
        #expect(reader.metadata.span?.lowerHz == 88e6 && reader.metadata.writerVersion != nil)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        #expect(try reader.next(into: &frame))
        // real time (the default for 20 MHz): the FFT bins whose centres lie in the band
        #expect(abs(frame.startHz - 88e6) <= frame.binWidthHz && frame.powerDB.count > 100
                && frame.powerDB.allSatisfy(\.isFinite), "\(frame.startHz) Hz, \(frame.powerDB.count) bins")
    }

    @Test func sigintStopsEarlyAndKeepsEverything() throws {
        let directory = try Paths.temporaryDirectory("record-int")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("run.tscope").path
        let process = try launch(["--output", path, "--frame-rate", "20"], in: directory)
        #expect(waitForFrames(path, atLeast: 10))
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let reader = try CaptureStoreReader(path: path)
        #expect(reader.frameCount >= 10)
        #expect(reader.sessions.first?.stoppedAt != nil, "the session was closed properly")
        #expect(reader.sessions.first?.frames == reader.frameCount)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// kill -9 after 8 s: the file with its -wal holds all but the last second; the main file copied
    /// alone (as people copy files) is a capture holding everything older than the checkpoint interval.
    @Test func aFileLeftBySIGKILLOpensWithAllButTheLastSecond() throws {
        let directory = try Paths.temporaryDirectory("record-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("crash.tscope").path
        let started = Date().timeIntervalSince1970
        let process = try launch(["--output", path, "--frame-rate", "10"], in: directory)
        #expect(waitForFrames(path, atLeast: 5))
        Thread.sleep(forTimeInterval: max(0, started + 8 - Date().timeIntervalSince1970))
        let killedAt = Date().timeIntervalSince1970
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        // first the main file alone, before anything opens (and checkpoints) the original
        let alone = directory.appendingPathComponent("copied-alone.tscope").path
        try FileManager.default.copyItem(atPath: path, toPath: alone)

        let reader = try CaptureStoreReader(path: path)
        let session = try #require(reader.sessions.first)
        #expect(session.stoppedAt == nil, "the crashed session never stopped")
        let last = try #require(reader.timeRange?.upperBound)
        // committed twice a second: the newest stored frame is under 1 s old
        #expect(killedAt - last < 1.0, "lost \(killedAt - last) s")
        #expect(reader.frameCount >= 10)
        #expect(try readFrameCount(reader) == reader.frameCount)

        let copy = try CaptureStoreReader(path: alone)
        #expect(copy.metadata.device == "HackRF One (demo)" && copy.sessions.count == 1)
        let lastAlone = try #require(copy.timeRange?.upperBound, "the main file alone holds frames")
        // checkpointed at least every 5 s (+ a commit): nothing older than that is missing
        #expect(killedAt - lastAlone < 6.5, "the main file alone lacks the last \(killedAt - lastAlone) s")
        #expect(try readFrameCount(copy) == copy.frameCount)
    }

    /// A HackRF through the libusb stand-in with every 10th block corrupt: the bad blocks are
    /// printed and stored per session, and its serial number is in the metadata.
    @Test func badBlocksAndTheSerialAreStored() throws {
        let served = try ServedHackRF(options: .init(pacing: .realTime(extraRetuneSeconds: 0), corruptHeaderEvery: 10))
        let directory = try Paths.temporaryDirectory("record-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.tscope").path
        let result = try run(Paths.tscope, ["record", "--device", "hackrf", "--duration", "2", "--output", path,
                                            "--mode", "sweep"],
                             environment: try FakeUSB.environment(sockets: [served.socketPath]))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let printed = result.stderr.range(of: #"bad blocks (\d+)"#, options: .regularExpression)
            .flatMap { Int(result.stderr[$0].split(separator: " ").last ?? "") }
        let reader = try CaptureStoreReader(path: path)
        let session = try #require(reader.sessions.first)
        #expect(session.badBlocks > 0, "stderr: \(result.stderr)")
        #expect(printed == session.badBlocks, "stderr: \(result.stderr)")
        #expect(reader.metadata.serial == served.emulator.deviceInfo.serialNumber)
        #expect(reader.metadata.serial?.isEmpty == false)
    }

    @Test func severalSessionsAppendToANamedFile() throws {
        let directory = try Paths.temporaryDirectory("record-append")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bench.tscope").path
        for label in ["one", "two"] {
            let result = try run(Paths.tscope, ["record", "--device", "demo", "--duration", "1", "--label", label,
                                                "--output", path])
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
        let reader = try CaptureStoreReader(path: path)
        #expect(reader.sessions.map(\.label) == ["one", "two"])
        #expect(reader.sessions.map(\.frames).reduce(0, +) == reader.frameCount)
    }

    @Test func refusesToAppendToSomethingThatIsNotACapture() throws {
        let directory = try Paths.temporaryDirectory("record-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("notes.tscope").path
        try Data("just some text\n".utf8).write(to: URL(fileURLWithPath: path))
        let result = try run(Paths.tscope, ["record", "--device", "demo", "--duration", "1", "--output", path])
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("\(path): byte 0: not a tscope capture"), "\(result.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "just some text\n", "the file is untouched")

        let badDuration = try run(Paths.tscope, ["record", "--device", "demo", "--duration", "soon"])
        #expect(badDuration.status != 0 && badDuration.stderr.contains("The value 'soon' is invalid for '--duration <duration>': expected a time"))
    }

    @Test func rawIQIsWrittenAsSigMF() throws {
        let directory = try Paths.temporaryDirectory("record-raw")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(Paths.tscope, ["record", "--device", "demo", "--raw", "--duration", "1", "-f", "2400:2440",
                                            "--output", directory.path + "/"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let metaPath = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(metaPath.hasSuffix(".sigmf-meta"))
        let meta = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: metaPath)))
            as? [String: Any])
        let global = try #require(meta["global"] as? [String: Any])
        #expect(global["core:datatype"] as? String == "ci8")
        #expect(global["core:sample_rate"] as? Double == 20e6)
        #expect(global["core:version"] as? String == "1.0.0")
        let captures = try #require(meta["captures"] as? [[String: Any]])
        #expect((meta["annotations"] as? [Any])?.isEmpty == true)
        let dataPath = String(metaPath.dropLast("meta".count)) + "data"
        let dataSize = try #require(try FileManager.default.attributesOfItem(atPath: dataPath)[.size] as? Int)
        // whole blocks of 8187 I/Q pairs (16384 bytes less the 10-byte header)
        #expect(dataSize > 0 && dataSize % (8187 * 2) == 0)
        let starts = captures.compactMap { $0["core:sample_start"] as? Int }
        #expect(starts.count == captures.count && starts == starts.sorted() && starts.first == 0)
        #expect(starts.allSatisfy { $0 % 8187 == 0 && $0 < dataSize / 2 })
        // 2400:2440 MHz, interleaved steps at 2400, 2405, 2420, 2425 MHz, each tuned 7.5 MHz above
        let frequencies = Set(captures.compactMap { $0["core:frequency"] as? Double })
        #expect(frequencies == [2407.5e6, 2412.5e6, 2427.5e6, 2432.5e6])
    }

    @Test func rawRTLSDRIsWrittenAsCU8SigMFThatReadsBack() throws {
        let directory = try Paths.temporaryDirectory("record-raw-rtl")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(Paths.tscope, ["record", "--device", "demo-rtlsdr", "--raw", "--duration", "1",
                                            "-f", "95:97", "--gain", "30", "--ppm", "12", "--output", directory.path + "/"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let metaPath = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let meta = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: metaPath)))
            as? [String: Any])
        let global = try #require(meta["global"] as? [String: Any])
        #expect(global["core:datatype"] as? String == "cu8")
        #expect(global["core:sample_rate"] as? Double == 2.4e6)
        let captures = try #require(meta["captures"] as? [[String: Any]])
        #expect(captures.count == 1 && captures.first?["core:frequency"] as? Double == 96e6)
        // the settings given are the ones recorded (the gain snapped to the tuner's step)
        let description = global["core:description"] as? String ?? ""
        #expect(description.contains("gain 29.7 dB, 12 ppm"), "\(description)")
        let dataPath = String(metaPath.dropLast("meta".count)) + "data"
        let dataSize = try #require(try FileManager.default.attributesOfItem(atPath: dataPath)[.size] as? Int)
        #expect(dataSize > 100_000 && dataSize % 2 == 0, "\(dataSize) bytes")
        #expect(result.stderr.contains("dropped blocks 0"), "\(result.stderr)")
        // the recording reads back through the I/Q path into spectrum frames
        let check = try run(Paths.tscope, ["convert", metaPath, "/dev/null", "--format", "null"])
        #expect(check.status == 0, "\(check.stderr)")
    }

    func readFrameCount(_ reader: CaptureStoreReader) throws -> Int {
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var count = 0
        while try reader.next(into: &frame) { count += 1 }
        return count
    }
}
