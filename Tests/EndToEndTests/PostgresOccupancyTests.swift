#if SensorLink
import Foundation
import Testing

/// `tscope occupancy` over a fleet's PostgreSQL store (`?sensor=SERIAL`,
/// `?sessions=all`), counted inside the server, on the real NHK-FM Osaka
/// rtl_power capture written into PostgreSQL as two sensors: OSAKA-A its
/// 299 sweeps in two sessions (layout 2: `power_db` filled), OSAKA-B the
/// same times with the sweeps in reverse order and every tenth sweep's bin 3
/// NaN, stored before layout 2 (the store made layout 1, `power` only), so
/// the count upgrades the store and decodes those frames in SQL. The
/// server's counts must equal tscope's own (`--count-in-process`), line for
/// line, and a count made here from the file's text.
@Suite(.serialized) struct PostgresOccupancyTests {
    /// the capture's sweeps: Unix time (the file is UTC+9) and the 128 bin values
    static func sweeps() throws -> [(time: Double, values: [Float])] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return try OccupancyCommandTests.sweeps().enumerated().map { index, sweep in
            let line = try String(contentsOfFile: osakaCapture, encoding: .utf8).split(separator: "\n")[0]
            let day = line.split(separator: ",")[0].split(separator: "-").map { Int($0)! }
            let clock = sweep.time.split(separator: ":").map { Int($0)! }
            let date = calendar.date(from: DateComponents(year: day[0], month: day[1], day: day[2], hour: clock[0],
                                                          minute: clock[1], second: clock[2]))!
            return (date.timeIntervalSince1970 - 9 * 3600, sweep.values)
        }
    }

    /// OSAKA-B's values at sweep `index`: the sweeps reversed, bin 3 NaN in every tenth
    static func reversed(_ sweeps: [(time: Double, values: [Float])], _ index: Int) -> [Float] {
        var values = sweeps[sweeps.count - 1 - index].values
        if index % 10 == 0 { values[3] = .nan }
        return values
    }

    /// Inserts frames as the writer stores them (little-endian binary32 in `power`; `power_db` too unless old).
    static func insert(_ server: PostgresServer, session: Int, frames: [(time: Double, values: [Float])], old: Bool) throws {
        for chunk in stride(from: 0, to: frames.count, by: 25) {
            let rows = frames[chunk..<min(chunk + 25, frames.count)].map { frame in
                let hex = frame.values.map { value in
                    withUnsafeBytes(of: value.bitPattern.littleEndian) { $0.map { String(format: "%02x", $0) }.joined() }
                }.joined()
                let array = "'{" + frame.values.map { $0.isNaN ? "NaN" : "\($0)" }.joined(separator: ",") + "}'"
                return "(\(session), \(frame.time), \(88_050_000 - 781.25 / 2), 781.25, 128, '\\x\(hex)'"
                    + (old ? ")" : ", \(array))")
            }
            _ = try server.query("INSERT INTO frames (session_id, \"timestamp\", start_hz, bin_width_hz, bin_count, power"
                + (old ? "" : ", power_db") + ") VALUES " + rows.joined(separator: ", "))
        }
    }

    /// A store with OSAKA-A (layout 2, sessions 1 and 2) and OSAKA-B (stored at layout 1, session 3).
    static func store() throws -> PostgresServer {
        let server = try PostgresServer()
        // a short recording makes the tables (the newest layout); then the store is taken back to layout 1
        let record = try run(Paths.tscope, ["record", "--device", "demo", "--duration", "0.5", "--output", server.url])
        #expect(record.status == 0, "\(record.stderr)")
        _ = try server.query("DELETE FROM frames; DELETE FROM gaps; DELETE FROM sessions; DELETE FROM sensors; "
            + "ALTER TABLE frames DROP COLUMN power_db; DROP FUNCTION tscope_power_db(bytea); DROP FUNCTION tscope_float32(integer); "
            + "DELETE FROM tscope_schema WHERE version > 1; "
            + "INSERT INTO sensors (id, serial, device) VALUES (1, 'OSAKA-A', 'rtl_power'), (2, 'OSAKA-B', 'rtl_power'); "
            + "INSERT INTO sessions (id, sensor_id, started_at, label) VALUES (1, 1, 1, 'a1'), (2, 1, 2, 'a2'), (3, 2, 1, 'b')")
        let sweeps = try sweeps()
        try insert(server, session: 3, frames: sweeps.indices.map { (sweeps[$0].time, reversed(sweeps, $0)) }, old: true)
        return server
    }

    func occupancy(_ url: String, _ arguments: [String]) throws -> ProcessResult {
        try run(Paths.tscope, ["occupancy", "--input", url] + arguments)
    }

    func json(_ result: ProcessResult) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func theServerCountsAsTscopeAndAsTheFileSays() throws {
        let server = try Self.store()
        defer { server.remove() }
        let sweeps = try Self.sweeps()
        // the first count upgrades the layout-1 store; OSAKA-B's frames are decoded in SQL
        let upgraded = try json(try occupancy(server.url + "?sensor=OSAKA-B", ["--threshold", "-26", "--json"]))
        #expect(try server.query("SELECT max(version) FROM tscope_schema") == "2")
        let binsB = upgraded.filter { $0["start_hz"] != nil && $0["sensor"] as? String == "OSAKA-B" }
        // one sensor: its total over all sensors is its own
        #expect(upgraded.filter { $0["sensor"] as? String == "*" }.count == 129)
        try #require(binsB.count == 128)
        for (bin, channel) in binsB.enumerated() {
            let values = sweeps.indices.map { Self.reversed(sweeps, $0)[bin] }
            #expect(channel["sensor"] as? String == "OSAKA-B")
            #expect(channel["occupied"] as? Int == values.filter { Double($0) >= -26 }.count, "bin \(bin)")
            #expect(channel["samples"] as? Int == values.filter { !$0.isNaN }.count, "bin \(bin)")
            #expect(channel["missing"] as? Int == values.filter(\.isNaN).count, "bin \(bin)")
        }
        // OSAKA-A in two sessions, stored at layout 2
        try Self.insert(server, session: 1, frames: Array(sweeps[..<150]), old: false)
        try Self.insert(server, session: 2, frames: Array(sweeps[150...]), old: false)
        _ = try server.query("UPDATE sessions SET frames = (SELECT count(*) FROM frames f WHERE f.session_id = sessions.id)")

        let all = server.url + "?sessions=all"
        // each bin against a fixed level, by the minute; 12.5 kHz channels integrated; text
        for options in [["--threshold", "-26", "--interval", "1m", "--json"],
                        ["--threshold", "-14.5", "--channel-width", "12.5k", "--csv"],
                        ["--threshold", "-20", "--channel-width", "50k", "--interval", "2m"]] {
            let inside = try occupancy(all, options)
            let here = try occupancy(all, options + ["--count-in-process"])
            #expect(inside.status == 0 && here.status == 0, "\(options): \(inside.stderr) \(here.stderr)")
            #expect(!inside.stderr.contains("counting in tscope"), "\(options): \(inside.stderr)")
            #expect(here.stderr.contains("note: counting in tscope, every frame read from the store: --count-in-process"))
            #expect(inside.stdoutText == here.stdoutText, "\(options)")
            #expect(inside.stdoutText.split(separator: "\n").count > 10, "\(options): \(inside.stdoutText)")
        }

        // per minute, against the file: each sensor's bin 64 and the total's band occupancy
        let lines = try json(try occupancy(all, ["--threshold", "-26", "--interval", "1m", "--json"]))
        for (index, sweep) in sweeps.enumerated() where index == 0 || Int(sweeps[index - 1].time / 60) != Int(sweep.time / 60) {
            let minute = sweeps.indices.filter { Int(sweeps[$0].time / 60) == Int(sweep.time / 60) }
            let start = Double(Int(sweep.time / 60) * 60)
            let a = minute.map { sweeps[$0].values }, b = minute.map { Self.reversed(sweeps, $0) }
            func line(_ sensor: String, hz: Double?) -> [String: Any]? {
                lines.first { $0["sensor"] as? String == sensor && ($0["start_hz"] as? Double) == hz
                    && ($0["period_start"] as? String)?.hasPrefix(isoMinute(start)) == true
                    && (hz != nil || $0["band_occupancy"] != nil) }
            }
            let bin64 = 88_050_000 + 63.5 * 781.25
            #expect(line("OSAKA-A", hz: bin64)?["occupied"] as? Int == a.filter { Double($0[64]) >= -26 }.count)
            #expect(line("OSAKA-B", hz: bin64)?["occupied"] as? Int == b.filter { Double($0[64]) >= -26 }.count)
            #expect(line("*", hz: bin64)?["samples"] as? Int == 2 * minute.count)
            let occupied = (a + b).reduce(0) { $0 + $1.filter { Double($0) >= -26 }.count }
            let samples = (a + b).reduce(0) { $0 + $1.filter { !$0.isNaN }.count }
            let band = try #require(line("*", hz: nil), "\(start)")
            #expect(band["sweeps"] as? Int == 2 * minute.count)
            #expect(abs((band["band_occupancy"] as? Double ?? -1) - Double(occupied) / Double(samples)) < 1e-6)
        }

        // 12.5 kHz channels (16 bins, linear sum) over the whole run, in all sensors
        let wide = try json(try occupancy(all, ["--threshold", "-14.5", "--channel-width", "12.5k", "--json"]))
        let totals = wide.filter { $0["sensor"] as? String == "*" && $0["start_hz"] != nil }
        try #require(totals.count == 8)
        for (index, channel) in totals.enumerated() {
            let bins = index * 16 ..< index * 16 + 16
            let levels = sweeps.map { OccupancyCommandTests.channelLevel($0.values, bins) }
                + sweeps.indices.map { i in
                    // OSAKA-B's NaN bin is left out of the sum
                    let values = Self.reversed(sweeps, i)
                    return 10 * log10(values[bins].filter { !$0.isNaN }.reduce(0.0) { $0 + pow(10, Double($1) / 10) })
                }
            #expect(channel["occupied"] as? Int == levels.filter { $0 >= -14.5 }.count, "channel \(index)")
            #expect(channel["samples"] as? Int == 2 * 299)
        }
    }

    @Test func autoThresholdFallsBackAndTimeLimitsAndBadInputAreOneLine() throws {
        let server = try Self.store()
        defer { server.remove() }
        let sweeps = try Self.sweeps()
        let a = server.url + "?sensor=OSAKA-B"
        // the noise-riding threshold is counted in tscope, with a note
        let auto = try occupancy(a, ["--threshold", "auto+2.5", "--json"])
        #expect(auto.stderr.contains("note: counting in tscope, every frame read from the store: --threshold auto"),
                "\(auto.stderr)")
        let channels = try json(auto).filter { $0["start_hz"] != nil && $0["sensor"] as? String == "OSAKA-B" }
        try #require(channels.count == 128)
        for (bin, channel) in channels.enumerated() where bin != 3 {
            let occupied = sweeps.indices.filter { i in
                let values = Self.reversed(sweeps, i)
                return Double(values[bin]) >= OccupancyCommandTests.noiseFloor(values.filter { !$0.isNaN }) + 2.5
            }.count
            #expect(channel["occupied"] as? Int == occupied, "bin \(bin)")
        }
        // --from/--to: the sweeps from the 100th to before the 200th, inside the server and in tscope alike
        let limits = ["--from", "\(sweeps[100].time)", "--to", "\(sweeps[200].time)", "--threshold", "-26", "--csv"]
        let limited = try occupancy(a, limits)
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(limited.stdoutText == (try occupancy(a, limits + ["--count-in-process"])).stdoutText)
        // sensor,period_start,period_end,start_hz,stop_hz,samples,occupied,missing,…: 100 sweeps per channel
        #expect(limited.stdoutText.split(separator: "\n").dropFirst().allSatisfy {
            let fields = $0.split(separator: ",", omittingEmptySubsequences: false)
            return Int(fields[5])! + Int(fields[7])! == 100
        }, "100 sweeps per channel: \(limited.stdoutText.prefix(300))")

        let cases: [(String, [String], String)] = [
            (server.url + "?sensor=NOPE", [], "no sensor NOPE in this store (sensors: OSAKA-A, OSAKA-B)"),
            (server.url + "?sessions=some", [], "sessions=some: expected sessions=all"),
            (server.url + "?sensor=OSAKA-B&session=3", [], "give one choice of sessions"),
            (a, ["--from", "2030-01-01"], "no frames of sensor OSAKA-B in the time limits given"),
            (a, ["--channel-width", "1M"], "no channel to count"),
        ]
        for (url, arguments, message) in cases {
            let result = try occupancy(url, ["--threshold", "-20"] + arguments)
            #expect(result.status != 0, "\(url) \(arguments)")
            #expect(result.stderr.contains(message), "\(url) \(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        }
        let unreadable = try occupancy(a, ["--threshold", "-20", "--from", "yesterday"])
        #expect(unreadable.status == 64 && unreadable.stderr.contains("--from"), "\(unreadable.stderr)")
        let export = try run(Paths.tscope, ["export", "--csv", "/dev/null", server.url + "?sessions=all"])
        #expect(export.status == 1 && export.stderr.contains("only occupancy counts over"), "\(export.stderr)")
    }

    func isoMinute(_ time: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return String(formatter.string(from: Date(timeIntervalSince1970: time)).prefix(16))
    }
}
#endif
