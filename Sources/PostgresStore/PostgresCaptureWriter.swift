#if SensorLink
import Capture
import Foundation
import NIOCore
import PostgresNIO
import Signals
import ThreadKit

/// A recording session in a PostgreSQL capture store: the sensor (serial and
/// device) and the session row are written at open; frames are buffered and
/// inserted in one transaction per commit (at least once per commit
/// interval, at most a second by default). A lost connection is retried
/// once a second while frames wait in memory, up to `bufferLimitBytes`; past
/// that the recording ends with one line saying so — every frame committed
/// before stays, none is dropped silently.
public final class PostgresCaptureWriter: CaptureSessionStore {
    /// frames waiting for a commit, at most this many bytes of values (64 MiB)
    public static let bufferLimitBytes = 64 << 20
    /// most rows per INSERT statement (7 parameters each; PostgreSQL takes up to 65 535)
    static let rowsPerStatement = 1_000

    private struct Pending {
        var timestamp: Double
        var startHz: Double
        var binWidthHz: Double
        var binCount: Int
        var power: ByteBuffer
        /// the same values for `power_db` (layout 2), which occupancy counts inside the server
        var powerDB: [Float]
    }

    private struct State {
        var link: PostgresLink?
        var pending: [Pending] = []
        var pendingBytes = 0
        var pendingGaps: [(from: Double, to: Double, reason: String)] = []
        var framesWritten = 0
        var framesStored = 0
        var failure: CaptureError?
        var lastCommit: Double
        var lastAttempt = 0.0
        /// why the connection went, while it is gone
        var lost: String?
    }

    public let location: PostgresLocation
    public let sessionID: Int64
    public let path: String
    private let commitInterval: Double
    /// times the commit cadence and the wait for a lost connection at the end
    private let clock: any MonotonicClock
    private let state: Guarded<State>

    /// Connects, brings the schema up to date, and opens the session.
    public init(location: PostgresLocation, metadata: CaptureMetadata, session: CaptureSessionInfo,
                commitInterval: Double = 0.5, clock: any MonotonicClock = SystemClock())
        throws(CaptureError) {
        self.location = location
        self.commitInterval = commitInterval
        self.clock = clock
        let link = try PostgresLink(location)
        do {
            try PostgresSchema.migrate(link)
            let serial = metadata.serial ?? ""
            let device = metadata.device ?? "unknown"
            var sensorID: Int64 = 0
            for row in try link.query("""
                INSERT INTO sensors (serial, device) VALUES (\(serial), \(device))
                ON CONFLICT (serial, device) DO UPDATE SET device = EXCLUDED.device RETURNING id
                """) {
                sensorID = (try? row.decode(Int64.self)) ?? 0
            }
            var id: Int64 = 0
            for row in try link.query("""
                INSERT INTO sessions (sensor_id, started_at, label, operator, band_low_hz, band_high_hz, bin_width_hz,
                    requested_frame_rate, gains, tscope_version, utc_offset_seconds)
                VALUES (\(sensorID), \(session.startedAt), \(session.label ?? metadata.label), \(session.operatorName ?? metadata.operatorName),
                    \(session.band?.lowerHz), \(session.band?.upperHz), \(session.binWidthHz ?? metadata.binWidthHz),
                    \(session.requestedFrameRate), \(metadata.gains), \(metadata.writerVersion), \(metadata.utcOffsetSeconds))
                RETURNING id
                """) {
                id = (try? row.decode(Int64.self)) ?? 0
            }
            guard id > 0 else { throw CaptureError(file: location.name, "the server returned no session id") }
            sessionID = id
        } catch let error as CaptureError {
            link.close()
            throw error
        } catch {
            link.close()
            throw CaptureError(file: location.name, "\(error)")
        }
        path = location.name + "?session=\(sessionID)"
        state = Guarded(State(link: link, lastCommit: clock.now))
    }

    public var framesWritten: Int { state.withLock { $0.framesWritten } }
    public var framesStored: Int { state.withLock { $0.framesStored } }
    public var failure: CaptureError? { state.withLock { $0.failure } }

    public func write(_ frame: SpectrumFrame) throws {
        var power = ByteBuffer()
        power.reserveCapacity(frame.powerDB.count * 4)
        for value in frame.powerDB { power.writeInteger(value.bitPattern, endianness: .little) }
        let entry = Pending(timestamp: frame.timestamp, startHz: frame.startHz, binWidthHz: frame.binWidthHz,
                            binCount: frame.powerDB.count, power: power, powerDB: frame.powerDB)
        try state.withLock { state throws(CaptureError) in
            if let failure = state.failure { throw failure }
            state.pending.append(entry)
            state.pendingBytes += entry.binCount * 4
            state.framesWritten += 1
            try Self.commitIfDue(&state, now: clock.now, interval: commitInterval, location: location, sessionID: sessionID)
        }
    }

    public func writeGap(from: Double, to: Double, reason: String) throws {
        try state.withLock { state throws(CaptureError) in
            if let failure = state.failure { throw failure }
            state.pendingGaps.append((from, to, reason))
        }
    }

