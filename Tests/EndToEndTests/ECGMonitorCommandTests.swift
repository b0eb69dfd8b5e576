import Foundation
import Testing

/// `tscope ecg monitor`: headless JSON Lines from files, the generator, stdin and TCP.
@Suite struct ECGMonitorCommandTests {
    static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/ECGTests/Fixtures")
    static let mitdb100 = fixtures.appendingPathComponent("mitdb-100/100").path
    static let e0103 = fixtures.appendingPathComponent("edb-e0103-csv/e0103.csv").path

    /// The JSON lines of a run but its closing summary (checked apart).
    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not JSON: \($0)")
        }.filter { $0["summary"] == nil }
    }

    /// e0103 (one mV column, 250 Hz) as JSON Lines packets of 73 samples, as a BLE bridge sends them.
    static func e0103AsJSONLines() throws -> String {
        let values = try String(contentsOfFile: e0103, encoding: .utf8).split(separator: "\n")
        return stride(from: 0, to: values.count, by: 73).map { start in
            let packet = values[start..<min(values.count, start + 73)].joined(separator: ",")
            return "{\"time\":\(String(format: "%.3f", Double(start) / 250)),\"amplitude\":[\(packet)]}"
        }.joined(separator: "\n") + "\n"
    }

    @Test func record100GivesOneLinePerSecondWithTheHeartRate() throws {
        let result = try run(Paths.tscope, ["ecg", "monitor", Self.mitdb100, "--json", "--speed", "max", "--to", "60"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try Self.objects(result.stdoutText)
        #expect(lines.count == 60)
        #expect(lines.map { $0["time"] as? Int } == (1...60).map { $0 })
        for line in lines.dropFirst(3) {
            let rate = try #require(line["heart_rate"] as? Double, "\(line)")
            #expect((60...95).contains(rate), "\(line)")
            #expect(line["rhythm"] as? String == "normal" && line["status"] as? String == "ok", "\(line)")
        }
        #expect(lines[0]["status"] as? String == "waiting" && lines[0]["heart_rate"] is NSNull)
        // the run ends with its summary: 60 s, no AF, the beats per class
        let last = try #require(result.stdoutText.split(separator: "\n").last)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(summary["summary"] as? Bool == true && summary["af_burden"] as? Double == 0, "\(summary)")
        let beats = try #require(summary["beats"] as? [String: Int])
        #expect((70...80).contains(beats.values.reduce(0, +)), "\(beats)")
    }

    @Test func rhythmEventsGetTheirOwnLine() throws {
        // the demo script's bradycardia (40 beats/min from 20 s)
        let result = try run(Paths.tscope, ["ecg", "monitor", "synthetic", "--leads", "1", "--json", "--speed", "max", "--to", "40"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try Self.objects(result.stdoutText)
        let events = lines.filter { $0["event"] != nil }
        #expect(events.count == 1 && events.first?["event"] as? String == "bradycardia", "\(events)")
        // one line per episode, when it ends: its start, end and duration
        let time = try #require(events.first?["start"] as? Double)
        #expect((20...32).contains(time))
        let end = try #require(events.first?["end"] as? Double), duration = try #require(events.first?["duration_s"] as? Double)
        #expect(end > time + 10 && abs(end - time - duration) < 0.01, "\(events)")
        #expect(lines.filter { $0["event"] == nil }.count == 40)
        #expect(lines.contains { $0["rhythm"] as? String == "bradycardia" })
    }

    /// `--follow` on an EDF file a recorder is still writing (record count −1):
    /// each second's line comes as its data record lands, nothing is read twice.
    @Test func followMonitorsAnEDFAsItsRecordsLand() throws {
        let directory = try Paths.temporaryDirectory("ecg-monitor-follow")
        defer { try? FileManager.default.removeItem(at: directory) }
        let full = directory.appendingPathComponent("full.edf").path
        #expect(try run(Paths.tscope, ["ecg", "convert", Self.mitdb100, full]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        let field = { (offset: Int) in Int(String(decoding: bytes[offset..<offset + 8], as: UTF8.self).trimmingCharacters(in: .whitespaces))! }
        let header = field(184), recordBytes = (bytes.count - header) / field(236)
        #expect(field(244) == 1, "one-second data records")
        var start = bytes.prefix(header + 5 * recordBytes)
        start.replaceSubrange(236..<244, with: Array("-1      ".utf8))
        let growing = directory.appendingPathComponent("growing.edf")
        try start.write(to: growing)

        let monitor = Process()
        monitor.executableURL = Paths.tscope
        monitor.arguments = ["ecg", "monitor", growing.path, "--follow", "--json", "--to", "30"]
        let output = Pipe()
        monitor.standardOutput = output
        monitor.standardError = FileHandle.nullDevice
        try monitor.run()
        let appender = try FileHandle(forWritingTo: growing)
        for record in 5..<40 {
            usleep(50_000)
            try appender.seekToEnd()
            try appender.write(contentsOf: bytes[(header + record * recordBytes)..<(header + (record + 1) * recordBytes)])
        }
        try appender.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        monitor.waitUntilExit()
        #expect(monitor.terminationStatus == 0)
        let lines = try Self.objects(text)
        #expect(lines.map { $0["time"] as? Int } == (1...30).map { $0 }, "\(text)")
        for line in lines.dropFirst(3) {
            let rate = try #require(line["heart_rate"] as? Double, "\(line)")
            #expect((60...95).contains(rate), "\(line)")
        }
    }

    /// JSON Lines on stdin give what the file gives.
    @Test func jsonLinesOnStdinMonitorAsTheFile() throws {
        let fromFile = try run(Paths.tscope, ["ecg", "monitor", Self.e0103, "--rate", "250", "--json", "--speed", "max"])
        #expect(fromFile.status == 0)
        #expect(try Self.objects(fromFile.stdoutText).count == 120)
        let fromStdin = try runWithInput(Paths.tscope, ["ecg", "monitor", "--stdin", "--rate", "250", "--json"],
                                         input: Data(try Self.e0103AsJSONLines().utf8))
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        #expect(fromStdin.stdoutText == fromFile.stdoutText)
        let noRate = try run(Paths.tscope, ["ecg", "monitor", "--listen", "127.0.0.1:0"])
        #expect(noRate.status != 0 && noRate.stderr.contains("--rate"))
    }

    /// A bridge connects over TCP: the same lines as the file.
    @Test func listenTakesOneTCPClient() throws {
        let fromFile = try run(Paths.tscope, ["ecg", "monitor", Self.e0103, "--rate", "250", "--json", "--speed", "max"])
        let process = Process()
        process.executableURL = Paths.tscope
        process.arguments = ["ecg", "monitor", "--listen", "127.0.0.1:0", "--rate", "250", "--json"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // "listening on 127.0.0.1:PORT"
        var announced = ""
        while !announced.contains("\n") {
            let byte = err.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            announced += String(decoding: byte, as: UTF8.self)
        }
        let port = try #require(UInt16(announced.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""),
                                "\(announced)")
        #expect(announced.hasPrefix("tscope: listening on 127.0.0.1:"))
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let payload = Array(try Self.e0103AsJSONLines().utf8)
        var sent = 0
        while sent < payload.count {
            let written = payload[sent...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            guard written > 0 else { break }
            sent += written
        }
        close(client)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: output, as: UTF8.self) == fromFile.stdoutText)
    }
}

/// Runs a program with `input` on its stdin.
func runWithInput(_ executable: URL, _ arguments: [String], input: Data) throws -> ProcessResult {
    let directory = try Paths.temporaryDirectory("stdin")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("input")
    try input.write(to: file)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "exec \"$0\" \"$@\" < \"\(file.path)\"", executable.path] + arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: output, stderr: String(decoding: errors, as: UTF8.self))
}
