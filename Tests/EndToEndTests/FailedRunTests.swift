import Capture
import Foundation
import Testing

/// Real files from Tests/CaptureTests/Fixtures (provenance in its README).
enum RealFiles {
    static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/CaptureTests/Fixtures")
    static func path(_ relative: String) -> String { fixtures.appendingPathComponent(relative).path }
    /// raw cu8 from an RTL-SDR, named .bin as rtl_sdr and dump1090 name theirs (4096 pairs)
    static let rawCU8Bin = path("excerpts/rtlamr-sample-head.bin")
    /// real hackrf_sweep -B output, 10 records
    static let sweepBinary = path("excerpts/hackrf_sweep-html-sdr-tst-head10.bin")
    /// real hackrf_sweep CSV, the first 64 rows of one sweep
    static let sweepCSV = path("excerpts/hackrf_sweep-html-sdr-sweep-head64.csv")
    /// real HackRF cs8 capture, 2 MS/s at 2.475 GHz
    static let lightCS8 = path("iq-rc-car-2g4/light.complex16s")
}

/// Failed runs leave nothing new (issue 10 point 4), no data is an error
/// (point 5), and hints name the options that exist (point 8).
@Suite(.serialized) struct FailedRunTests {
    /// names in `directory`, hidden ones too (a temporary output would show)
    func listing(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// The real Osaka capture with line 101 damaged, in `directory`.
    func damagedCapture(in directory: URL) throws -> String {
        var lines = try String(contentsOfFile: osakaCapture, encoding: .utf8).components(separatedBy: "\n")
        lines[100] = "2018-11-18, 03:32:99, garbage"
        let path = directory.appendingPathComponent("damaged.csv").path
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aFailedConversionOrExportLeavesNothingNew() throws {
        let directory = try Paths.temporaryDirectory("failed-run")
        defer { try? FileManager.default.removeItem(at: directory) }
        let damaged = try damagedCapture(in: directory)
        let kept = directory.appendingPathComponent("kept.csv")
        try Data("an earlier table\n".utf8).write(to: kept)
        let before = try listing(directory)
        let env = ["TZ": "UTC"]
        for arguments in [
            ["convert", damaged, directory.appendingPathComponent("new.tscope").path, "--strict"],
            ["convert", damaged, directory.appendingPathComponent("new.bin").path, "--strict"],
            ["convert", damaged, kept.path, "--format", "hackrf_sweep", "--strict"],
            ["export", damaged, "--csv", directory.appendingPathComponent("t.csv").path, "--strict"],
            ["export", damaged, "--png", directory.appendingPathComponent("w.png").path, "--strict"],
            // nothing inside the crop: no picture
            ["export", osakaCapture, "--png", directory.appendingPathComponent("w.png").path, "--low", "1G", "--high", "2G"],
            // random-looking bytes named .bin: refused before any output exists
            ["convert", RealFiles.rawCU8Bin, directory.appendingPathComponent("x.tscope").path],
        ] {
            let result = try run(Paths.tscope, arguments, environment: env)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            let now = try listing(directory)
            #expect(now == before, "\(arguments) left \(now)")
        }
        #expect(try String(contentsOf: kept, encoding: .utf8) == "an earlier table\n")
    }

    @Test func aWideTableOfTwoBandsFailsWithoutLeavingHalfATable() throws {
        let directory = try Paths.temporaryDirectory("wide-fail")
        defer { try? FileManager.default.removeItem(at: directory) }
        // two real captures of different stations in one store: the wide layout has no one set of columns
        let store = directory.appendingPathComponent("two-stations.tscope").path
        let cocolo = Paths.packageRoot.appendingPathComponent("Tests/CaptureTests/Fixtures/rtl_power-fm-osaka/cocolo3.csv").path
        for input in [osakaCapture, cocolo] {
            #expect(try run(Paths.tscope, ["convert", input, store]).status == 0)
        }
        let before = try listing(directory)
        let table = directory.appendingPathComponent("t.csv").path
        let wide = try run(Paths.tscope, ["export", store, "--csv", table])
        #expect(wide.status == 1)
        #expect(wide.stderr.contains("t.csv: frame 300 has other bins than the first"), "\(wide.stderr)")
        #expect(wide.stderr.contains("use --layout long"))
        #expect(try listing(directory) == before)
        let long = try run(Paths.tscope, ["export", store, "--csv", table, "--layout", "long"])
        #expect(long.status == 0, "\(long.stderr)")
        #expect(long.stderr.contains("598 frames"))
    }

    @Test func anOutputThatCannotBeCreatedIsNamedAsGivenNotByItsTemporaryName() throws {
        let directory = try Paths.temporaryDirectory("no-dir")
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing").path
        for (command, target) in [
            (["convert", osakaCapture, missing + "/x.csv", "--format", "csv"], missing + "/x.csv: cannot create"),
            (["convert", osakaCapture, missing + "/x.tscope"], missing + "/x.tscope: cannot open"),
            (["export", osakaCapture, "--png", missing + "/x.png"], missing + "/x.png: cannot write the PNG"),
        ] {
            let result = try run(Paths.tscope, command)
            #expect(result.status == 1)
            #expect(result.stderr.contains(target), "\(result.stderr)")
            #expect(!result.stderr.contains(".partial"), "\(result.stderr)")
        }
    }

    @Test func aSweepOrRecordingThatCannotStartLeavesNoFile() throws {
        let directory = try Paths.temporaryDirectory("no-device")
        defer { try? FileManager.default.removeItem(at: directory) }
        let kept = directory.appendingPathComponent("kept.csv")
        try Data("an earlier sweep\n".utf8).write(to: kept)
        let before = try listing(directory)
        let noDevice = try FakeUSB.environment(sockets: [])
        for command in [
            ["sweep", "--device", "hackrf", "-1", "-r", directory.appendingPathComponent("h.csv").path],
            ["sweep", "--device", "hackrf", "-1", "-r", kept.path],
            ["sweep", "--device", "rtlsdr", "-f", "88M:90M:10k", "-1", directory.appendingPathComponent("r.csv").path],
            ["record", "--device", "hackrf", "--duration", "1", "--output", directory.path + "/"],
            ["record", "--device", "hackrf", "--raw", "--duration", "1", "--output", directory.path + "/"],
        ] {
            let result = try run(Paths.tscope, command, environment: noDevice)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("not found"), "\(result.stderr)")
            let now = try listing(directory)
            #expect(now == before, "\(command) left \(now)")
        }
        #expect(try String(contentsOf: kept, encoding: .utf8) == "an earlier sweep\n")
    }

    @Test func anInterruptedConversionLeavesNothing() throws {
        let directory = try Paths.temporaryDirectory("interrupted")
        defer { try? FileManager.default.removeItem(at: directory) }
        // the real HackRF capture repeated to 32 MB: a 16-bin FFT makes a million frames, seconds of work
        let real = try Data(contentsOf: URL(fileURLWithPath: RealFiles.lightCS8))
        let input = directory.appendingPathComponent("long.cs8")
        var long = Data(capacity: 32 << 20)
        while long.count < 32 << 20 { long.append(real) }
        try long.write(to: input)
        let before = try listing(directory)
        let process = Process()
        process.executableURL = Paths.tscope
        process.arguments = ["convert", input.path, directory.appendingPathComponent("long.tscope").path,
                             "--rate", "2M", "--fft-size", "16", "--averaging", "1"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // once the temporary output exists the conversion is under way
        let deadline = Date().addingTimeInterval(60)
        while try !listing(directory).contains(where: { $0.contains(".partial-") }) && Date() < deadline && process.isRunning {
            usleep(10_000)
        }
        #expect(process.isRunning, "the conversion ended before it could be interrupted")
        process.interrupt()
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 1)
        #expect(stderr.contains("interrupted"), "\(stderr)")
        #expect(try listing(directory) == before)
    }

    @Test func aSessionAppendedToAnExistingStoreIsRolledBackWhole() throws {
        let directory = try Paths.temporaryDirectory("failed-append")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("survey.tscope").path
        let first = try run(Paths.tscope, ["convert", osakaCapture, store])
        #expect(first.status == 0, "\(first.stderr)")
        let original = try Data(contentsOf: URL(fileURLWithPath: store))
        let before = try listing(directory)
        let damaged = try damagedCapture(in: directory)
        let failed = try run(Paths.tscope, ["convert", damaged, store, "--strict"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("damaged.csv:101:"), "\(failed.stderr)")
        #expect(try listing(directory) == (before + ["damaged.csv"]).sorted())
        // every page as it was; only SQLite's change counter (bytes 24–27, 92–95) may move
        let after = try Data(contentsOf: URL(fileURLWithPath: store))
        #expect(after.count == original.count)
        let counter: Set<Int> = [24, 25, 26, 27, 92, 93, 94, 95]
        let differing = zip(original.indices, zip(original, after)).filter { $0.1.0 != $0.1.1 }.map(\.0)
        #expect(differing.allSatisfy { counter.contains($0) }, "bytes \(differing.prefix(10)) changed")
        // the store still holds exactly its one session of 299 frames
        let table = directory.appendingPathComponent("t.csv").path
        let check = try run(Paths.tscope, ["convert", store, table, "--format", "csv"])
        #expect(check.stderr.contains("299 frames"), "\(check.stderr)")
        // into itself: refused before anything is written
        let itself = try run(Paths.tscope, ["convert", store, store])
        #expect(itself.status == 1)
        #expect(itself.stderr.contains("survey.tscope: is the input"), "\(itself.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == after)
        let good = try run(Paths.tscope, ["convert", osakaCapture, store])
        #expect(good.status == 0)
        let again = try run(Paths.tscope, ["convert", store, table, "--format", "csv"])
        #expect(again.stderr.contains("598 frames"), "\(again.stderr)")
    }

    @Test func emptyOrTooShortRawIQIsAnErrorNamingTheFileAndWhatIsMissing() throws {
        let directory = try Paths.temporaryDirectory("short-iq")
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.cu8").path
        let three = directory.appendingPathComponent("three.cu8").path
        let excerpt = directory.appendingPathComponent("rtlamr.cu8").path
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let real = try Data(contentsOf: URL(fileURLWithPath: RealFiles.rawCU8Bin))
        _ = FileManager.default.createFile(atPath: three, contents: real.prefix(3))
        _ = FileManager.default.createFile(atPath: excerpt, contents: real)
        let before = try listing(directory)
        for (input, fftSize, expected) in [
            (empty, "1024", "empty.cu8: empty: no I/Q samples, expected at least one FFT of 1024 samples"),
            (three, "1024", "three.cu8: 3 bytes: 1 whole cu8 sample, fewer than one FFT of 1024 samples"),
            // 8192 bytes = 4096 samples
            (excerpt, "8192", "rtlamr.cu8: 8192 bytes: 4096 whole cu8 samples, fewer than one FFT of 8192 samples"),
        ] {
            for output in ["o.tscope", "o.csv"] {
                let result = try run(Paths.tscope, ["convert", input, directory.appendingPathComponent(output).path,
                                                    "--format", output == "o.csv" ? "csv" : "tscope",
                                                    "--rate", "2.4M", "--fft-size", fftSize])
                #expect(result.status == 1, "\(input): \(result.stderr)")
                #expect(result.stderr.contains(expected), "\(result.stderr)")
                #expect(!result.stderr.contains("0 frames"))
            }
            let png = try run(Paths.tscope, ["export", input, "--png", directory.appendingPathComponent("w.png").path,
                                             "--rate", "2.4M", "--fft-size", fftSize])
            #expect(png.status == 1)
            #expect(png.stderr.contains(expected), "\(png.stderr)")
        }
        #expect(try listing(directory) == before)
        // one FFT fits: one frame
        let fits = try run(Paths.tscope, ["convert", excerpt, directory.appendingPathComponent("o.csv").path,
                                          "--format", "csv", "--rate", "2.4M", "--fft-size", "4096", "--averaging", "1"])
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(fits.stderr.contains("1 frames"))
    }

    @Test func aStoreWithoutFramesIsAnErrorNamingTheStore() throws {
        let directory = try Paths.temporaryDirectory("empty-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        // a session that recorded nothing (a device lost at once)
        let store = directory.appendingPathComponent("nothing.tscope").path
        try CaptureStoreWriter(path: store, metadata: CaptureMetadata(format: "tscope"),
                               session: CaptureSessionInfo(startedAt: 1_795_000_000)).finish()
        let before = try listing(directory)
        for (command, expected) in [
            (["convert", store, directory.appendingPathComponent("o.csv").path, "--format", "csv"],
             "nothing.tscope: no frames in it: nothing to convert"),
            (["export", store, "--csv", directory.appendingPathComponent("o.csv").path], "nothing.tscope: no frames in it"),
            (["export", store, "--png", directory.appendingPathComponent("o.png").path], "nothing.tscope: no frames to draw"),
        ] {
            let result = try run(Paths.tscope, command)
            #expect(result.status == 1)
            #expect(result.stderr.contains(expected), "\(result.stderr)")
        }
        #expect(try listing(directory) == before)
    }

    @Test func aBinThatIsRawIQIsSniffedAndTheHintNamesTheOptionsThatExist() throws {
        let directory = try Paths.temporaryDirectory("bin-sniff")
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("o.tscope").path
        for command in [["convert", RealFiles.rawCU8Bin, out],
                        ["export", RealFiles.rawCU8Bin, "--png", directory.appendingPathComponent("w.png").path]] {
            let result = try run(Paths.tscope, command)
            #expect(result.status == 1)
            #expect(result.stderr.contains("rtlamr-sample-head.bin: byte 0: not hackrf_sweep -B"), "\(result.stderr)")
            #expect(result.stderr.contains("--in-format cu8 --rate RATE --center FREQ"), "\(result.stderr)")
        }
        // told so explicitly, the -B reader gives the same hint
        let forced = try run(Paths.tscope, ["convert", RealFiles.rawCU8Bin, out, "--in-format", "hackrf_sweep_binary"])
        #expect(forced.status == 1)
        #expect(forced.stderr.contains("--in-format cu8 --rate"), "\(forced.stderr)")
        // following the hint works
        let raw = try run(Paths.tscope, ["convert", RealFiles.rawCU8Bin, out, "--in-format", "cu8", "--rate", "2.556M",
                                         "--center", "912M", "--fft-size", "256", "--averaging", "4"])
        #expect(raw.status == 0, "\(raw.stderr)")
        #expect(raw.stderr.contains("4 frames from cu8"), "\(raw.stderr)")
        // a real -B file is still detected from its first record
        let binary = try run(Paths.tscope, ["convert", RealFiles.sweepBinary, directory.appendingPathComponent("b.csv").path,
                                            "--format", "csv"])
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(binary.stderr.contains("from hackrf_sweep_binary"), "\(binary.stderr)")
        // an unknown file: the input option is --in-format (convert's --format is the output's)
        let unknown = directory.appendingPathComponent("capture.dat").path
        _ = FileManager.default.createFile(atPath: unknown, contents: Data("hello\n".utf8))
        for command in [["convert", unknown, out], ["export", unknown, "--csv", "-"], ["replay", unknown]] {
            let result = try run(Paths.tscope, command)
            #expect(result.status == 1)
            #expect(result.stderr.contains("give --in-format ("), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("give --format"))
        }
    }
}

/// A parent that starts tscope with every signal blocked (a Dispatch worker
/// thread does; the child inherits the mask) still stops it with SIGTERM.
@Suite struct InheritedSignalMaskTests {
    @Test func sigtermEndsAMeterStartedWithSignalsBlocked() throws {
        var all = sigset_t()
        sigfillset(&all)
        var previous = sigset_t()
        pthread_sigmask(SIG_SETMASK, &all, &previous)
        let process = Process()
        process.executableURL = Paths.tscope
        process.arguments = ["meter", "--device", "demo", "--band", "88:108"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let started: Void? = try? process.run()
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        try #require(started != nil)
        usleep(1_500_000)
        var blocked = ""
        if let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) {
            blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }.map(String.init) ?? ""
        }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let stillRunning = process.isRunning
        if stillRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(!stillRunning, "SIGTERM was not delivered (\(blocked))")
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
    }
}
