#if SensorLink
import Capture
import Foundation
import Testing

/// `tscope serve` and `--remote`, as a user types them: a sensor on
/// loopback, meters and a recorder connecting to it; and three hosts in
/// network namespaces (sensor, two viewers) joined by a bridge.
@Suite(.serialized) struct RemoteCommandTests {
    /// `tscope serve` in the background; its stderr's first line gives the address it listens on.
    final class BackgroundServe {
        let tscope: BackgroundTscope
        let port: Int

        /// - Parameter launcher: a command and arguments to run tscope under (`ip netns exec NS`)
        init(_ arguments: [String], launcher: [String] = [], environment: [String: String] = [:]) throws {
            tscope = try BackgroundTscope(["serve"] + arguments, launcher: launcher, stderr: .firstLine,
                                          environment: environment)
            // "tscope: serving HackRF One (demo) on 127.0.0.1:PORT; Ctrl-C stops"
            guard tscope.firstLine.hasPrefix("tscope: serving "), let port = try? Self.port(in: tscope.firstLine) else {
                tscope.stop()
                throw RemoteTestError("serve did not announce its address: \(tscope.firstLine)")
            }
            self.port = port
        }

        /// the PORT of "… on HOST:PORT; …" (HOST may be [v6])
        static func port(in line: String) throws -> Int {
            guard let on = line.range(of: " on "),
                  let address = line[on.upperBound...].split(separator: ";").first?.split(separator: " ").first,
                  let port = Int(address.split(separator: ":").last ?? "") else {
                throw RemoteTestError("no address in: \(line)")
            }
            return port
        }

        /// SIGTERM, and the exit status.
        @discardableResult
        func stop() -> Int32 { tscope.stop() }
    }

    struct RemoteTestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs tscope commands at once; their results in order.
    static func together(_ commands: [[String]], launchers: [[String]]? = nil) -> [ProcessResult] {
        let results = ResultsBox(count: commands.count)
        DispatchQueue.concurrentPerform(iterations: commands.count) { index in
            let launcher = launchers?[index] ?? []
            let result: ProcessResult
            do {
                result = launcher.isEmpty
                    ? try run(Paths.tscope, commands[index], timeoutSeconds: 60)
                    : try run(URL(fileURLWithPath: launcher[0]),
                              Array(launcher.dropFirst()) + [Paths.tscope.path] + commands[index], timeoutSeconds: 60)
            } catch {
                result = ProcessResult(status: -1, stdout: Data(), stderr: "\(error)")
            }
            results.set(index, result)
        }
        return results.all
    }

    final class ResultsBox: @unchecked Sendable {
        // written once per index from concurrentPerform's threads, behind the lock; read after it returns
        private let lock = NSLock()
        private var results: [ProcessResult?]
        init(count: Int) { results = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ result: ProcessResult) { lock.withLock { results[index] = result } }
        var all: [ProcessResult] { lock.withLock { results.map { $0 ?? ProcessResult(status: -1, stdout: Data(), stderr: "not run") } } }
    }

