#if SensorLink
import Capture
import Signals
import Foundation
import Testing

/// Three hosts on one machine: a sensor and two viewers, each in its own
/// network namespace (`ip netns`), the sensor joined to each viewer by a
/// veth pair on a subnet of its own. Made and removed by the test; needs
/// root (CI runs as root).
@Suite(.serialized, .enabled(if: getuid() == 0 && which("ip") != nil, "network namespaces need root and iproute2"))
struct MultiHostTests {
    /// The namespaces and links, removed (with their veths) by `remove`.
    final class Hosts {
        let tag = "\(getpid() % 100_000)"
        var sensor: String { "tss\(tag)" }
        var viewerA: String { "tsa\(tag)" }
        var viewerB: String { "tsb\(tag)" }
        /// the sensor's address as each viewer sees it
        let sensorForA = "10.77.1.1"
        let sensorForB = "10.77.2.1"

        init() throws {
            remove()
            for name in [sensor, viewerA, viewerB] {
                try Self.ip(["netns", "add", name])
                try Self.ip(["-n", name, "link", "set", "lo", "up"])
            }
            try link(viewer: viewerA, subnet: 1)
            try link(viewer: viewerB, subnet: 2)
        }

        private func link(viewer: String, subnet: Int) throws {
            let sensorEnd = "vs\(subnet)_\(tag)"
            let viewerEnd = "vv\(subnet)_\(tag)"
            try Self.ip(["link", "add", sensorEnd, "type", "veth", "peer", "name", viewerEnd])
            try Self.ip(["link", "set", sensorEnd, "netns", sensor])
            try Self.ip(["link", "set", viewerEnd, "netns", viewer])
            try Self.ip(["-n", sensor, "addr", "add", "10.77.\(subnet).1/24", "dev", sensorEnd])
            try Self.ip(["-n", viewer, "addr", "add", "10.77.\(subnet).2/24", "dev", viewerEnd])
            try Self.ip(["-n", sensor, "link", "set", sensorEnd, "up"])
            try Self.ip(["-n", viewer, "link", "set", viewerEnd, "up"])
        }

        /// Takes viewer B's link down or up (its end of the veth).
        func setViewerBLink(up: Bool) throws {
            try Self.ip(["-n", viewerB, "link", "set", "vv2_\(tag)", up ? "up" : "down"])
        }

        func remove() {
            for name in [sensor, viewerA, viewerB] { _ = try? run(URL(fileURLWithPath: Self.ipPath), ["netns", "del", name]) }
        }

        func exec(_ namespace: String) -> [String] { [Self.ipPath, "netns", "exec", namespace] }

        static var ipPath: String { which("ip")?.path ?? "/usr/sbin/ip" }

        static func ip(_ arguments: [String]) throws {
            let result = try run(URL(fileURLWithPath: ipPath), arguments, timeoutSeconds: 10)
            guard result.status == 0 else {
                throw RemoteCommandTests.RemoteTestError("ip \(arguments.joined(separator: " ")): \(result.stderr)")
            }
        }
    }

