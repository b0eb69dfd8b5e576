import Foundation
import Testing

/// One parsed hackrf_sweep text line.
struct SweepLine: Equatable {
    var lowHz: UInt64
    var highHz: UInt64
    var binWidth: String
    var fftSize: Int
    var values: [Double]

    /// Parses `date, time, hz_low, hz_high, hz_bin_width, num_samples, dB…`.
    init?(_ line: Substring) {
        let fields = line.components(separatedBy: ", ")
        guard fields.count > 6,
              fields[0].range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil,
              fields[1].range(of: #"^\d{2}:\d{2}:\d{2}\.\d{6}$"#, options: .regularExpression) != nil,
              let low = UInt64(fields[2]), let high = UInt64(fields[3]), let n = Int(fields[5]) else { return nil }
        let values = fields[6...].compactMap { Double($0) }
        guard values.count == fields.count - 6,
              fields[6...].allSatisfy({ $0.range(of: #"^-?\d+\.\d{2}$"#, options: .regularExpression) != nil })
        else { return nil }
        lowHz = low
        highHz = high
        binWidth = fields[4]
        fftSize = n
        self.values = values
    }
}

func parseSweepOutput(_ text: String) -> [SweepLine?] {
    text.split(separator: "\n").map { SweepLine($0) }
}

@Suite(.serialized) struct SweepCommandTests {
    @Test func demoSweepWritesHackRFSweepsLayout() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "demo", "-f", "2400:2440", "-N", "2", "-w", "500000"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = parseSweepOutput(result.stdoutText)
        // 2 sweeps × 2 tuning steps × 2 blocks per step × 2 lines per block
        #expect(lines.count == 16)
        #expect(lines.allSatisfy { $0 != nil })
        let parsed = lines.compactMap { $0 }
        // hackrf_sweep's rule: N = 20e6 / 500000 = 40, padded until N + 4 is a multiple of 8 → 44
        #expect(parsed.allSatisfy { $0.fftSize == 44 && $0.binWidth == "454545.45" && $0.values.count == 11 })
        #expect(parsed.allSatisfy { $0.highHz - $0.lowHz == 5_000_000 })
        // interleaved stepping: lines come in pairs [f, f+5] then [f+10, f+15]
        #expect(parsed.prefix(8).map { $0.lowHz / 1_000_000 } == [2400, 2410, 2405, 2415, 2420, 2430, 2425, 2435])
        #expect(result.stderr.contains("Total sweeps: 2"))
    }

    @Test func oneShotStopsAfterOneSweep() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "demo", "-f", "100:120", "-1"])
        #expect(result.status == 0)
        #expect(parseSweepOutput(result.stdoutText).count == 4)
    }

    @Test func matchesTheRealHackRFSweepOnTheSameEmulatedDevice() throws {
        let hackrfSweep = try #require(which("hackrf_sweep"), "Tools/install-deps --test installs Debian's hackrf")
        let arguments = ["-f", "88:108", "-f", "2400:2480", "-N", "3", "-w", "100000"]
        // A fresh emulator with the same seed for each program: identical blocks.
        let reference = try ServedHackRF(seed: 9)
        let referenceRun = try run(hackrfSweep, arguments, environment: try FakeUSB.environment(sockets: [reference.socketPath]))
        let ours = try ServedHackRF(seed: 9)
        let ourRun = try run(Paths.tscope, ["sweep", "--device", "hackrf"] + arguments,
                             environment: try FakeUSB.environment(sockets: [ours.socketPath]))
        #expect(referenceRun.status == 0, "hackrf_sweep: \(referenceRun.stderr)")
        #expect(ourRun.status == 0, "tscope: \(ourRun.stderr)")
        let expected = parseSweepOutput(referenceRun.stdoutText)
        let actual = parseSweepOutput(ourRun.stdoutText)
        #expect(expected.count == 3 * (1 + 4) * 2 * 2)
        #expect(actual.count == expected.count)
        var worst = 0.0
        for (e, a) in zip(expected, actual) {
            let e = try #require(e), a = try #require(a)
            #expect(e.lowHz == a.lowHz && e.highHz == a.highHz && e.binWidth == a.binWidth && e.fftSize == a.fftSize)
            #expect(e.values.count == a.values.count)
            for (x, y) in zip(e.values, a.values) { worst = max(worst, abs(x - y)) }
        }
        // both print two decimals: at most one unit in the last place apart (0.01 read back as a Double may be 0.01000…05)
        #expect(worst <= 0.01 + 1e-9, "largest difference \(worst) dB")
    }

