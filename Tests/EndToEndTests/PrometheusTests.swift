#if SensorLink
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `meter --prometheus`: the readings at /metrics in Prometheus's text
/// format, and Debian's prometheus scraping them on loopback.
@Suite(.serialized) struct PrometheusTests {
    /// A meter running in the background until stopped, its stderr's first
    /// line read to learn the port it serves on.
    final class BackgroundMeter {
        let tscope: BackgroundTscope
        let port: Int
        var process: Process { tscope.process }
        var stdout: Pipe { tscope.stdout }

        init(_ arguments: [String]) throws {
            tscope = try BackgroundTscope(["meter"] + arguments + ["--prometheus", "127.0.0.1:0"], stderr: .firstLine)
            // "tscope: Prometheus metrics on http://127.0.0.1:PORT/metrics"
            guard let port = tscope.announcedPort(after: "Prometheus metrics on http://127.0.0.1:") else {
                tscope.stop()
                throw PrometheusTestError("meter did not announce its port: \(tscope.firstLine)")
            }
            self.port = port
        }

        func stop() { tscope.stop() }
    }

    struct PrometheusTestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// GET over loopback; the status and the body.
    static func get(_ url: String, timeout: Double = 5) -> (status: Int, body: String)? {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox()
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = timeout
        URLSession.shared.dataTask(with: request) { data, response, _ in
            result.value = ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data ?? Data(), as: UTF8.self))
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + timeout + 1) == .success else { return nil }
        return result.value
    }

    final class ResultBox: @unchecked Sendable {
        var value: (status: Int, body: String)?
    }

    /// The samples of `metric` in an exposition: labels text → value.
    static func samples(_ metric: String, in text: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix(metric + "{") {
            guard let close = line.lastIndex(of: "}"), let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)) else { continue }
            found[String(line[line.index(line.startIndex, offsetBy: metric.count + 1)..<close])] = value
        }
        return found
    }

    /// Two bands at once: a gauge per band with the band, device, serial and
    /// unit; its value the last reading printed; counters of sweeps and
    /// dropped blocks; other paths 404.
    @Test func metersTwoBandsAtMetrics() throws {
        let meter = try BackgroundMeter(["--device", "demo", "--band", "88:108", "--band", "430:440", "--json", "--count", "4"])
        defer { meter.stop() }
        // the gauges exist from the start; a reading has been taken once both bands counted sweeps
        var exposition = ""
        var sweeps: [String: Double] = [:]
        let deadline = Date().addingTimeInterval(20)
        while !(sweeps.count == 2 && sweeps.values.allSatisfy { $0 > 0 }) && Date() < deadline {
            usleep(200_000)
            exposition = Self.get("http://127.0.0.1:\(meter.port)/metrics")?.body ?? ""
            sweeps = Self.samples("tscope_meter_sweeps_total", in: exposition)
        }
        let gauges = Self.samples("tscope_band_power_db", in: exposition)
        #expect(Self.get("http://127.0.0.1:\(meter.port)/nothing")?.status == 404)
        #expect(exposition.contains("# TYPE tscope_band_power_db gauge"))
        #expect(exposition.contains("# TYPE tscope_meter_sweeps_total counter"))
        #expect(!Self.samples("tscope_dropped_blocks_total", in: exposition).isEmpty, "\(exposition)")
        let fm = try #require(gauges["band=\"88:108\",device=\"HackRF One\",serial=\"none\",unit=\"dB\""], "\(exposition)")
        let ism = try #require(gauges["band=\"430:440\",device=\"HackRF One\",serial=\"none\",unit=\"dB\""], "\(exposition)")
        #expect(sweeps.values.allSatisfy { $0 > 0 } && sweeps.count == 2, "\(sweeps)")
        meter.process.waitUntilExit()
        #expect(meter.process.terminationStatus == 0)
        // the JSON lines: two per interval, and the gauges held readings printed
        let lines = String(decoding: meter.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 8, "\(lines)")
        let printed = { (start: Int) in lines.filter { $0["start_hz"] as? Int == start }.compactMap { $0["power_db"] as? Double } }
        #expect(printed(88_000_000).contains { abs($0 - fm) < 0.006 }, "\(printed(88_000_000)) vs \(fm)")
        #expect(printed(430_000_000).contains { abs($0 - ism) < 0.006 }, "\(printed(430_000_000)) vs \(ism)")
    }

    /// A bad address is one line and exit 1.
    @Test func anAddressItCannotListenOnIsOneLine() throws {
        let result = try run(Paths.tscope, ["meter", "--device", "demo", "--band", "88:108", "--count", "1",
                                            "--prometheus", "127.0.0.1"])
        #expect(result.status == 1 && result.stderr.contains("expected HOST:PORT"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// Debian's prometheus, started here on loopback, scrapes the meter every
    /// second; its query API then has both bands' series.
    @Test func debiansPrometheusScrapesTheMeter() throws {
        let server = try #require(which("prometheus"), "Tools/install-deps --test installs prometheus")
        let meter = try BackgroundMeter(["--device", "demo", "--band", "88:108", "--band", "430:440"])
        defer { meter.stop() }
        let directory = try Paths.temporaryDirectory("prometheus")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("prometheus.yml")
        try """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: tscope
                static_configs:
                  - targets: ["127.0.0.1:\(meter.port)"]
            """.write(to: config, atomically: true, encoding: .utf8)
        let webPort = try freeLoopbackPort()
        let prometheus = Process()
        prometheus.executableURL = server
        prometheus.arguments = ["--config.file=\(config.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
                                "--web.listen-address=127.0.0.1:\(webPort)"]
        let log = directory.appendingPathComponent("prometheus.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        prometheus.standardOutput = logHandle
        prometheus.standardError = logHandle
        try prometheus.run()
        defer {
            prometheus.terminate()
            prometheus.waitUntilExit()
        }
        var series: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(45)
        while series.count < 2 && Date() < deadline {
            usleep(500_000)
            guard let answer = Self.get("http://127.0.0.1:\(webPort)/api/v1/query?query=tscope_band_power_db"),
                  answer.status == 200,
                  let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
                  let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]] else { continue }
            series = result
        }
        let bands = Set(series.compactMap { ($0["metric"] as? [String: String])?["band"] })
        let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(bands == ["88:108", "430:440"], "\(series) \(logText.suffix(2000))")
        let jobs = Set(series.compactMap { ($0["metric"] as? [String: String])?["job"] })
        #expect(jobs == ["tscope"])
    }
}

/// A loopback TCP port nobody listens on now (bound to port 0, then closed).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw PrometheusTests.PrometheusTestError("cannot bind a loopback port") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
#endif