    /// The JSON readings a meter printed.
    static func readings(_ result: ProcessResult) -> [[String: Any]] {
        result.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The issue's commands: `tscope serve --device demo --listen 127.0.0.1:PORT`,
    /// then two `tscope meter --remote 127.0.0.1:PORT --band 88:108 --count 3 --json` at once.
    /// Their readings agree with a local meter on the same demo scene (each
    /// with the meter's own detector, average, though the sensor runs peak).
    @Test func twoMetersAtOnceReadTheSensor() throws {
        let serve = try BackgroundServe(["--device", "demo", "--listen", "127.0.0.1:0"])
        defer { serve.stop() }
        let meter = ["meter", "--remote", "127.0.0.1:\(serve.port)", "--band", "88:108", "--count", "3", "--json"]
        let results = Self.together([meter, meter, ["meter", "--device", "demo", "--band", "88:108",
                                                    "--count", "2", "--json"]])
        let local = Self.readings(results[2])
        let localPower = try #require(local.last?["power_db"] as? Double)
        for result in results.prefix(2) {
            #expect(result.status == 0, "\(result.stderr)")
            let readings = Self.readings(result)
            #expect(readings.count == 3)
            for reading in readings {
                #expect(reading["start_hz"] as? Double == 88e6 && reading["stop_hz"] as? Double == 108e6)
                #expect((reading["sweeps"] as? Int ?? 0) > 10)
                let power = try #require(reading["power_db"] as? Double)
                #expect(abs(power - localPower) < 1.0, "remote \(power) dB, local \(localPower) dB")
            }
        }
        // SIGTERM stops a sensor cleanly, like record
        #expect(serve.stop() == 0)
    }

    /// A remote meter reads what a local meter reads on the sensor's
    /// machine, whatever detector it asks for, though the sensor runs its own
    /// (peak): the demo HackRF keeps every detector and each viewer gets
    /// its own. Swept (400–500 MHz) and real-time (a 1 MHz band) alike,
    /// within 0.5 dB, with the same JSON keys — settings, mode, dwell_s,
    /// revisit_s, duty — and the same dwell for the detector (sample's is
    /// one FFT, the others' the whole block).
    @Test(arguments: ["average", "peak", "sample", "rms"])
    func aRemoteMeterReadsALocalMetersNumbersWithEachDetector(detector: String) throws {
        let serve = try BackgroundServe(["--device", "demo", "--listen", "127.0.0.1:0", "--detector", "peak"])
        defer { serve.stop() }
        for band in ["400:500", "433.5:434.5"] {
            let asked = ["--band", band, "--count", "2", "--json", "--detector", detector]
            let results = Self.together([["meter", "--device", "demo"] + asked,
                                         ["meter", "--remote", "127.0.0.1:\(serve.port)"] + asked])
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            let local = try #require(Self.readings(results[0]).last, "\(results[0].stderr)")
            let remote = try #require(Self.readings(results[1]).last, "\(results[1].stderr)")
            let localPower = try #require(local["power_db"] as? Double)
            let remotePower = try #require(remote["power_db"] as? Double)
            #expect(abs(remotePower - localPower) < 0.5, "\(detector) \(band): remote \(remotePower), local \(localPower) dB")
            // the same keys, apart from what only this machine counts
            let localKeys = Set(local.keys), remoteKeys = Set(remote.keys)
            #expect(localKeys == remoteKeys, "local only \(localKeys.subtracting(remoteKeys)), remote only \(remoteKeys.subtracting(localKeys))")
            for key in ["mode", "dwell_s", "revisit_s", "duty", "lna_gain_db", "vga_gain_db", "amp", "unit"] {
                #expect(remote[key] != nil, "\(key) missing: \(remote)")
                #expect("\(remote[key] ?? "")" == "\(local[key] ?? "")", "\(detector) \(band) \(key): remote \(remote[key] ?? ""), local \(local[key] ?? "")")
            }
        }
        #expect(serve.stop() == 0)
    }

    /// A sensor whose analyzer cannot keep every detector (an RTL-SDR
    /// hopping a band wider than one tuning) cannot make a viewer's
    /// detector: the viewer is told so in words, and its readings are the
    /// sensor's own detector's, as a local meter with that detector reads.
    @Test func aDetectorTheSensorCannotMakeIsToldInWords() throws {
        let serve = try BackgroundServe(["--device", "demo-rtlsdr", "--listen", "127.0.0.1:0", "--detector", "peak"])
        defer { serve.stop() }
        let band = ["--band", "96:104", "--count", "1", "--json"]
        let results = Self.together([["meter", "--remote", "127.0.0.1:\(serve.port)", "--detector", "sample"] + band,
                                     ["meter", "--device", "demo-rtlsdr", "--detector", "peak"] + band])
        #expect(results[0].status == 0 && results[1].status == 0, "\(results[0].stderr) \(results[1].stderr)")
        #expect(results[0].stderr.contains("detector sample not served: this sensor's analyzer makes peak levels only"),
                "\(results[0].stderr)")
        let remote = try #require(Self.readings(results[0]).last?["power_db"] as? Double)
        let local = try #require(Self.readings(results[1]).last?["power_db"] as? Double)
        #expect(abs(remote - local) < 0.5, "remote \(remote), local peak \(local) dB")
    }

