import Foundation
import Testing
import ThreadKitTesting
@testable import USBDriver

/// Builds Tools/fakeusb (the libusb stand-in) and its C self-test client into a
/// temp dir, hosts toy emulators on Unix sockets in this process, and runs the
/// client against them as a subprocess.
@Suite(.serialized) struct FakeLibUSBEndToEndTests {
    /// the package root, found from this file (Tests/USBDriverTests/…)
    static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    struct Run {
        var status: Int32
        var output: String
        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    /// Runs `arguments[0]` with the rest; collects stdout+stderr.
    static func run(_ arguments: [String], environment: [String: String] = [:],
                    whileRunning: (() -> Void)? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        whileRunning?()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// A temp dir with the fake libusb and the self-test client built in it.
    static func buildFakeAndClient() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fakeusb-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tools = projectRoot.appendingPathComponent("Tools/fakeusb")
        let build = try run(["/bin/sh", tools.appendingPathComponent("build.sh").path, dir.path])
        #expect(build.status == 0, "build.sh: \(build.output)")
        let client = try run(["/bin/sh", "-c",
            "cc -O1 -Wall $(pkg-config --cflags libusb-1.0 2>/dev/null || echo -I/usr/include/libusb-1.0) " +
            "-o \"$1/selftest\" \"$2\" -L\"$1\" -lusb-1.0 -Wl,-rpath,\"$1\"",
            "sh", dir.path, tools.appendingPathComponent("selftest.c").path])
        #expect(client.status == 0, "selftest.c: \(client.output)")
        return dir
    }

    @Test func clientEnumeratesOpensControlsAndStreams() throws {
        let dir = try Self.buildFakeAndClient()
        defer { try? FileManager.default.removeItem(at: dir) }
        let toy = ToyEmulator()
        let other = ToyEmulator()
        let server = try EmulatorSocketServer(emulator: toy, socketPath: dir.appendingPathComponent("toy.sock").path)
        let otherServer = try EmulatorSocketServer(emulator: other, socketPath: dir.appendingPathComponent("other.sock").path)
        defer { server.stop(); otherServer.stop() }

        let result = try Self.run([dir.appendingPathComponent("selftest").path],
                                  environment: ["TSCOPE_FAKEUSB_SOCKET": "\(server.socketPath):\(otherServer.socketPath)"])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.lines
        #expect(lines.prefix(3) == ["devices 2",
                                    "device bus 1 address 1 id 1209:0001 bcd 0102",
                                    "device bus 1 address 2 id 1209:0001 bcd 0102"])
        #expect(lines.contains("serial TOY-0001"))
        #expect(lines.contains("product Toy Emulator"))
        #expect(lines.contains("control out 5"))
        #expect(lines.contains("control in 5 olleh"))
        #expect(lines.contains("control stall LIBUSB_ERROR_PIPE"))
        #expect(lines.contains("bulk in LIBUSB_SUCCESS 4096"))
        #expect(lines.contains("bulk out LIBUSB_SUCCESS 3"))
        #expect(lines.last == "done failures 0")

        // async: ≥ 64 transfers completed in order, the other 3 came back
        // (cancelled, or completed if the cancel raced their round trip)
        let asyncLine = try #require(lines.first { $0.hasPrefix("async ") })
        let fields = asyncLine.split(separator: " ")
        let completed = try #require(Int(fields[2]))
        let cancelled = try #require(Int(fields[6]))
        #expect(fields[3...4] == ["ordered", "1"])
        #expect(fields[7...10] == ["errors", "0", "in_flight", "0"])
        #expect(completed >= 64 && (completed - 64) + cancelled == 3, "\(asyncLine)")

        // what the firmware saw: one control OUT, one bulk OUT, exactly the
        // words the client received (16384-byte transfers + one 4096-byte read)
        server.stop()
        #expect(toy.recordedControlOuts.map(\.0) == [ControlSetup(requestType: .vendorOut, request: 1, value: 0x1234, index: 7)])
        #expect(toy.recordedControlOuts.map(\.1) == [Array("hello".utf8)])
        #expect(toy.recordedBulkOuts == [[1, 2, 3]])
        #expect(toy.wordsSent == UInt32(completed * 4096 + 1024))
        #expect(other.wordsSent == 0)
    }

    @Test func serverGoingAwayFailsEveryTransferWithNoDevice() throws {
        let dir = try Self.buildFakeAndClient()
        defer { try? FileManager.default.removeItem(at: dir) }
        let toy = ToyEmulator()
        toy.nakEvery = 2
        let server = try EmulatorSocketServer(emulator: toy, socketPath: dir.appendingPathComponent("toy.sock").path)
        defer { server.stop() }
        let result = try Self.run([dir.appendingPathComponent("selftest").path, "stream"],
                                  environment: ["TSCOPE_FAKEUSB_SOCKET": server.socketPath]) {
            // unplug once data flows
            _ = waitForCondition(timeoutSeconds: 10, pollSeconds: 0.002) { toy.wordsSent >= 4096 * 8 }
            server.stop()
        }
        let asyncLine = try #require(result.lines.first { $0.hasPrefix("async ") }, "\(result.output)")
        #expect(asyncLine.hasSuffix("errors 4 in_flight 0 last_error NO_DEVICE"), "\(asyncLine)")
        #expect(asyncLine.contains("ordered 1"))
    }

    /// A long run of bulk IN transfers through the fake and the socket completes and reports its rate;
    /// how fast is a benchmark's to say (Tools/bench-sweep runs hackrf_sweep over this path).
    @Test func bulkTransfersRunThrough() throws {
        let dir = try Self.buildFakeAndClient()
        defer { try? FileManager.default.removeItem(at: dir) }
        let toy = ToyEmulator()
        toy.fastFill = true
        let server = try EmulatorSocketServer(emulator: toy, socketPath: dir.appendingPathComponent("toy.sock").path)
        defer { server.stop() }
        let result = try Self.run([dir.appendingPathComponent("selftest").path, "bench", "1"],
                                  environment: ["TSCOPE_FAKEUSB_SOCKET": server.socketPath])
        #expect(result.status == 0, "\(result.output)")
        let benchLine = try #require(result.lines.first { $0.hasPrefix("bench ") }, "\(result.output)")
        let rate = try #require(Double(benchLine.split(separator: " ")[1]))
        print("fakeusb bulk IN through EmulatorSocketServer: \(rate) MB/s")
        #expect(rate > 0, "\(benchLine)")
    }
}
