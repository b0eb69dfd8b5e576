#if SensorLink
import Capture
import PostgresNIO

/// One sensor of a fleet's store, as `sensor=` or `sessions=all` chose it.
public struct PostgresSensor: Sendable {
    public var id: Int64
    public var serial: String
    public var device: String
    /// its sessions, oldest first
    public var sessions: [Int64]
    /// the newest session's analyzer settings (which say whether levels are dB or dBm)
    public var gains: String?
    /// frames in the time limits
    public var frames: Int
    /// the bin grids of those frames, the first sweep's first
    public var grids: [PostgresFrameGrid]

    /// how output names it: the serial, or the device for a sensor without one
    public var name: String { serial.isEmpty ? device : serial }
}

/// Where a frame's bins lie.
public struct PostgresFrameGrid: Sendable, Equatable {
    /// lower edge of the first bin [Hz]
    public var startHz: Double
    public var binWidthHz: Double
    public var binCount: Int
}

/// What the server counts: which bins make each channel and the threshold.
/// Made by the caller from the same rules it counts with in-process, so the
/// server does only the per-bin arithmetic.
public struct PostgresOccupancyPlan: Sendable {
    public enum Channels: Sendable {
        /// channel c is bin `first + c` (0-based) of every frame, its level the bin's value
        case bins(first: Int, count: Int)
        /// channel `channels[i]` holds bin `bins[i]` (0-based) with `weights[i]` (> 0): its level is
        /// 10·log₁₀ Σ weight · 10^(bin/10) over its bins that are not NaN [dB]
        case integrated(bins: [Int], channels: [Int], weights: [Double])
    }

    public var channels: Channels
    /// a fixed threshold [dB, the frames' unit]: occupied at or above it
    public var thresholdDB: Double
    /// integration period [s], periods numbered ⌊t / interval⌋ (UTC-aligned); nil: one period
    public var intervalSeconds: Double?

    public init(channels: Channels, thresholdDB: Double, intervalSeconds: Double?) {
        self.channels = channels
        self.thresholdDB = thresholdDB
        self.intervalSeconds = intervalSeconds
    }
}

/// The server's counts for one sensor: per period its sweeps and time span,
/// per period and channel its samples and occupied samples.
public struct PostgresOccupancyCounts: Sendable {
    public struct Period: Sendable {
        /// ⌊t / interval⌋, 0 without an interval
        public var index: Int64
        public var sweeps: Int
        /// first and last frame's time [s since the Unix epoch]
        public var first: Double
        public var last: Double
    }

    public struct Cell: Sendable {
        public var period: Int64
        public var channel: Int
        /// frames in which the channel had a value (not NaN)
        public var samples: Int
        public var occupied: Int
    }

    public var periods: [Period] = []
    public var cells: [Cell] = []
}

/// Occupancy counted inside PostgreSQL over many sessions (`sensor=`,
/// `sessions=all`): the frames never leave the server, only one row per
/// period and channel does.
///
/// How the server reads the levels: `frames.power_db` (`real[]`, layout 2),
/// which `unnest … WITH ORDINALITY` walks in C; frames stored before layout
/// 2 are decoded by `tscope_power_db(power)` in SQL, about 16 times slower
/// (the numbers are in `PostgresSchema`). The arithmetic is the in-process
/// counter's, operation for operation in float8 (a float4 widened exactly,
/// `power(10, v / 10)` and `10 * log(p)` calling the same libm as Swift), so
/// the counts are the same: NaN bins are missing (PostgreSQL orders NaN above
/// every number, so it is excluded by name), a channel's bins are summed in
/// bin order (each frame's `unnest` yields them in order; the aggregate takes
/// rows in that order).
///
/// Speed (Benchmarks/README.md): the server counts 4.3 M bins/s per bin and
/// 1.1 M for integrated channels (2 parallel workers, 2 cores), against 17.7
/// and 12.0 M pulled into tscope over loopback; it is the faster choice
/// where frames would cross a link slower than about 70 MB/s.
public final class PostgresOccupancyStore {
    public let location: PostgresLocation
    private let link: PostgresLink

