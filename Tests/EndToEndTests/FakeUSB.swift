import Devices
import Foundation
import USBDriver

/// The libusb stand-in (Tools/fakeusb) built once per test process, and
/// emulated HackRFs served on Unix sockets for it.
enum FakeUSB {
    /// Directory holding libusb-1.0.so.0 (the stand-in).
    static let libraryDirectory: Result<URL, Error> = Result {
        let directory = try Paths.temporaryDirectory("fakeusb")
        let script = Paths.packageRoot.appendingPathComponent("Tools/fakeusb/build.sh")
        let result = try run(URL(fileURLWithPath: "/bin/sh"), [script.path, directory.path])
        guard result.status == 0 else { throw FakeUSBError.build(result.stderr) }
        return directory
    }

    /// Environment that makes a child process load the stand-in and see the
    /// emulated devices behind `sockets`.
    static func environment(sockets: [String]) throws -> [String: String] {
        ["LD_LIBRARY_PATH": try libraryDirectory.get().path, "TSCOPE_FAKEUSB_SOCKET": sockets.joined(separator: ":")]
    }
}

/// An emulated HackRF served for the stand-in for the length of a test.
final class ServedHackRF {
    let server: EmulatorSocketServer
    let emulator: HackRFEmulator
    var socketPath: String { server.socketPath }

    init(seed: UInt64 = 1, scene: DemoScene? = nil, options: HackRFEmulator.Options = .init(pacing: .unlimited)) throws {
        emulator = HackRFEmulator(scene: scene, seed: seed, options: options)
        let directory = try Paths.temporaryDirectory("emulator")
        server = try EmulatorSocketServer(emulator: emulator, socketPath: directory.appendingPathComponent("hackrf.sock").path)
    }

    deinit { server.stop() }
}

enum FakeUSBError: Error { case build(String) }
