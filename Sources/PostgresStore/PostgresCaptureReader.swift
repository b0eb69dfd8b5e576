#if SensorLink
import Capture
import NIOCore
import PostgresNIO
import Signals

/// Reads one session of a PostgreSQL capture store in time order, a page of
/// frames at a time (keyset pagination on (timestamp, id): constant memory,
/// each page one index range scan). The session: `?session=ID`, the latest
/// with `?label=L`, else the latest of all.
public final class PostgresCaptureReader: SpectrumFrameReader {
    static let pageSize = 500

    public let metadata: CaptureMetadata
    public let sessionID: Int64
    /// the sessions read, in one time order: `sessionID` alone, or a sensor's for occupancy's in-process count
    private let sessionIDs: [Int64]
    /// only frames in from ..< to [s since the Unix epoch]
    private let timeLimits: (from: Double, to: Double)
    public private(set) var skipped = 0
    private let link: PostgresLink
    private let frameCount: Int
    private var read = 0
    private var page: [(id: Int64, timestamp: Double, startHz: Double, binWidthHz: Double, power: ByteBuffer)] = []
    private var pageIndex = 0
    private var after: (timestamp: Double, id: Int64)?
    private var exhausted = false
    /// a session still being recorded: the end of the frames is only the end for now
    private var following = false

    public init(location: PostgresLocation) throws(CaptureError) {
        guard !location.choosesManySessions else {
            throw CaptureError(file: location.name, "sensor= and sessions=all choose many sessions, which only "
                + "occupancy counts over: give session=ID or label=LABEL")
        }
        link = try PostgresLink(location)
        timeLimits = (-Double.infinity, Double.infinity)
        do {
            let rows: [PostgresRow]
            if let session = location.session {
                rows = try link.query(Self.sessionQuery(where: "s.id = \(session)"))
            } else if let label = location.label {
                rows = try link.query(Self.sessionQuery(whereLabel: label))
            } else {
                rows = try link.query(Self.sessionQuery(where: "true"))
            }
            guard let row = rows.first else {
                let which = location.session.map { "session \($0)" } ?? location.label.map { "a session labelled \($0)" } ?? "a session"
                throw CaptureError(file: location.name, "no \(which) in this store")
            }
            let (id, device, serial, label, operatorName, low, high, bin, gains, version, offset, frames) = try row.decode(
                (Int64, String, String, String?, String?, Double?, Double?, Double?, String?, String?, Int?, Int64).self)
            sessionID = id
            sessionIDs = [id]
            frameCount = Int(frames)
            var metadata = CaptureMetadata(format: "tscope")
            metadata.device = device
            metadata.serial = serial.isEmpty ? nil : serial
            metadata.label = label
            metadata.operatorName = operatorName
            if let low, let high { metadata.span = FrequencyRange(lowerHz: low, upperHz: high) }
            metadata.binWidthHz = bin
            metadata.gains = gains
            metadata.writerVersion = version
            metadata.utcOffsetSeconds = offset
            self.metadata = metadata
        } catch let error as CaptureError {
            link.close()
            throw error
        } catch {
            link.close()
            throw CaptureError(file: location.name, "unexpected session row: \(error)")
        }
    }

    /// Every frame of `sessions` in ``from ..< to``, in time order over all of them, on an open link (its own).
    init(link: PostgresLink, sessions: [Int64], metadata: CaptureMetadata, frames: Int, from: Double, to: Double) {
        self.link = link
        self.metadata = metadata
        sessionID = sessions.first ?? 0
        sessionIDs = sessions
        frameCount = frames
        timeLimits = (from, to)
    }

    deinit { link.close() }

    private static let sessionColumns = """
        SELECT s.id, e.device, e.serial, s.label, s.operator, s.band_low_hz, s.band_high_hz, s.bin_width_hz, s.gains,
            s.tscope_version, s.utc_offset_seconds, s.frames
        FROM sessions s JOIN sensors e ON e.id = s.sensor_id
        """