    public init(location: PostgresLocation) throws(CaptureError) {
        self.location = location
        link = try PostgresLink(location)
        do {
            // a store of layout 1 gains `power_db` and the decode function (its frames keep working)
            try PostgresSchema.migrate(link)
        } catch {
            link.close()
            throw error
        }
    }

    deinit { link.close() }

    /// The sensors the location chooses, with their frames in ``from ..< to``
    /// [s since the Unix epoch]; an unknown sensor, a store without sessions or without frames in the
    /// limits is an error naming it. Sensors without frames in the limits are left out.
    public func sensors(from: Double, to: Double) throws(CaptureError) -> [PostgresSensor] {
        var bindings = PostgresBindings()
        bindings.append(location.sensor)
        let rows = try link.query(PostgresQuery(unsafeSQL: """
            SELECT e.id, e.serial, e.device, array_agg(s.id ORDER BY s.started_at, s.id),
                (array_agg(s.gains ORDER BY s.started_at DESC, s.id DESC))[1]
            FROM sensors e JOIN sessions s ON s.sensor_id = e.id
            WHERE $1::text IS NULL OR e.serial = $1 OR (e.serial = '' AND e.device = $1)
            GROUP BY e.id ORDER BY e.serial, e.device, e.id
            """, binds: bindings))
        var sensors: [PostgresSensor] = []
        for row in rows {
            do {
                let (id, serial, device, sessions, gains) = try row.decode((Int64, String, String, [Int64], String?).self)
                sensors.append(PostgresSensor(id: id, serial: serial, device: device, sessions: sessions, gains: gains,
                                              frames: 0, grids: []))
            } catch {
                throw CaptureError(file: location.name, "unexpected sensor row: \(error)")
            }
        }
        guard !sensors.isEmpty else {
            throw CaptureError(file: location.name, location.sensor.map { "no sensor \($0) in this store" + knownSensors() }
                ?? "no sessions in this store")
        }
        for index in sensors.indices {
            var bindings = PostgresBindings()
            bindings.append(sensors[index].sessions)
            bindings.append(from)
            bindings.append(to)
            for row in try link.query(PostgresQuery(unsafeSQL: """
                SELECT start_hz, bin_width_hz, bin_count, count(*) FROM frames
                WHERE session_id = ANY($1) AND "timestamp" >= $2 AND "timestamp" < $3
                GROUP BY start_hz, bin_width_hz, bin_count ORDER BY min("timestamp"), min(id)
                """, binds: bindings)) {
                guard let (start, width, bins, frames) = try? row.decode((Double, Double, Int32, Int64).self) else { continue }
                sensors[index].grids.append(PostgresFrameGrid(startHz: start, binWidthHz: width, binCount: Int(bins)))
                sensors[index].frames += Int(frames)
            }
        }
        sensors.removeAll { $0.frames == 0 }
        guard !sensors.isEmpty else {
            throw CaptureError(file: location.name, "no frames" + (location.sensor.map { " of sensor \($0)" } ?? "")
                + (from > -Double.infinity || to < Double.infinity ? " in the time limits given" : ""))
        }
        return sensors
    }

    /// ", known: a, b" (the first ten), for an unknown sensor's message
    private func knownSensors() -> String {
        let rows = (try? link.query("SELECT DISTINCT CASE WHEN serial = '' THEN device ELSE serial END AS name FROM sensors ORDER BY name LIMIT 10")) ?? []
        let names = rows.compactMap { try? $0.decode(String.self) }
        return names.isEmpty ? " (it has none)" : " (sensors: \(names.joined(separator: ", ")))"
    }

    /// A reader of the sensor's frames in ``from ..< to``, in time order over its sessions, on a link of its own
    /// (for counting in-process).
    public func reader(for sensor: PostgresSensor, from: Double, to: Double) throws(CaptureError) -> PostgresCaptureReader {
        var metadata = CaptureMetadata(format: "tscope")
        metadata.device = sensor.device
        metadata.serial = sensor.serial.isEmpty ? nil : sensor.serial
        metadata.gains = sensor.gains
        return PostgresCaptureReader(link: try PostgresLink(location), sessions: sensor.sessions, metadata: metadata,
                                     frames: sensor.frames, from: from, to: to)
    }

