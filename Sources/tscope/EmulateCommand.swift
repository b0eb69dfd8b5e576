import ArgumentParser
import Devices
import Foundation
import USBDriver

/// Serves the emulated HackRF on a Unix socket for the libusb stand-in in
/// Tools/fakeusb, so that unmodified programs (hackrf_sweep, hackrf_info, and
/// tscope's own libusb path) run against the demo device.
struct EmulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulate",
        abstract: "Serve the emulated HackRF on a Unix socket for Tools/fakeusb (tests, benchmarks).",
        shouldDisplay: false
    )

    enum Pacing: String, ExpressibleByArgument { case realtime, unlimited }

    @Option(help: "Socket path to create.")
    var socket: String

    @Option(help: "realtime (like hardware) or unlimited (as fast as the host reads).")
    var pacing: Pacing = .realtime

    @Option(help: "Scene seed.")
    var seed: UInt64 = 1

    func run() throws {
        let emulator = HackRFEmulator(seed: seed, options: .init(pacing: pacing == .realtime ? .realTime : .unlimited))
        let server = try EmulatorSocketServer(emulator: emulator, socketPath: socket)
        defer { server.stop() }
        FileHandle.standardError.write(Data("serving emulated HackRF One on \(socket); stop with Ctrl-C\n".utf8))
        let stop = DispatchSemaphore(value: 0)
        let signals = SignalWatch(signals: [SIGINT, SIGTERM, SIGHUP]) { stop.signal() }
        stop.wait()
        signals.cancel()
    }
}
