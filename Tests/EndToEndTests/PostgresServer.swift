#if SensorLink
import Foundation

/// Debian's PostgreSQL server, started for a test in a temporary directory on
/// a loopback port (initdb with trust authentication for the `tscope` user,
/// the `tscope` database made), and stopped after. As root, the server runs
/// as the `postgres` user (PostgreSQL refuses to run as root).
final class PostgresServer {
    let directory: URL
    let port: Int
    private let binaries: URL
    private var data: URL { directory.appendingPathComponent("data") }

    var url: String { "postgresql://tscope@127.0.0.1:\(port)/tscope" }

    /// the newest /usr/lib/postgresql/N/bin (Tools/install-deps --test installs the server)
    static func binaries() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { root.appendingPathComponent("\($0)/bin") }
    }

    init() throws {
        guard let binaries = Self.binaries() else { throw ServerError("no PostgreSQL server: Tools/install-deps --test") }
        self.binaries = binaries
        directory = try Paths.temporaryDirectory("postgres")
        port = try freeLoopbackPort()
        if getuid() == 0 { try Self.shell(["chown", "-R", "postgres:postgres", directory.path]) }
        try runAsServerUser("initdb", ["-D", data.path, "-U", "tscope", "--auth=trust", "-E", "UTF8", "--no-sync"])
        try start()
        try runAsServerUser("createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "tscope", "tscope"])
    }

    /// Starts (again) on the same port and data.
    func start() throws {
        try runAsServerUser("pg_ctl", ["-D", data.path, "-w", "-l", directory.appendingPathComponent("server.log").path,
                                       "-o", "-p \(port) -c listen_addresses=127.0.0.1 -k \(directory.path) -c fsync=off",
                                       "start"])
    }

    /// From now on TCP connections need the password (`tscope`'s is set to it; SCRAM, as PostgreSQL 15's default).
    func requirePassword(_ password: String) throws {
        _ = try query("ALTER USER tscope PASSWORD '\(password)'")
        let hba = data.appendingPathComponent("pg_hba.conf")
        let text = try String(contentsOf: hba, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.hasPrefix("host") ? line.replacingOccurrences(of: "trust", with: "scram-sha-256") : String(line) }
            .joined(separator: "\n")
        try text.write(to: hba, atomically: false, encoding: .utf8)
        try runAsServerUser("pg_ctl", ["-D", data.path, "reload"])
        // the reload is asynchronous: wait until a password-less TCP connection is refused
        Self.wait(whilst: tcpOpenWithoutPassword)
    }

    /// From now on TCP connections must be encrypted: TLS on with `certificate` and `key` (PEM), and every
    /// `host` line of pg_hba.conf made `hostssl`, so a plaintext connection is refused.
    func requireTLS(certificate: String, key: String) throws {
        let installedCertificate = data.appendingPathComponent("server.crt").path
        let installedKey = data.appendingPathComponent("server.key").path
        for (from, to) in [(certificate, installedCertificate), (key, installedKey)] {
            try? FileManager.default.removeItem(atPath: to)
            try FileManager.default.copyItem(atPath: from, toPath: to)
        }
        // PostgreSQL refuses a key others may read
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: installedKey)
        if getuid() == 0 { try Self.shell(["chown", "postgres:postgres", installedCertificate, installedKey]) }
        _ = try query("ALTER SYSTEM SET ssl = on")
        let hba = data.appendingPathComponent("pg_hba.conf")
        let text = try String(contentsOf: hba, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.hasPrefix("host ") ? "hostssl" + line.dropFirst(4) : String(line) }
            .joined(separator: "\n")
        try text.write(to: hba, atomically: false, encoding: .utf8)
        try runAsServerUser("pg_ctl", ["-D", data.path, "reload"])
        // the reload is asynchronous: wait until a plaintext TCP connection is refused
        Self.wait(whilst: { tcpOpen(sslMode: "disable") })
    }

    /// Polls `condition` every 0.1 s while it holds, for up to `seconds` (a `for … where` loop would
    /// go on evaluating it — a psql run each time — after it stopped holding).
    static func wait(seconds: Double = 5, whilst condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && condition() { usleep(100_000) }
    }

    /// Stops the server; `immediate` is a crash as far as clients are concerned.
    func stop(immediate: Bool = false) {
        _ = try? runAsServerUser("pg_ctl", ["-D", data.path, "-w", "-m", immediate ? "immediate" : "fast", "stop"])
    }

    /// Stops it and removes its files.
    func remove() {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// psql's unaligned, tuples-only answer to `sql`, over the server's Unix socket (trusted even after
    /// `requirePassword`, which asks it of TCP connections only).
    func query(_ sql: String) throws -> String {
        try runAsServerUser("psql", ["-h", directory.path, "-p", "\(port)", "-U", "tscope", "-d", "tscope", "-At", "-c", sql])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// whether a TCP connection without a password is let in
    private func tcpOpenWithoutPassword() -> Bool { tcpOpen(sslMode: "prefer") }

    /// whether psql's TCP connection with `sslMode` and no password is let in
    private func tcpOpen(sslMode: String) -> Bool {
        (try? runAsServerUser("psql", ["host=127.0.0.1 port=\(port) user=tscope dbname=tscope sslmode=\(sslMode)",
                                      "-w", "-At", "-c", "SELECT 1"])) != nil
    }

    @discardableResult
    private func runAsServerUser(_ program: String, _ arguments: [String]) throws -> String {
        let path = binaries.appendingPathComponent(program).path
        let command = getuid() == 0 ? ["runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        return try Self.shell(command)
    }

    /// Runs `command` to its end with posix_spawn and waitpid, its output in a
    /// file. Not Foundation's Process: it never sees runuser end (runuser stays
    /// a zombie and `isRunning` true), and pg_ctl's server would hold a pipe open.
    @discardableResult
    private static func shell(_ command: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString).out").path
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // the test runner's threads block signals; the child starts with none blocked
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var argv: [UnsafeMutablePointer<CChar>?] = (["/usr/bin/env"] + command).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, &argv, environ)
        guard spawned == 0 else { throw ServerError("cannot start \(command[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        // exited normally with status 0
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw ServerError("\(command.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    struct ServerError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
#endif