    /// Counts the sensor's frames in ``from ..< to`` inside the server.
    public func count(_ sensor: PostgresSensor, plan: PostgresOccupancyPlan, from: Double,
                      to: Double) throws(CaptureError) -> PostgresOccupancyCounts {
        // $1 sessions, $2 from, $3 to, $4 interval (0: none): the frames chosen and their period
        func frameBindings() -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(sensor.sessions)
            bindings.append(from)
            bindings.append(to)
            bindings.append(plan.intervalSeconds ?? 0)
            return bindings
        }
        let period = "CASE WHEN $4 > 0 THEN floor(\"timestamp\" / $4)::bigint ELSE 0 END"
        let chosen = "session_id = ANY($1) AND \"timestamp\" >= $2 AND \"timestamp\" < $3"
        var counts = PostgresOccupancyCounts()
        for row in try link.query(PostgresQuery(unsafeSQL: """
            SELECT \(period) AS p, count(*), min("timestamp"), max("timestamp") FROM frames WHERE \(chosen)
            GROUP BY p ORDER BY p
            """, binds: frameBindings())) {
            guard let (index, sweeps, first, last) = try? row.decode((Int64, Int64, Double, Double).self) else { continue }
            counts.periods.append(.init(index: index, sweeps: Int(sweeps), first: first, last: last))
        }
        // the frames with their levels as real[] (decoded in SQL where stored before layout 2)
        let frames = """
            SELECT id, \(period) AS p, coalesce(power_db, tscope_power_db(power)) AS levels FROM frames WHERE \(chosen)
            """
        var bindings = frameBindings()
        bindings.append(plan.thresholdDB)
        let sql: String
        switch plan.channels {
        case .bins(let first, let count):
            bindings.append(Int64(first))
            bindings.append(Int64(count))
            sql = """
                SELECT f.p, u.bin - $6 - 1, count(*) FILTER (WHERE u.v <> 'NaN'::real),
                    count(*) FILTER (WHERE u.v <> 'NaN'::real AND u.v >= $5)
                FROM (\(frames)) f, unnest(f.levels) WITH ORDINALITY AS u(v, bin)
                WHERE u.bin > $6 AND u.bin <= $6 + $7
                GROUP BY 1, 2
                """
        case .integrated(let bins, let channels, let weights):
            bindings.append(bins.map { Int64($0 + 1) })
            bindings.append(channels.map { Int64($0) })
            bindings.append(weights)
            // per frame and channel its integrated power [linear], NULL when every bin was NaN; then per period
            sql = """
                WITH map AS (SELECT * FROM unnest($6::bigint[], $7::bigint[], $8::float8[]) AS m(bin, channel, weight)),
                levels AS (
                    SELECT f.id, f.p, m.channel,
                        sum(m.weight * power(10::float8, u.v::float8 / 10)) FILTER (WHERE u.v <> 'NaN'::real) AS linear
                    FROM (\(frames)) f, unnest(f.levels) WITH ORDINALITY AS u(v, bin) JOIN map m ON m.bin = u.bin
                    GROUP BY f.id, f.p, m.channel)
                SELECT p, channel, count(linear), count(*) FILTER (WHERE linear IS NOT NULL
                    AND (CASE WHEN linear > 0 THEN 10 * log(linear) ELSE '-Infinity'::float8 END) >= $5)
                FROM levels GROUP BY 1, 2
                """
        }
        for row in try link.query(PostgresQuery(unsafeSQL: sql, binds: bindings)) {
            guard let (index, channel, samples, occupied) = try? row.decode((Int64, Int64, Int64, Int64).self) else { continue }
            counts.cells.append(.init(period: index, channel: Int(channel), samples: Int(samples), occupied: Int(occupied)))
        }
        return counts
    }
}
#endif
