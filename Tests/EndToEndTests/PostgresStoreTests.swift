#if SensorLink
import Foundation
import Testing

/// The PostgreSQL capture store with a real server: `record --output
/// postgresql://…`, and the URL wherever a capture file goes.
@Suite(.serialized) struct PostgresStoreTests {
    /// A self-signed certificate (its own root) from Debian's openssl naming `subjectAltName`; returns (pem, key).
    static func certificate(_ name: String, subjectAltName: String, in directory: URL) throws -> (String, String) {
        let pem = directory.appendingPathComponent("\(name).pem").path, key = directory.appendingPathComponent("\(name).key").path
        let made = try run(URL(fileURLWithPath: "/usr/bin/openssl"),
                           ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                            "-keyout", key, "-out", pem, "-days", "2", "-subj", "/CN=tscope \(name)",
                            "-addext", "subjectAltName=\(subjectAltName)"])
        #expect(made.status == 0, "\(made.stderr)")
        return (pem, key)
    }

    /// Encryption as libpq chooses it (sslmode, sslrootcert, PGSSLMODE,
    /// PGSSLROOTCERT) against a server that takes TLS connections only,
    /// its certificate naming `localhost` and not 127.0.0.1: plaintext
    /// (`disable`) is refused by the server, saying which mode was used; the
    /// default (`prefer`) and `require` encrypt without checking; `verify-ca`
    /// checks the signature only, so it accepts the certificate at
    /// 127.0.0.1; `verify-full` checks the name too, refusing 127.0.0.1 and
    /// accepting localhost (an address cannot be checked: it is refused
    /// before connecting, in words), and a certificate naming another host
    /// is refused by the check; a stranger's root certificate is refused; a
    /// verifying mode without a root certificate stops before connecting.
    @Test func encryptionIsChosenAsLibpqChoosesIt() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let directory = try Paths.temporaryDirectory("pg-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (serverPEM, serverKey) = try Self.certificate("server", subjectAltName: "DNS:localhost", in: directory)
        let (strangerPEM, _) = try Self.certificate("stranger", subjectAltName: "DNS:localhost", in: directory)
        try server.requireTLS(certificate: serverPEM, key: serverKey)
        // HOME elsewhere: no ~/.postgresql/root.crt of the machine's is consulted
        let clean = ["HOME": directory.path, "PGSSLMODE": "", "PGSSLROOTCERT": ""]
        func record(_ url: String, _ environment: [String: String] = [:]) throws -> ProcessResult {
            try run(Paths.tscope, ["record", "--device", "demo", "--duration", "0.5", "--band", "430:440", "--output", url],
                    environment: clean.merging(environment) { $1 })
        }
        let ip = server.url, named = server.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        var stored = 0

        let plaintext = try record(ip + "?sslmode=disable")
        #expect(plaintext.status != 0)
        #expect(plaintext.stderr.contains("encryption: disable, from sslmode=disable"), "\(plaintext.stderr)")
        #expect(plaintext.stderr.split(separator: "\n").count == 1, "one line: \(plaintext.stderr)")

        for accepted in [try record(ip), try record(ip + "?sslmode=require"),
                         try record(ip + "?sslmode=verify-ca&sslrootcert=\(serverPEM)"),
                         try record(named + "?sslmode=verify-full&sslrootcert=\(serverPEM)"),
                         try record(named, ["PGSSLMODE": "verify-full", "PGSSLROOTCERT": serverPEM])] {
            #expect(accepted.status == 0, "\(accepted.stderr)")
            if accepted.status == 0 { stored += 1 }
        }

        // the certificate names localhost; 127.0.0.1 is refused before connecting, since an address cannot be checked
        let address = try record(ip + "?sslmode=verify-full&sslrootcert=\(serverPEM)")
        #expect(address.status != 0)
        #expect(address.stderr.contains("127.0.0.1 is an address: connect by the name its certificate gives"),
                "\(address.stderr)")
        // a name the certificate does not give is refused by the check itself
        let (otherPEM, otherKey) = try Self.certificate("other", subjectAltName: "DNS:db.example", in: directory)
        try server.requireTLS(certificate: otherPEM, key: otherKey)
        let wrongName = try record(named + "?sslmode=verify-full&sslrootcert=\(otherPEM)")
        #expect(wrongName.status != 0)
        #expect(wrongName.stderr.contains("the server's certificate does not name the host dialled (encryption: "
                    + "verify-full, from sslmode=verify-full, root certificate \(otherPEM))"), "\(wrongName.stderr)")
        #expect(!wrongName.stderr.contains("password"), "a certificate problem is not blamed on the password")

        let stranger = try record(named + "?sslmode=verify-ca&sslrootcert=\(strangerPEM)")
        #expect(stranger.status != 0)
        #expect(stranger.stderr.contains("the server's certificate is not signed by the root certificate (encryption: verify-ca"),
                "\(stranger.stderr)")

        let noRoot = try record(ip + "?sslmode=verify-ca")
        #expect(noRoot.status != 0)
        #expect(noRoot.stderr.contains("give sslrootcert=FILE (or PGSSLROOTCERT)"), "\(noRoot.stderr)")

        let badMode = try record(ip + "?sslmode=sometimes")
        #expect(badMode.status != 0)
        #expect(badMode.stderr.contains("sslmode=sometimes: expected one of disable, allow, prefer, require, verify-ca, verify-full"),
                "\(badMode.stderr)")

        // the server itself counts what was stored: only the accepted links' sessions
        #expect(try server.query("SELECT count(*) FROM sessions") == "\(stored)")
        #expect(stored == 5)
    }

    /// A server that wants a password: the recording finds it in a pgpass file (or PGPASSWORD), as libpq would,
    /// so no command line carries it; without one, or with a pgpass file others may read, the refusal is one line
    /// saying where a password may come from; the password is in no output and not in the session's metadata.
    @Test func thePasswordComesFromPgpassNotTheCommandLine() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let secret = "s3cr3t-\(UInt32.random(in: 0...UInt32.max))"
        try server.requirePassword(secret)
        let directory = try Paths.temporaryDirectory("pg-password")
        defer { try? FileManager.default.removeItem(at: directory) }
        let pgpass = directory.appendingPathComponent("pgpass").path
        try "# tscope's test server\n127.0.0.1:\(server.port):tscope:tscope:\(secret)\n".write(toFile: pgpass, atomically: true,
                                                                                         encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: pgpass)
        let arguments = ["record", "--device", "demo", "--duration", "1", "--band", "430:440", "--output", server.url]
        // HOME elsewhere: the machine's own ~/.pgpass is not consulted
        let clean = ["HOME": directory.path, "PGPASSWORD": ""]

        let without = try run(Paths.tscope, arguments, environment: clean)
        #expect(without.status != 0)
        #expect(without.stderr.contains("no password given: PGPASSWORD, PGPASSFILE or ~/.pgpass"), "\(without.stderr)")

        var withFile = clean
        withFile["PGPASSFILE"] = pgpass
        let recorded = try run(Paths.tscope, arguments, environment: withFile)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(try server.query("SELECT count(*) FROM sessions") == "1")
        #expect(!(recorded.stderr + recorded.stdoutText).contains(secret))

        var withVariable = clean
        withVariable["PGPASSWORD"] = secret
        #expect(try run(Paths.tscope, arguments, environment: withVariable).status == 0)

        // a URL password still works, and is shown nowhere
        let inURL = server.url.replacingOccurrences(of: "tscope@", with: "tscope:\(secret)@")
        let urlRun = try run(Paths.tscope, Array(arguments.dropLast()) + [inURL], environment: clean)
        #expect(urlRun.status == 0 && !(urlRun.stderr + urlRun.stdoutText).contains(secret), "\(urlRun.stderr)")
        #expect(try server.query("SELECT count(*) FROM sessions") == "3")
        #expect(try server.query("SELECT count(*) FROM sessions s JOIN sensors d ON d.id = s.sensor_id WHERE "
                                 + "strpos(d.device || coalesce(s.gains, '') || coalesce(s.label, ''), '\(secret)') > 0") == "0")

        // a pgpass file others may read is not read, and the refusal says so
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: pgpass)
        let open = try run(Paths.tscope, arguments, environment: withFile)
        #expect(open.status != 0 && open.stderr.contains("\(pgpass) was not read: group or others may read it"), "\(open.stderr)")
    }

    /// A recording lands in the database; export and convert read it back,
    /// frame for frame as the store says; sessions are picked by label and id.
    @Test func recordExportAndConvertThroughPostgreSQL() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let directory = try Paths.temporaryDirectory("pg-record")
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = try run(Paths.tscope, ["record", "--device", "demo", "--duration", "3", "--label", "roof",
                                            "--band", "430:440", "--lna-gain", "24", "--vga-gain", "14",
                                            "--output", server.url])
        #expect(record.status == 0, "\(record.stderr)")
        #expect(record.stderr.contains("\(server.url)?session=1"), "\(record.stderr)")
        let stored = try #require(Int(try server.query("SELECT frames FROM sessions WHERE id = 1")))
        #expect(stored >= 20, "3 s at 10 frames/s: \(stored)")
        #expect(try server.query("SELECT count(*) FROM frames WHERE session_id = 1") == "\(stored)")
        #expect(try server.query("SELECT stopped_at IS NOT NULL AND achieved_frame_rate > 0 FROM sessions WHERE id = 1") == "t")
        #expect(try server.query("SELECT label FROM sessions WHERE id = 1") == "roof")
        // the analyzer's settings go with the session
        #expect(try server.query("SELECT gains FROM sessions WHERE id = 1") == "lna=24 vga=14 amp=0")

        let csv = directory.appendingPathComponent("roof.csv").path
        let export = try run(Paths.tscope, ["export", "--csv", csv, server.url + "?label=roof"])
        #expect(export.status == 0, "\(export.stderr)")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == stored + 1, "header and one row per frame")

        let copy = directory.appendingPathComponent("roof.tscope").path
        let convert = try run(Paths.tscope, ["convert", server.url, copy])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(convert.stderr.contains("\(stored) frames from postgresql to tscope"), "\(convert.stderr)")
        // the file and the database give the same table, value for value
        let fromFile = directory.appendingPathComponent("from-file.csv").path
        #expect(try run(Paths.tscope, ["export", "--csv", fromFile, copy]).status == 0)
        #expect(try String(contentsOfFile: fromFile, encoding: .utf8) == String(contentsOfFile: csv, encoding: .utf8))

        let missing = try run(Paths.tscope, ["export", "--csv", csv, server.url + "?session=99"])
        #expect(missing.status == 1 && missing.stderr.contains("no session 99"), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }

    /// Two sensors and three sessions share one schema; the migrations run once.
    @Test func sensorsAndSessionsShareOneDatabase() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        for (device, label) in [("demo", "a"), ("demo-rtlsdr", "b"), ("demo", "c")] {
            let record = try run(Paths.tscope, ["record", "--device", device, "--duration", "1", "--label", label,
                                                "--band", "88:108", "--output", server.url])
            #expect(record.status == 0, "\(device): \(record.stderr)")
        }
        #expect(try server.query("SELECT count(*) FROM sensors") == "2")
        #expect(try server.query("SELECT string_agg(label, ',' ORDER BY id) FROM sessions") == "a,b,c")
        #expect(try server.query("SELECT max(version) FROM tscope_schema") == "2")
        #expect(try server.query("SELECT count(*) FROM tscope_schema") == "2")
        // layout 2 keeps each frame's levels as real[] too, the same values as the bytes
        #expect(try server.query("SELECT bool_and(power_db = tscope_power_db(power)) FROM frames") == "t")
        #expect(try server.query("SELECT bool_and(frames > 0) FROM sessions") == "t")
    }

    /// The server crashes mid-recording and comes back: frames wait in
    /// memory and arrive; none is lost. Gone for good: one line and exit 1,
    /// what was committed kept.
    @Test func aLostServerIsWaitedForThenReportedWithoutLosingFrames() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let recording = try BackgroundTscope(["record", "--device", "demo", "--duration", "6", "--band", "430:440",
                                              "--output", server.url], stderr: .keep)
        usleep(2_000_000)
        server.stop(immediate: true)
        usleep(1_500_000)
        try server.start()
        let (status, stderr) = recording.waitForExit()
        #expect(status == 0, "\(stderr)")
        let frames = try #require(Int(try server.query("SELECT frames FROM sessions WHERE id = 1")))
        #expect(try server.query("SELECT count(*) FROM frames") == "\(frames)")
        // 6 s at 10 frames/s, the outage included
        #expect(frames >= 50, "\(frames) frames")
        let gaps = try server.query("SELECT max(d) FROM (SELECT \"timestamp\" - lag(\"timestamp\") OVER (ORDER BY \"timestamp\") AS d FROM frames) t")
        #expect((Double(gaps) ?? 99) < 0.5, "largest step between stored frames: \(gaps) s")

        let gone = try BackgroundTscope(["record", "--device", "demo", "--duration", "4", "--band", "430:440",
                                         "--output", server.url], stderr: .keep)
        // the crash comes once the new session has committed frames (however long a loaded machine takes to start)
        let committed = "SELECT count(*) FROM frames WHERE session_id = (SELECT max(id) FROM sessions WHERE id > 1)"
        PostgresServer.wait(seconds: 20) { (Int((try? server.query(committed)) ?? "") ?? 0) == 0 }
        server.stop(immediate: true)
        let (goneStatus, goneText) = gone.waitForExit()
        #expect(goneStatus == 1, "\(goneText)")
        #expect(goneText.contains("not stored") && goneText.contains(server.url), "\(goneText)")
        try server.start()
        // the newest session (after a crash a sequence may skip ids)
        let last = try server.query("SELECT max(id) FROM sessions")
        let kept = try #require(Int(try server.query("SELECT frames FROM sessions WHERE id = \(last)")))
        let rows = try server.query("SELECT count(*) FROM frames WHERE session_id = \(last)")
        #expect(kept > 0 && rows == "\(kept)")
    }

    /// The viewer's r records into the database given as --record-dir.
    @Test func theViewerRecordsIntoPostgreSQL() throws {
        let tmux = try #require(try TmuxSession(width: 140, height: 40), "Tools/install-deps --test installs tmux")
        let server = try PostgresServer()
        defer { server.remove() }
        try tmux.type("\(Paths.tscope.path) watch --device demo --record-dir \(server.url) --label viewer; "
            + "echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("DEMO", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        try tmux.keys("r")
        #expect(tmux.waitFor("● REC 00:0", timeoutSeconds: 5) != nil, "\(tmux.screen())")
        usleep(2_000_000)
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 15) != nil, "\(tmux.screen())")
        #expect(try server.query("SELECT label FROM sessions") == "viewer")
        let frames = try #require(Int(try server.query("SELECT frames FROM sessions")))
        let rows = try server.query("SELECT count(*) FROM frames")
        #expect(frames >= 5 && rows == "\(frames)")
        #expect(try server.query("SELECT stopped_at IS NOT NULL FROM sessions") == "t")
    }

    /// `replay --follow` of a session a recorder is writing into the
    /// database: frames arrive live; a stopped recorder is a stall on the
    /// status line until it goes on.
    @Test func aSessionBeingRecordedIsFollowedLive() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let recorder = try BackgroundTscope(["record", "--device", "demo", "--duration", "60", "--label", "live",
                                             "--output", server.url])
        defer { recorder.stop() }
        let ready = Date().addingTimeInterval(20)
        while (Int((try? server.query("SELECT count(*) FROM frames")) ?? "") ?? 0) < 5, Date() < ready { usleep(100_000) }
        let tmux = try #require(try TmuxSession(width: 200, height: 40), "Tools/install-deps --test installs tmux")
        try tmux.type("\(Paths.tscope.path) replay --follow '\(server.url)?label=live'; echo \"STAT\"\"US=$?\"")
        #expect(tmux.waitFor("recording session 1", timeoutSeconds: 20) != nil, "\(tmux.screen())")
        // live frames: the frame rate on the status line is above zero
        let live = Date().addingTimeInterval(10)
        while Date() < live {
            if let line = tmux.screen().split(separator: "\n").first, line.contains(" fps"), !line.contains("│ 0 fps") { break }
            usleep(200_000)
        }
        let status = String(tmux.screen().split(separator: "\n").first ?? "")
        #expect(status.contains(" fps") && !status.contains("│ 0 fps"), "\(status)")
        recorder.pause()
        #expect(tmux.waitFor("reconnecting… (no data from recording session 1 for 5 s", timeoutSeconds: 15) != nil,
                "\(tmux.screen())")
        recorder.resume()
        #expect(tmux.waitForAbsence(of: "reconnecting", timeoutSeconds: 20), "\(tmux.screen())")
        try tmux.keys("q")
        #expect(tmux.waitFor("STATUS=0", timeoutSeconds: 10) != nil, "\(tmux.screen())")
    }
}
#endif