    public func commitIfDue() throws {
        try state.withLock { state throws(CaptureError) in
            if let failure = state.failure { throw failure }
            try Self.commitIfDue(&state, now: clock.now, interval: commitInterval, location: location, sessionID: sessionID)
        }
    }

    public func finish(outcome: CaptureSessionOutcome?) throws {
        try state.withLock { state throws(CaptureError) in
            defer {
                state.link?.close()
                state.link = nil
            }
            if let failure = state.failure { throw failure }
            // what is buffered gets up to five seconds of reconnecting
            let deadline = clock.now + 5
            while true {
                state.lastAttempt = 0
                try Self.commit(&state, now: clock.now, location: location, sessionID: sessionID)
                if state.lost == nil || clock.now >= deadline { break }
                // a reconnect attempt every 0.2 s [s, on the clock]; nothing rings this doorbell
                clock.wait(until: clock.now + 0.2, orUntilRung: Doorbell())
            }
            if let lost = state.lost {
                let failure = CaptureError(file: path, "\(lost); \(state.pending.count) frames not stored")
                state.failure = failure
                throw failure
            }
            guard let outcome, let link = state.link else { return }
            try link.query("""
                UPDATE sessions SET stopped_at = \(outcome.stoppedAt), achieved_frame_rate = \(outcome.achievedFrameRate),
                    dropped_blocks = \(outcome.droppedBlocks), dropped_frames = \(outcome.droppedFrames),
                    bad_blocks = \(outcome.badBlocks)
                WHERE id = \(sessionID)
                """)
        }
    }

    public func abandon() {
        state.withLock { state in
            state.link?.close()
            state.link = nil
        }
    }

    private static func commitIfDue(_ state: inout State, now: Double, interval: Double, location: PostgresLocation,
                                    sessionID: Int64) throws(CaptureError) {
        guard now - state.lastCommit >= interval else { return }
        try commit(&state, now: now, location: location, sessionID: sessionID)
    }

    /// Inserts what is pending in one transaction; a connection lost keeps
    /// it pending (the transaction rolled back with the connection), retried
    /// at most once a second, until the buffer limit ends the recording.
    private static func commit(_ state: inout State, now: Double, location: PostgresLocation,
                               sessionID: Int64) throws(CaptureError) {
        state.lastCommit = now
        if state.link == nil || state.link?.isClosed == true {
            guard now - state.lastAttempt >= 1 else { return try checkBuffer(state, location: location) }
            state.lastAttempt = now
            state.link?.close()
            state.link = nil
            do {
                state.link = try PostgresLink(location)
            } catch {
                state.lost = error.detail
                return try checkBuffer(state, location: location)
            }
        }
        guard let link = state.link, !state.pending.isEmpty || !state.pendingGaps.isEmpty else {
            state.lost = nil
            return
        }
        do {
            try link.query("BEGIN")
            var start = 0
            while start < state.pending.count {
                let rows = state.pending[start..<min(start + rowsPerStatement, state.pending.count)]
                var bindings = PostgresBindings(capacity: rows.count * 7)
                var sql = "INSERT INTO frames (session_id, \"timestamp\", start_hz, bin_width_hz, bin_count, power, power_db) VALUES "
                for (index, row) in rows.enumerated() {
                    let base = index * 7
                    sql += index == 0 ? "" : ", "
                    sql += "($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4), $\(base + 5), $\(base + 6), $\(base + 7))"
                    bindings.append(sessionID)
                    bindings.append(row.timestamp)
                    bindings.append(row.startHz)
                    bindings.append(row.binWidthHz)
                    bindings.append(Int32(row.binCount))
                    bindings.append(row.power)
                    bindings.append(row.powerDB)
                }
                try link.query(PostgresQuery(unsafeSQL: sql, binds: bindings))
                start += rows.count
            }
            for gap in state.pendingGaps {
                try link.query("""
                    INSERT INTO gaps (session_id, from_timestamp, to_timestamp, reason)
                    VALUES (\(sessionID), \(gap.from), \(gap.to), \(gap.reason))
                    """)
            }
            let stored = state.pending.count
            try link.query("UPDATE sessions SET frames = frames + \(stored) WHERE id = \(sessionID)")
            try link.query("COMMIT")
            state.framesStored += stored
            state.pending.removeAll(keepingCapacity: true)
            state.pendingBytes = 0
            state.pendingGaps.removeAll()
            state.lost = nil
        } catch {
            if link.isClosed {
                // the connection went: everything pending waits for the next one
                state.lost = error.detail
                state.lastAttempt = now
                link.close()
                state.link = nil
                return try checkBuffer(state, location: location)
            }
            _ = try? link.query("ROLLBACK")
            state.failure = error
            throw error
        }
    }

    /// While the connection is gone: past the buffer limit the recording ends.
    private static func checkBuffer(_ state: State, location: PostgresLocation) throws(CaptureError) {
        guard state.pendingBytes > bufferLimitBytes else { return }
        throw CaptureError(file: location.name, "\(state.lost ?? "connection lost") and \(state.pending.count) frames "
            + "(\(state.pendingBytes >> 20) MiB) waiting: the buffer is full; recording ended, the frames committed before are kept")
    }
}
#endif