    /// A viewer that holds control changes the sensor's analyzer settings
    /// (`meter --remote … --lna-gain 32` reads 16 dB more than at the default
    /// LNA 16, and names the settings); a viewer while another holds control
    /// is told in words and changes nothing; a bad value is refused before
    /// anything is sent.
    @Test func aViewerHoldingControlChangesTheSensorsSettings() throws {
        let generator = ["--demo-generator", "444:-35"]
        let serve = try BackgroundServe(["--device", "demo", "--listen", "127.0.0.1:0", "--band", "430:450"] + generator)
        defer { serve.stop() }
        let remote = ["meter", "--remote", "127.0.0.1:\(serve.port)", "--band", "443.8:444.2", "--json"]
        let plain = try run(Paths.tscope, remote + ["--count", "1"], timeoutSeconds: 60)
        let raised = try run(Paths.tscope, remote + ["--count", "1", "--lna-gain", "32"], timeoutSeconds: 60)
        #expect(plain.status == 0 && raised.status == 0, "\(plain.stderr) \(raised.stderr)")
        let before = try #require(Self.readings(plain).last)
        let after = try #require(Self.readings(raised).last)
        let gained = (after["power_db"] as? Double ?? 0) - (before["power_db"] as? Double ?? 0)
        #expect(abs(gained - 16) < 0.5, "LNA 16 → 32 dB on the sensor moved the reading \(gained) dB")
        // the sensor's settings under a local meter's keys
        #expect(before["lna_gain_db"] as? Int == 16 && before["vga_gain_db"] as? Int == 20
                    && before["amp"] as? String == "off", "\(before)")
        #expect(after["lna_gain_db"] as? Int == 32 && after["vga_gain_db"] as? Int == 20, "\(after)")
        #expect(raised.stderr.contains("settings: LNA 32 dB, VGA 20 dB, amp off"), "\(raised.stderr)")

        // while one viewer holds control, another's settings are refused in words
        let holder = try BackgroundTscope(remote + ["--count", "40", "--interval", "0.25"], stderr: .discard)
        defer { holder.stop() }
        usleep(1_500_000)
        let refused = try run(Paths.tscope, remote + ["--count", "2", "--interval", "0.5", "--amp", "on"],
                              timeoutSeconds: 60)
        #expect(refused.status == 0, "\(refused.stderr)")
        #expect(refused.stderr.contains("settings not changed: 127.0.0.1:"), "\(refused.stderr)")
        #expect(refused.stderr.contains("holds control"), "\(refused.stderr)")
        #expect(Self.readings(refused).last?["lna_gain_db"] as? Int == 32 && Self.readings(refused).last?["amp"] as? String == "off")

