import Foundation

/// A private dbus-daemon with the BlueZ stand-in (Fixtures/bluez-standin) on it,
/// for `--ble` runs: tscope finds it through DBUS_SYSTEM_BUS_ADDRESS. Every wait
/// here has a deadline (the bus's socket, the stand-in's ready file); `stop`
/// ends both processes with SIGTERM, then SIGKILL after a second.
final class BlueZStandIn {
    static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures/bluez-standin")
    static let ecgFixtures = Paths.packageRoot.appendingPathComponent("Tests/ECGTests/Fixtures")
    /// Debian's Python, where python3-dbus and python3-gi live
    static let python = URL(fileURLWithPath: "/usr/bin/python3")

    /// dbus-daemon and Debian's python3 with python3-dbus and python3-gi (Tools/install-deps --test)
    static var available: Bool {
        which("dbus-daemon") != nil && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbus/__init__.py")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py")
    }

    struct Failed: Error, CustomStringConvertible { var description: String }

    let directory: URL
    private var daemon: Process?
    private var standin: Process?

    var socket: URL { directory.appendingPathComponent("bus") }
    var address: String { "unix:path=\(socket.path)" }
    /// the environment a tscope run needs to find the stand-in
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }
    var standinLog: String { (try? String(contentsOf: directory.appendingPathComponent("standin.log"), encoding: .utf8)) ?? "" }

    /// Starts the bus and (unless `withBlueZ` is false) the stand-in with `options`
    /// (--speed X, --drop-link-after S, --powered-off, --no-adapter).
    init(options: [String] = ["--speed", "4"], withBlueZ: Bool = true) throws {
        directory = try Paths.temporaryDirectory("bluez")
        let daemon = Process()
        daemon.executableURL = which("dbus-daemon")
        daemon.arguments = ["--config-file=\(Self.fixtures.appendingPathComponent("bus.conf").path)",
                            "--address=\(address)", "--nofork", "--nopidfile"]
        daemon.standardInput = FileHandle.nullDevice
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        self.daemon = daemon
        try wait(seconds: 10, for: "the bus's socket") { FileManager.default.fileExists(atPath: self.socket.path) }
        guard withBlueZ else { return }

        let ready = directory.appendingPathComponent("ready")
        let log = directory.appendingPathComponent("standin.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let standin = Process()
        standin.executableURL = Self.python
        standin.arguments = [Self.fixtures.appendingPathComponent("bluez-standin.py").path, "--bus", address,
                             "--mitdb", Self.fixtures.appendingPathComponent("100-60s.dat").path,
                             "--polar-csv", Self.ecgFixtures.appendingPathComponent("polar-h10-csv/ecg-excerpt.csv").path,
                             "--af-beats", Self.fixtures.appendingPathComponent("afdb-04015-af-beats.txt").path,
                             "--ready-file", ready.path] + options
        standin.standardInput = FileHandle.nullDevice
        standin.standardOutput = FileHandle.nullDevice
        standin.standardError = try FileHandle(forWritingTo: log)
        try standin.run()
        self.standin = standin
        try wait(seconds: 15, for: "the stand-in to own org.bluez") {
            if !standin.isRunning { throw Failed(description: "the BlueZ stand-in ended: \(self.standinLog)") }
            return FileManager.default.fileExists(atPath: ready.path)
        }
    }

    deinit { stop() }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass (then throws).
    private func wait(seconds: Double, for what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else {
                stop()
                throw Failed(description: "no \(what) within \(seconds) s")
            }
            usleep(20_000)
        }
    }

    /// Ends the stand-in and the bus: SIGTERM, then SIGKILL for whatever is left after a second.
    func stop() {
        for process in [standin, daemon].compactMap({ $0 }) where process.isRunning {
            process.terminate()
        }
        let deadline = Date().addingTimeInterval(1)
        while [standin, daemon].contains(where: { $0?.isRunning == true }), Date() < deadline { usleep(20_000) }
        for process in [standin, daemon].compactMap({ $0 }) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        let reaped = Date().addingTimeInterval(2)
        while [standin, daemon].contains(where: { $0?.isRunning == true }), Date() < reaped { usleep(20_000) }
        standin = nil
        daemon = nil
    }
}