    @Test func binaryOutputMatchesTheRealHackRFSweep() throws {
        let hackrfSweep = try #require(which("hackrf_sweep"))
        let arguments = ["-f", "900:940", "-N", "2", "-w", "250000", "-B"]
        let reference = try ServedHackRF(seed: 4)
        let referenceRun = try run(hackrfSweep, arguments, environment: try FakeUSB.environment(sockets: [reference.socketPath]))
        let ours = try ServedHackRF(seed: 4)
        let ourRun = try run(Paths.tscope, ["sweep", "--device", "hackrf"] + arguments,
                             environment: try FakeUSB.environment(sockets: [ours.socketPath]))
        #expect(referenceRun.status == 0 && ourRun.status == 0)
        let expected = [UInt8](referenceRun.stdout), actual = [UInt8](ourRun.stdout)
        // N = 20e6 / 250000 = 80 → 84; records of 4 + 16 + 4·21 bytes;
        // 2 sweeps × 2 steps × 2 blocks × 2 records
        let recordSize = 4 + 16 + 4 * 21
        #expect(expected.count == 16 * recordSize)
        #expect(actual.count == expected.count)
        func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        func float(_ bytes: [UInt8], _ at: Int) -> Float { Float(bitPattern: u32(bytes, at)) }
        for record in 0..<(min(expected.count, actual.count) / recordSize) {
            let base = record * recordSize
            #expect(u32(actual, base) == UInt32(recordSize - 4))
            #expect(expected[base..<base + 20] == actual[base..<base + 20], "record \(record) header")
            for i in 0..<21 {
                let at = base + 20 + 4 * i
                #expect(abs(float(expected, at) - float(actual, at)) <= 0.01, "record \(record) value \(i)")
            }
        }
    }

    @Test func devicesListsTheEmulatedHackRFThroughLibusb() throws {
        let served = try ServedHackRF()
        let result = try run(Paths.tscope, ["devices"], environment: try FakeUSB.environment(sockets: [served.socketPath]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("HackRF One"))
        #expect(result.stdoutText.contains("bus 1 address 1"))
        #expect(result.stdoutText.contains("serial "))
    }

    @Test func noDeviceIsOneActionableLine() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "hackrf", "-1"],
                             environment: try FakeUSB.environment(sockets: []))
        #expect(result.status != 0)
        #expect(result.stderr.contains("HackRF One not found"))
        let devices = try run(Paths.tscope, ["devices"], environment: try FakeUSB.environment(sockets: []))
        #expect(devices.status != 0)
        #expect(devices.stderr.contains("no analyzer found"))
        #expect(devices.stderr.contains("udev"))
    }

    @Test func badRangesAreRejectedBeforeTouchingTheDevice() throws {
        for arguments in [["-f", "2500:2400"], ["-f", "0:8000"], ["-f", "abc"], ["-w", "1"], ["-l", "48"]] {
            let result = try run(Paths.tscope, ["sweep", "--device", "demo"] + arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(!result.stderr.isEmpty, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test func unplugMidRunKeepsWhatWasWrittenAndSaysSo() throws {
        let served = try ServedHackRF(options: .init(pacing: .unlimited, disconnectAfterBlocks: 30))
        let result = try run(Paths.tscope, ["sweep", "--device", "hackrf", "-f", "100:200"],
                             environment: try FakeUSB.environment(sockets: [served.socketPath]))
        #expect(result.status != 0)
        #expect(result.stderr.contains("disconnected"), "\(result.stderr)")
        // every block before the unplug was written, two lines each
        #expect(parseSweepOutput(result.stdoutText).count == 60)
    }
}