    private static func sessionQuery(where condition: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sessionColumns + " WHERE \(condition) ORDER BY s.started_at DESC, s.id DESC LIMIT 1")
    }

    private static func sessionQuery(whereLabel label: String) -> PostgresQuery {
        var bindings = PostgresBindings()
        bindings.append(label)
        return PostgresQuery(unsafeSQL: sessionColumns + " WHERE s.label = $1 ORDER BY s.started_at DESC, s.id DESC LIMIT 1",
                             binds: bindings)
    }

    public var progress: (done: Int, total: Int?) { (read, frameCount) }

    /// Follows a session still being recorded from after `timestamp` (nil:
    /// from its newest frame): `next` returns false while no newer frame is
    /// committed, and the next frames once the recorder commits them
    /// (`replay --follow`).
    public func follow(after timestamp: Double?) throws(CaptureError) {
        page.removeAll()
        pageIndex = 0
        following = true
        if let timestamp {
            after = (timestamp, Int64.max)
            return
        }
        var bindings = PostgresBindings()
        bindings.append(sessionID)
        let rows = try link.query(PostgresQuery(
            unsafeSQL: "SELECT \"timestamp\", id FROM frames WHERE session_id = $1 ORDER BY \"timestamp\" DESC, id DESC LIMIT 1",
            binds: bindings))
        if let row = rows.first, let (newest, id) = try? row.decode((Double, Int64).self) {
            after = (newest, id - 1)
        }
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        if pageIndex == page.count {
            guard !exhausted || following else { return false }
            try fetchPage()
            guard !page.isEmpty else { return false }
        }
        let row = page[pageIndex]
        pageIndex += 1
        read += 1
        frame.timestamp = row.timestamp
        frame.startHz = row.startHz
        frame.binWidthHz = row.binWidthHz
        frame.powerDB.removeAll(keepingCapacity: true)
        var power = row.power
        while let bits = power.readInteger(endianness: .little, as: UInt32.self) {
            frame.powerDB.append(Float(bitPattern: bits))
        }
        return true
    }

    private func fetchPage() throws(CaptureError) {
        var bindings = PostgresBindings()
        var sql = "SELECT id, \"timestamp\", start_hz, bin_width_hz, power FROM frames WHERE "
        if sessionIDs.count == 1 {
            bindings.append(sessionID)
            sql += "session_id = $1"
        } else {
            bindings.append(sessionIDs)
            sql += "session_id = ANY($1)"
        }
        if timeLimits.from > -Double.infinity || timeLimits.to < Double.infinity {
            bindings.append(timeLimits.from)
            bindings.append(timeLimits.to)
            sql += " AND \"timestamp\" >= $2 AND \"timestamp\" < $3"
        }
        if let after {
            bindings.append(after.timestamp)
            bindings.append(after.id)
            sql += " AND (\"timestamp\", id) > ($\(bindings.count - 1), $\(bindings.count))"
        }
        sql += " ORDER BY \"timestamp\", id LIMIT \(Self.pageSize)"
        let rows = try link.query(PostgresQuery(unsafeSQL: sql, binds: bindings))
        page.removeAll(keepingCapacity: true)
        pageIndex = 0
        for row in rows {
            do {
                let (id, timestamp, start, bin, power) = try row.decode((Int64, Double, Double, Double, ByteBuffer).self)
                page.append((id, timestamp, start, bin, power))
            } catch {
                skipped += 1
            }
        }
        if let last = page.last { after = (last.timestamp, last.id) }
        if rows.count < Self.pageSize { exhausted = true }
    }
}

/// Opens PostgreSQL stores where the capture code takes a path.
public enum PostgresCaptureStore {
    /// A recording's output: each session a new session in the database.
    public static func database(_ location: PostgresLocation) -> CaptureDatabase {
        CaptureDatabase(name: location.name) { metadata, session, commitInterval in
            try PostgresCaptureWriter(location: location, metadata: metadata, session: session,
                                      commitInterval: commitInterval)
        }
    }
}
#endif
