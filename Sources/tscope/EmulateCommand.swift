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

    @Option(help: "Socket path to create.")
    var socket: String

    @Option(help: "realtime (like hardware) or unlimited (as fast as the host reads).")
    var pacing: Pacing = .realtime

    @Option(help: "Scene seed.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Which device: " + served.map(\.id).joined(separator: " or ") + ".",
                               valueName: "family"),
            transform: { id in
                guard let kind = served.first(where: { $0.id == id }) else {
                    throw ValidationError("--device \(id): the emulators served are " + served.map(\.id).joined(separator: ", "))
                }
                return kind
            })
    var device: AnalyzerKind = .hackrf

    /// the families whose emulators Tools/fakeusb can be served
    static var served: [AnalyzerKind] { AnalyzerKind.allCases.filter { $0.servedEmulator != nil } }

    func run() throws {
        guard let serve = device.servedEmulator else { throw ValidationError("--device \(device.id): no emulator to serve") }
        let emulator = serve(seed, pacing == .realtime)
        let server = try EmulatorSocketServer(emulator: emulator, socketPath: socket)
        defer { server.stop() }
        let name = emulator.deviceInfo.product ?? device.id
        FileHandle.standardError.write(Data("serving emulated \(name) on \(socket); stop with Ctrl-C\n".utf8))
        // served until a stop signal
        _ = CompletionLatch<Bool>().wait(onSignal: true)
    }
}
