import ArgumentParser
import CommandOptions
import Devices
import Foundation
import Runs
import ThreadKit
import USBDriver

/// Serves the emulated HackRF on a Unix socket for the libusb stand-in in
/// Tools/fakeusb, so that unmodified programs (hackrf_sweep, hackrf_info, and
/// tscope's own libusb path) run against the demo device.
struct EmulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulate",
        abstract: "Serve an emulated HackRF or RTL-SDR on a Unix socket for Tools/fakeusb (tests, benchmarks).",
        shouldDisplay: false
    )

    enum Pacing: String, ExpressibleByArgument { case realtime, unlimited }
    enum EmulatedDevice: String, ExpressibleByArgument { case hackrf, rtlsdr }

    @Option(help: "Socket path to create.")
    var socket: String

    @Option(help: "realtime (like hardware) or unlimited (as fast as the host reads).")
    var pacing: Pacing = .realtime

    @Option(help: "Scene seed.")
    var seed: UInt64 = 1

    @Option(help: "Which device: hackrf or rtlsdr (RTL2832U + R820T).")
    var device: EmulatedDevice = .hackrf

    func run() throws {
        let emulator: FirmwareEmulator
        switch device {
        case .hackrf:
            emulator = HackRFEmulator(seed: seed, options: .init(pacing: pacing == .realtime ? .realTime : .unlimited))
        case .rtlsdr:
            emulator = RTLSDREmulator(seed: seed, options: .init(realTime: pacing == .realtime))
        }
        let server = try EmulatorSocketServer(emulator: emulator, socketPath: socket)
        defer { server.stop() }
        let name = emulator.deviceInfo.product ?? device.rawValue
        FileHandle.standardError.write(Data("serving emulated \(name) on \(socket); stop with Ctrl-C\n".utf8))
        // served until a stop signal
        _ = CompletionLatch<Bool>().wait(onSignal: true)
    }
}