        let bad = try run(Paths.tscope, remote + ["--count", "1", "--vga-gain", "63"], timeoutSeconds: 30)
        #expect(bad.status == 64 && bad.stderr.contains("--vga-gain 63: the HackRF's VGA takes"), "\(bad.stderr)")
        let foreign = try run(Paths.tscope, remote + ["--count", "1", "--rbw", "30"], timeoutSeconds: 30)
        #expect(foreign.status == 64 && foreign.stderr.contains("--rbw is a tinySA setting"), "\(foreign.stderr)")
    }

    /// `record --remote` stores the sensor's frames like a local analyzer's,
    /// naming the sensor in the metadata.
    @Test func recordFromASensor() throws {
        let serve = try BackgroundServe(["--device", "demo", "--listen", "127.0.0.1:0", "--band", "90:100"])
        defer { serve.stop() }
        let directory = try Paths.temporaryDirectory("remote-record")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("remote.tscope").path
        let result = try run(Paths.tscope, ["record", "--remote", "127.0.0.1:\(serve.port)", "--band", "90:100",
                                            "--duration", "2", "--label", "remote", "--output", path])
        #expect(result.status == 0, "\(result.stderr)")
        let reader = try CaptureStoreReader(path: path)
        #expect(reader.frameCount >= 10, "\(reader.frameCount) frames")
        #expect(reader.metadata.device == "REMOTE 127.0.0.1:\(serve.port) HackRF One (demo)")
        #expect(reader.metadata.span?.lowerHz == 90e6 && reader.metadata.span?.upperHz == 100e6)
    }

    /// With --token-file the sensor refuses viewers without the token, in words, exit 1.
    @Test func aSensorWithATokenRefusesViewersWithout() throws {
        let directory = try Paths.temporaryDirectory("remote-token")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("token").path
        try "9f2c-sensor-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let wrongFile = directory.appendingPathComponent("wrong").path
        try "not-the-token\n".write(toFile: wrongFile, atomically: true, encoding: .utf8)
        let serve = try BackgroundServe(["--device", "demo", "--listen", "127.0.0.1:0", "--token-file", tokenFile])
        defer { serve.stop() }
        let meter = ["meter", "--remote", "127.0.0.1:\(serve.port)", "--band", "88:108", "--count", "1", "--json"]
        let results = Self.together([meter, meter + ["--token-file", wrongFile], meter + ["--token-file", tokenFile]])
        for refused in results.prefix(2) {
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("the sensor at 127.0.0.1:\(serve.port) refused this viewer"), "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
        }
        #expect(results[2].status == 0, "\(results[2].stderr)")
        #expect(Self.readings(results[2]).count == 1)
    }

    /// Watching and controlling are separate rights: with --control-token-file a viewer with the watch token
    /// follows the sensor's band and is told, in words, that its token only watches; one with the control token
    /// retunes it; no token, or one that is neither, is refused.
    @Test func aWatchOnlyViewerCannotRetune() throws {
        let directory = try Paths.temporaryDirectory("remote-control-token")
        defer { try? FileManager.default.removeItem(at: directory) }
        let watchFile = directory.appendingPathComponent("watch").path
        let controlFile = directory.appendingPathComponent("control").path
        let wrongFile = directory.appendingPathComponent("wrong").path
        try "watch-4b1e\n".write(toFile: watchFile, atomically: true, encoding: .utf8)
        try "control-77ad\n".write(toFile: controlFile, atomically: true, encoding: .utf8)
        try "neither\n".write(toFile: wrongFile, atomically: true, encoding: .utf8)
        let serve = try BackgroundServe(["--device", "demo", "--listen", "127.0.0.1:0", "--band", "88:108",
                                         "--token-file", watchFile, "--control-token-file", controlFile])
        defer { serve.stop() }
        #expect(serve.tscope.firstLine.contains("(control token required to retune)"), "\(serve.tscope.firstLine)")
        // a band away from the sensor's: only a retune could give it frames
        let meter = ["meter", "--remote", "127.0.0.1:\(serve.port)", "--band", "400:404", "--count", "2", "--interval", "0.5",
                     "--json"]
        let watcher = try BackgroundTscope(meter + ["--token-file", watchFile], stderr: .keep)
        sleep(4)
        watcher.stop()
        let (_, watcherErrors) = watcher.waitForExit()
        let watcherOutput = String(decoding: watcher.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(watcherErrors.contains("watch only: this viewer's token lets it watch, not retune"), "\(watcherErrors)")
        #expect(watcherOutput.isEmpty, "no retune, so no frames of 400–404 MHz: \(watcherOutput)")
        // the sensor still sweeps its own band: a watcher of it reads
        let follower = try run(Paths.tscope, ["meter", "--remote", "127.0.0.1:\(serve.port)", "--band", "88:108", "--count", "1",
                                              "--json", "--token-file", watchFile], timeoutSeconds: 60)
        #expect(follower.status == 0 && Self.readings(follower).count == 1, "\(follower.stderr)")
        let controller = try run(Paths.tscope, meter + ["--token-file", controlFile], timeoutSeconds: 60)
        #expect(controller.status == 0 && !controller.stderr.contains("watch only"), "\(controller.stderr)")
        #expect(Self.readings(controller).last?["start_hz"] as? Double == 400e6, "\(controller.stdoutText)")
        for refused in [try run(Paths.tscope, meter, timeoutSeconds: 30),
                        try run(Paths.tscope, meter + ["--token-file", wrongFile], timeoutSeconds: 30)] {
            #expect(refused.status == 1 && refused.stderr.contains("refused this viewer"), "\(refused.stderr)")
        }
    }

    /// `serve --tls-cert --tls-key` with a token: a viewer trusting the
    /// certificate (`--tls-ca`) reads; one speaking plaintext is told why.
    @Test func aSensorOverTLS() throws {
        let directory = try Paths.temporaryDirectory("remote-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try makeSelfSignedCertificate(in: directory, name: "sensor",
                                                               subjectAltName: "IP:127.0.0.1,DNS:localhost")
        let tokenFile = directory.appendingPathComponent("token").path
        try "tls-sensor-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)

        let serve = try BackgroundServe(["--device", "demo", "--listen", "127.0.0.1:0", "--tls-cert", certificate,
                                         "--tls-key", key, "--token-file", tokenFile])
        defer { serve.stop() }
        #expect(serve.tscope.firstLine.hasSuffix("over TLS (token required); Ctrl-C stops"), "\(serve.tscope.firstLine)")
        let meter = ["meter", "--remote", "127.0.0.1:\(serve.port)", "--token-file", tokenFile, "--band", "88:108",
                     "--count", "2", "--json"]
        let results = Self.together([meter + ["--tls-ca", certificate], meter])
        #expect(results[0].status == 0, "\(results[0].stderr)")
        #expect(Self.readings(results[0]).count == 2)
        #expect(results[1].status == 1)
        #expect(results[1].stderr.hasPrefix("Error: cannot reach the sensor at 127.0.0.1:\(serve.port)"), "\(results[1].stderr)")
        #expect(results[1].stderr.contains("a sensor serving TLS? (give --tls-ca FILE or --tls)"), "\(results[1].stderr)")
        #expect(results[1].stderr.split(separator: "\n").count == 1)

        let halfPair = try run(Paths.tscope, ["serve", "--device", "demo", "--listen", "127.0.0.1:0", "--tls-cert", certificate])
        #expect(halfPair.status == 64 && halfPair.stderr.contains("--tls-cert and --tls-key go together"), "\(halfPair.stderr)")
        let swapped = try run(Paths.tscope, ["serve", "--device", "demo", "--listen", "127.0.0.1:0", "--tls-cert", key,
                                             "--tls-key", certificate])
        #expect(swapped.status == 1)
        #expect(swapped.stderr == "Error: TLS file \(key) is not a PEM certificate (no -----BEGIN …CERTIFICATE----- line)\n",
                "\(swapped.stderr)")
        let local = try run(Paths.tscope, ["meter", "--device", "demo", "--tls-ca", certificate, "--count", "1"])
        #expect(local.status == 64 && local.stderr.contains("--tls and --tls-ca are for a --remote sensor"), "\(local.stderr)")
    }

    @Test func badRemoteOptionsAreOneLineErrors() throws {
        let noSensor = try run(Paths.tscope, ["meter", "--remote", "127.0.0.1:1", "--band", "88:108", "--count", "1"])
        #expect(noSensor.status == 1)
        #expect(noSensor.stderr.hasPrefix("Error: cannot reach the sensor at 127.0.0.1:1"), "\(noSensor.stderr)")
        #expect(noSensor.stderr.split(separator: "\n").count == 1)
        let badAddress = try run(Paths.tscope, ["meter", "--remote", "sensor-without-port", "--band", "88:108", "--count", "1"])
        #expect(badAddress.status == 64)
        #expect(badAddress.stderr.contains("expected HOST:PORT"))
        let sweep = try run(Paths.tscope, ["sweep", "--remote", "127.0.0.1:7373", "-N", "1"])
        #expect(sweep.status != 0)
        #expect(sweep.stderr.contains("--remote 127.0.0.1:7373 works with `tscope watch`, `meter` and `record`"),
                "\(sweep.stderr)")
    }
}
#endif
