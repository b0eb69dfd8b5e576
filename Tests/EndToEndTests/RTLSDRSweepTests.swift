import Devices
import Foundation
import Testing
import USBDriver

/// One parsed rtl_power CSV line.
struct RTLPowerLine {
    var lowHz: Int
    var highHz: Int
    var step: String
    var samples: Int
    var values: [Double]

    init?(_ line: Substring) {
        let fields = line.components(separatedBy: ", ")
        guard fields.count > 7,
              fields[0].range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil,
              fields[1].range(of: #"^\d{2}:\d{2}:\d{2}$"#, options: .regularExpression) != nil,
              let low = Int(fields[2]), let high = Int(fields[3]), let samples = Int(fields[5]) else { return nil }
        let values = fields[6...].compactMap { Double($0) }
        guard values.count == fields.count - 6 else { return nil }
        lowHz = low
        highHz = high
        step = fields[4]
        self.samples = samples
        self.values = values
    }
}

/// An emulated RTL-SDR served for the libusb stand-in for the length of a test.
final class ServedRTLSDR {
    let server: EmulatorSocketServer
    let emulator: RTLSDREmulator
    var socketPath: String { server.socketPath }

    init(scene: DemoScene, options: RTLSDREmulator.Options) throws {
        emulator = RTLSDREmulator(scene: scene, options: options)
        let directory = try Paths.temporaryDirectory("rtlsdr")
        server = try EmulatorSocketServer(emulator: emulator, socketPath: directory.appendingPathComponent("rtl.sock").path)
    }

    deinit { server.stop() }
}

@Suite(.serialized) struct RTLSDRSweepTests {
    static let scene = DemoScene(seed: 4, noiseSigma: 2, carriers: [.init(frequencyHz: 100.3e6, amplitude: 30)])

    @Test func sweepThroughLibUSBWritesRtlPowersLayout() throws {
        let served = try ServedRTLSDR(scene: Self.scene, options: .init(realTime: false))
        let result = try run(Paths.tscope, ["sweep", "--device", "rtlsdr", "-f", "88M:108M:125k", "-i", "1", "-1"],
                             environment: try FakeUSB.environment(sockets: [served.socketPath]))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map { RTLPowerLine($0) }
        // rtl_power -f 88M:108M:125k: 8 hops of 2.5 MHz, 32 bins of 78125 Hz, +1 repeated value
        #expect(lines.count == 8)
        let parsed = lines.compactMap { $0 }
        #expect(parsed.count == 8)
        #expect(parsed.map(\.lowHz) == (0..<8).map { 88_000_000 + $0 * 2_500_000 })
        #expect(parsed.allSatisfy { $0.highHz - $0.lowHz == 2_500_000 && $0.step == "78125.00" })
        #expect(parsed.allSatisfy { $0.values.count == 33 && $0.values[31] == $0.values[32] && $0.samples >= 256 })
        // the scene's carrier shows up in the hop and bin that cover 100.3 MHz
        let hop = try #require(parsed.first { $0.lowHz <= 100_300_000 && 100_300_000 < $0.highHz })
        let bin = Int(Double(100_300_000 - hop.lowHz) / 78_125)
        let peak = try #require(hop.values.indices.max { hop.values[$0] < hop.values[$1] })
        #expect(abs(peak - bin) <= 1, "peak in bin \(peak), carrier in bin \(bin)")
        #expect(result.stderr.contains("Number of frequency hops: 8"))
        #expect(served.emulator.protocolViolations.isEmpty, "\(served.emulator.protocolViolations)")
    }

    @Test func unplugEndsWithOneLineAndKeepsWhatWasWritten() throws {
        let served = try ServedRTLSDR(scene: Self.scene,
                                      options: .init(realTime: false, disconnectAfterBytes: 3_000_000))
        let result = try run(Paths.tscope, ["sweep", "--device", "rtlsdr", "-f", "88M:108M:125k", "-i", "1"],
                             environment: try FakeUSB.environment(sockets: [served.socketPath]))
        #expect(result.status != 0)
        let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errorLines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("disconnected") || result.stderr.contains("stopped delivering"))
        #expect(result.stdoutText.split(separator: "\n").allSatisfy { RTLPowerLine($0) != nil })
    }

    @Test func noDongleGivesAClearMessage() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "rtlsdr", "-f", "88M:108M:125k", "-1"],
                             environment: try FakeUSB.environment(sockets: []))
        #expect(result.status != 0)
        #expect(result.stderr.contains("RTL-SDR not found"), "stderr: \(result.stderr)")
    }

    @Test func badOptionsNameTheOptionAndTheExpectedForm() throws {
        let result = try run(Paths.tscope, ["sweep", "--device", "demo-rtlsdr", "-f", "88M:108M:125k", "-c", "lots"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("-c lots: expected a percentage (20%) or a fraction (0.2)"))
    }
}