    /// The sensor serves from its namespace; a meter in each viewer's
    /// namespace reads it at once over its own link.
    @Test func aSensorServesViewersOnTwoOtherHosts() throws {
        let hosts = try Hosts()
        defer { hosts.remove() }
        let serve = try RemoteCommandTests.BackgroundServe(["--device", "demo", "--listen", "0.0.0.0:0", "--insecure"],
                                                           launcher: hosts.exec(hosts.sensor))
        defer { serve.stop() }
        #expect(serve.tscope.firstLine.contains("(--insecure: no token, no TLS: anyone who reaches it can watch and retune)"),
                "\(serve.tscope.firstLine)")
        let meter = { (address: String) in
            ["meter", "--remote", "\(address):\(serve.port)", "--band", "88:108", "--count", "3", "--json"]
        }
        let results = RemoteCommandTests.together(
            [meter(hosts.sensorForA), meter(hosts.sensorForB), meter("127.0.0.1")],
            launchers: [hosts.exec(hosts.viewerA), hosts.exec(hosts.viewerB), hosts.exec(hosts.viewerA)])
        for result in results.prefix(2) {
            #expect(result.status == 0, "\(result.stderr)")
            let readings = RemoteCommandTests.readings(result)
            #expect(readings.count == 3)
            #expect(readings.allSatisfy { ($0["power_db"] as? Double)?.isFinite == true })
        }
        // the sensor is not on the viewer's own loopback: the hosts are apart
        #expect(results[2].status == 1)
        #expect(results[2].stderr.contains("cannot reach the sensor at 127.0.0.1:\(serve.port)"))
    }

    /// TLS between hosts: the sensor's certificate names its address on
    /// viewer A's link only, so viewer A (trusting it) reads and viewer B,
    /// dialling the other address, is refused by the hostname check.
    @Test func tlsChecksTheAddressTheViewerDialled() throws {
        let hosts = try Hosts()
        defer { hosts.remove() }
        let directory = try Paths.temporaryDirectory("multihost-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try makeSelfSignedCertificate(in: directory, name: "mast",
                                                               subjectAltName: "IP:\(hosts.sensorForA)")
        let serve = try RemoteCommandTests.BackgroundServe(
            ["--device", "demo", "--listen", "0.0.0.0:0", "--tls-cert", certificate, "--tls-key", key],
            launcher: hosts.exec(hosts.sensor))
        defer { serve.stop() }
        let meter = { (address: String) in
            ["meter", "--remote", "\(address):\(serve.port)", "--tls-ca", certificate, "--band", "88:108", "--count", "2",
             "--json"]
        }
        let results = RemoteCommandTests.together([meter(hosts.sensorForA), meter(hosts.sensorForB)],
                                                  launchers: [hosts.exec(hosts.viewerA), hosts.exec(hosts.viewerB)])
        #expect(results[0].status == 0, "\(results[0].stderr)")
        #expect(RemoteCommandTests.readings(results[0]).count == 2)
        #expect(results[1].status == 1)
        #expect(results[1].stderr == "Error: cannot reach the sensor at \(hosts.sensorForB):\(serve.port): "
                + "TLS: its certificate does not name \(hosts.sensorForB)\n", "\(results[1].stderr)")
    }

    /// Safe by default: a sensor on every address with neither a token nor TLS makes a token, keeps it in a
    /// file only its user reads, and says where; a viewer on another host without it is refused in words, one
    /// with a copy of the file reads. A second start reuses the same token.
    @Test func aSensorOffLoopbackMakesATokenAndRefusesViewersWithoutIt() throws {
        let hosts = try Hosts()
        defer { hosts.remove() }
        let directory = try Paths.temporaryDirectory("multihost-token")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["XDG_CONFIG_HOME": directory.path]
        let tokenPath = directory.appendingPathComponent("tscope/serve.token").path
        func start() throws -> RemoteCommandTests.BackgroundServe {
            try RemoteCommandTests.BackgroundServe(["--device", "demo", "--listen", "0.0.0.0:0"],
                                                   launcher: hosts.exec(hosts.sensor), environment: environment)
        }
        var serve = try start()
        #expect(serve.tscope.firstLine.contains("(token required: viewers give --token-file with a copy of \(tokenPath))"),
                "\(serve.tscope.firstLine)")
        let mode = try FileManager.default.attributesOfItem(atPath: tokenPath)[.posixPermissions] as? Int
        #expect(mode == 0o600, "mode \(String(mode ?? 0, radix: 8))")
        let token = try String(contentsOfFile: tokenPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        let copy = directory.appendingPathComponent("viewer-copy.token").path
        try (token + "\n").write(toFile: copy, atomically: true, encoding: .utf8)
        let meter = { (extra: [String]) in
            ["meter", "--remote", "\(hosts.sensorForA):\(serve.port)", "--band", "88:108", "--count", "2", "--json"] + extra
        }
        let results = RemoteCommandTests.together([meter([]), meter(["--token-file", copy])],
                                                  launchers: [hosts.exec(hosts.viewerA), hosts.exec(hosts.viewerA)])
        #expect(results[0].status != 0 && results[0].stderr.contains("token"), "\(results[0].stderr)")
        #expect(results[0].stderr.split(separator: "\n").count == 1, "\(results[0].stderr)")
        #expect(results[1].status == 0 && RemoteCommandTests.readings(results[1]).count == 2, "\(results[1].stderr)")
        serve.stop()
        // restarted: the same token, so the viewers' copies keep working
        serve = try start()
        defer { serve.stop() }
        let again = try String(contentsOfFile: tokenPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(again == token)
    }

    /// A viewer's link goes down for 6 s during a recording: the recording
    /// goes on after the link is back, with the outage stored as a gap.
    @Test func aLostLinkIsAGapInTheRecording() throws {
        let hosts = try Hosts()
        defer { hosts.remove() }
        let serve = try RemoteCommandTests.BackgroundServe(["--device", "demo", "--listen", "0.0.0.0:0", "--insecure"],
                                                           launcher: hosts.exec(hosts.sensor))
        defer { serve.stop() }
        let directory = try Paths.temporaryDirectory("multihost")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("b.tscope").path
        let recording = Process()
        recording.executableURL = URL(fileURLWithPath: Hosts.ipPath)
        recording.arguments = ["netns", "exec", hosts.viewerB, Paths.tscope.path, "record",
                               "--remote", "\(hosts.sensorForB):\(serve.port)", "--band", "88:108",
                               "--duration", "16", "--reconnect-timeout", "30", "--output", path]
        let stderr = Pipe()
        recording.standardError = stderr
        recording.standardOutput = FileHandle.nullDevice
        try recording.run()
        Thread.sleep(forTimeInterval: 4)
        try hosts.setViewerBLink(up: false)
        Thread.sleep(forTimeInterval: 6)
        try hosts.setViewerBLink(up: true)
        recording.waitUntilExit()
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(recording.terminationStatus == 0, "\(errors)")
        let reader = try CaptureStoreReader(path: path)
        let gap = try #require(reader.gaps.first, "no gap stored; \(errors)")
        #expect(reader.gaps.count == 1)
        let seconds = gap.toTimestamp - gap.fromTimestamp
        #expect(seconds >= 5 && seconds <= 14, "gap of \(seconds) s")
        #expect(gap.reason.contains("\(hosts.sensorForB):\(serve.port)") || gap.reason.contains("no data"),
                "\(gap.reason)")
        // frames before and after the outage
        var times: [Double] = []
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        while try reader.next(into: &frame) { times.append(frame.timestamp) }
        #expect(times.contains { $0 < gap.fromTimestamp + 0.001 } && times.contains { $0 > gap.toTimestamp - 0.001 })
    }
}
#endif
