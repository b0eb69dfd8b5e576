import Foundation

/// Paths of the built products and the package, found from this file and the
/// running test bundle (no absolute paths baked in).
enum Paths {
    /// the package root (three levels above this file)
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// the directory holding the test bundle and the `tscope` executable
    static var productsDirectory: URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        // On Linux the runner may be <products>/tscopePackageTests.xctest.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tscope").path),
              directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }

    static var tscope: URL { productsDirectory.appendingPathComponent("tscope") }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("tscope-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// What a finished child process printed and how it ended.
struct ProcessResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs a program to completion with a time limit, capturing its output.
func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
         timeoutSeconds: Double = 60) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Drain both pipes concurrently so a chatty child never blocks.
    let group = DispatchGroup()
    let outData = DataBox()
    let errData = DataBox()
    group.enter()
    DispatchQueue.global().async { outData.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    if process.isRunning {
        process.terminate()
        process.waitUntilExit()
    }
    group.wait()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: outData.data,
                         stderr: String(decoding: errData.data, as: UTF8.self))
}

/// Holds what a reader thread collected; read only after the group is done.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// The first executable named `name` on PATH, if any.
func which(_ name: String) -> URL? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}

/// tscope running in the background (a sensor, a recorder, a meter) until
/// `stop` or its own end: optionally under a launcher (`ip netns exec NS`),
/// its stdout kept in a pipe, and its stderr dropped, read for the first line
/// (an announced address), or kept whole for `waitForExit`.
final class BackgroundTscope {
    enum Stderr { case discard, firstLine, keep }

    let process = Process()
    let stdout = Pipe()
    private let stderr = Pipe()
    private let mode: Stderr
    /// the first line it wrote to stderr (with `.firstLine`), without the newline
    private(set) var firstLine = ""

    init(_ arguments: [String], launcher: [String] = [], stderr mode: Stderr = .discard,
         environment: [String: String] = [:]) throws {
        self.mode = mode
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (key, value) in environment { merged[key] = value }
            process.environment = merged
        }
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(launcher.dropFirst()) + [Paths.tscope.path] + arguments
        } else {
            process.executableURL = Paths.tscope
            process.arguments = arguments
        }
        process.standardOutput = stdout
        process.standardError = mode == .discard ? FileHandle.nullDevice : stderr
        try process.run()
        guard mode == .firstLine else { return }
        var line = ""
        while !line.hasSuffix("\n") {
            let byte = stderr.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line += String(decoding: byte, as: UTF8.self)
        }
        firstLine = line.trimmingCharacters(in: .newlines)
    }

    /// The port at the end of the first line's `HOST:PORT` after `marker` (nil: not announced).
    func announcedPort(after marker: String) -> Int? {
        guard let range = firstLine.range(of: marker) else { return nil }
        let digits = firstLine[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    /// SIGSTOP: the process stalls as a hung program would.
    func pause() { kill(process.processIdentifier, SIGSTOP) }
    func resume() { kill(process.processIdentifier, SIGCONT) }

    /// Waits for it to end by itself; its exit status and (with `.keep`) all it wrote to stderr.
    func waitForExit() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        let text = mode == .keep ? String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
        return (process.terminationStatus, text)
    }

    /// SIGTERM (after SIGCONT), and the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning {
            resume()
            process.terminate()
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// A self-signed P-256 certificate and its key, made by Debian's openssl:
/// `DIRECTORY/NAME.pem` and `DIRECTORY/NAME.key`, valid for two days for
/// `subjectAltName` (e.g. "IP:127.0.0.1,DNS:localhost").
func makeSelfSignedCertificate(in directory: URL, name: String, subjectAltName: String) throws
    -> (certificate: String, key: String) {
    let certificate = directory.appendingPathComponent("\(name).pem").path
    let key = directory.appendingPathComponent("\(name).key").path
    let made = try run(URL(fileURLWithPath: "/usr/bin/openssl"), [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
        "-out", certificate, "-days", "2", "-subj", "/CN=tscope test \(name)", "-addext", "subjectAltName=\(subjectAltName)"])
    guard made.status == 0 else {
        struct OpenSSLFailed: Error, CustomStringConvertible { var description: String }
        throw OpenSSLFailed(description: "openssl: \(made.stderr)")
    }
    return (certificate, key)
}
