import Foundation
import GRDB
import Signals

/// Reads a capture store's frames in time order, with seeking by time.
///
/// Each `next` runs one indexed lookup for the frame after the last one
/// returned (ordered by timestamp, then row id), so seeking is a B-tree
/// descent: O(log frames), independent of the capture's length. Frames are
/// decoded into the caller's `SpectrumFrame`, reusing its storage.
///
/// A file left by a crashed recording (WAL beside it, session without a
/// stop time) opens with everything committed before the crash.
public final class CaptureStoreReader: SeekableSpectrumFrameReader, SweepRowReporting {
    public let path: String
    public let metadata: CaptureMetadata
    public let sessions: [CaptureSessionInfo]
    public let frameCount: Int
    public let timeRange: ClosedRange<Double>?
    /// outages of the device, in time order
    public let gaps: [CaptureGap]
    /// frames skipped as damaged (a blob whose size contradicts its bin count)
    public private(set) var skipped = 0
    /// the rows the last frame was imported from (nil for recorded frames)
    public var rows: SweepRowLayout? { hasFrameRows ? lastRows : nil }

    private let strict: Bool
    private let database: DatabaseQueue
    private let fileSize: Int
    /// (timestamp, row id) of the last frame returned; nil = before the first
    private var position: (timestamp: Double, id: Int64)?
    /// the file has a `frame_rows` table (imported frames)
    private let fileHasRows: Bool
    /// the frames carry their noise bandwidth (files written since it was added)
    private let fileHasNoiseBandwidth: Bool
    private var hasFrameRows = false
    private var lastRows = SweepRowLayout(format: .rtlPower)

    /// - Parameter strict: a damaged frame is an error instead of skipped and counted
    public init(path: String, strict: Bool = false) throws(CaptureError) {
        self.path = path
        self.strict = strict
        try CaptureStoreFileCheck.checkHeader(path: path)
        fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var configuration = Configuration()
        // Read-only unless a crashed run left a WAL that SQLite must replay.
        configuration.readonly = !FileManager.default.fileExists(atPath: path + "-wal")
        configuration.label = "tscope.capture.reader"
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
        do {
            let loaded = try database.inDatabase { db in
                try CaptureStoreFileCheck.checkIdentity(db, path: path)
                var values: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT key, value FROM metadata") {
                    values[try row.decode(String.self, atIndex: 0)] = try row.decode(String.self, atIndex: 1)
                }
                let sessions = try Row.fetchAll(db, sql: "SELECT * FROM sessions ORDER BY id").map { try Self.session($0) }
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM frames") ?? 0
                let bounds = try Row.fetchOne(db, sql: "SELECT min(timestamp), max(timestamp) FROM frames")
                let low = try bounds?.decode(Double?.self, atIndex: 0)
                let high = try bounds?.decode(Double?.self, atIndex: 1)
                let gaps = try db.tableExists("gaps")
                    ? try Row.fetchAll(db, sql: "SELECT * FROM gaps ORDER BY from_ts").map { try Self.gap($0) } : []
                return (CaptureStoreSchema.metadata(from: values), sessions, count,
                        low.flatMap { l in high.map { l...$0 } }, gaps, try db.tableExists("frame_rows"),
                        try db.columns(in: "frames").contains { $0.name == "noise_bandwidth_hz" })
            }
            (metadata, sessions, frameCount, timeRange, gaps, fileHasRows, fileHasNoiseBandwidth) = loaded
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
    }

    /// the share of the time range read so far, scaled to the file size for progress bars
    public var progress: (done: Int, total: Int?) {
        guard let timeRange, let position, timeRange.upperBound > timeRange.lowerBound else {
            return (position == nil ? 0 : fileSize, fileSize)
        }
        let share = (position.timestamp - timeRange.lowerBound) / (timeRange.upperBound - timeRange.lowerBound)
        return (Int(Double(fileSize) * min(max(share, 0), 1)), fileSize)
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        while true {
            let outcome: ReadOutcome
            do {
                outcome = try database.inDatabase { db in try readNext(db, into: &frame) }
            } catch {
                throw CaptureStoreErrors.map(error, path: path, frame: position.map { Int($0.id) })
            }
            switch outcome {
            case .end:
                return false
            case .frame:
                return true
            case .damaged(let id, let detail):
                if strict { throw CaptureError(file: path, "frame row \(id): \(detail)") }
                skipped += 1
            }
        }
    }

    public func seek(toTime time: Double) throws {
        guard time.isFinite else { throw CaptureError(file: path, "cannot seek to \(time)") }
        position = (time, Int64.min)
    }

    private enum ReadOutcome {
        case frame
        case end
        case damaged(id: Int64, detail: String)
    }

    /// columns 0…5 of the frames query; 6 the noise bandwidth (NULL in older files), 7 the rows' layout
    private var columns: String {
        "id, timestamp, start_hz, bin_width_hz, bin_count, power, "
            + (fileHasNoiseBandwidth ? "noise_bandwidth_hz" : "NULL")
    }

    /// the frames query (after a position or from the start), with each
    /// frame's rows where the file keeps them
    private func frameQuery(after: Bool) -> String {
        let condition = after ? "WHERE (timestamp, id) > (?, ?) " : ""
        guard fileHasRows else { return "SELECT \(columns) FROM frames \(condition)ORDER BY timestamp, id LIMIT 1" }
        return """
            SELECT f.*, (SELECT layout FROM frame_rows WHERE frame_id = f.id) FROM
            (SELECT \(columns) FROM frames \(condition)ORDER BY timestamp, id LIMIT 1) AS f
            """
    }

    private func readNext(_ db: Database, into frame: inout SpectrumFrame) throws -> ReadOutcome {
        let statement: Statement
        let arguments: StatementArguments
        if let position {
            statement = try db.cachedStatement(sql: frameQuery(after: true))
            arguments = [position.timestamp, position.id]
        } else {
            statement = try db.cachedStatement(sql: frameQuery(after: false))
            arguments = []
        }
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        guard let row = try rows.next() else { return .end }
        // a damaged or hand-edited file may hold any type in any column: decode
        // by throwing (the frame is damage), never by trapping
        let id = try row.decode(Int64.self, atIndex: 0)
        guard let timestamp = try? row.decode(Double.self, atIndex: 1) else {
            // the position cannot advance past a row without a time: the rest is unreadable in time order
            throw CaptureError(file: path, "frame row \(id): timestamp is not a number")
        }
        position = (timestamp, id)
        guard let startHz = try? row.decode(Double.self, atIndex: 2), let binWidthHz = try? row.decode(Double.self, atIndex: 3),
              let binCount = try? row.decode(Int.self, atIndex: 4) else {
            return .damaged(id: id, detail: "start, bin width or bin count is not a number")
        }
        guard binCount > 0, binCount <= Self.maxBinCount, binWidthHz > 0, binWidthHz.isFinite, startHz.isFinite,
              timestamp.isFinite else {
            return .damaged(id: id, detail: "bin count \(binCount), bin width \(binWidthHz) Hz, start \(startHz) Hz, "
                            + "time \(timestamp): expected positive, finite values")
        }
        let blobBytes: Int? = try row.withUnsafeData(atIndex: 5) { data -> Int? in
            guard let data, data.count == binCount * 4 else { return data?.count ?? 0 }
            data.withUnsafeBytes { PowerBlobCoding.decode($0, count: binCount, into: &frame.powerDB) }
            return nil
        }
        if let blobBytes {
            return .damaged(id: id, detail: "power blob of \(blobBytes) bytes, expected 4 × \(binCount) bins")
        }
        frame.startHz = startHz
        frame.binWidthHz = binWidthHz
        frame.timestamp = timestamp
        let noiseBandwidth = try? row.decode(Double?.self, atIndex: 6)
        frame.noiseBandwidthHz = noiseBandwidth.flatMap { $0 }.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        hasFrameRows = false
        if fileHasRows {
            hasFrameRows = try row.withUnsafeData(atIndex: 7) { data -> Bool in
                guard let data else { return false }
                return data.withUnsafeBytes { SweepRowCoding.decode($0, into: &lastRows) }
            } && lastRows.fits(binCount: binCount)
        }
        return .frame
    }

    /// more bins than any frame tscope writes (a 0–6 GHz sweep at 1 Hz would be 6·10⁹): a larger count is damage
    static let maxBinCount = 1 << 28

    /// A session row; a value of the wrong type throws (a damaged file), never traps.
    private static func session(_ row: Row) throws -> CaptureSessionInfo {
        var band: FrequencyRange?
        if let low = try row.decode(Double?.self, forColumn: "band_low_hz"),
           let high = try row.decode(Double?.self, forColumn: "band_high_hz") {
            band = FrequencyRange(lowerHz: low, upperHz: high)
        }
        var session = CaptureSessionInfo(
            id: try row.decode(forColumn: "id"), startedAt: try row.decode(forColumn: "started_at"),
            stoppedAt: try row.decode(forColumn: "stopped_at"), label: try row.decode(forColumn: "label"),
            operatorName: try row.decode(forColumn: "operator"), band: band,
            binWidthHz: try row.decode(forColumn: "bin_width_hz"),
            requestedFrameRate: try row.decode(forColumn: "requested_frame_rate"),
            achievedFrameRate: try row.decode(forColumn: "achieved_frame_rate"),
            frames: try row.decode(forColumn: "frames"), droppedBlocks: try row.decode(forColumn: "dropped_blocks"),
            droppedFrames: try row.decode(forColumn: "dropped_frames"))
        // a column added by CaptureStoreWriter; absent from older files
        session.badBlocks = try row.decode(Int?.self, forColumn: "bad_blocks") ?? 0
        return session
    }

    private static func gap(_ row: Row) throws -> CaptureGap {
        CaptureGap(sessionID: try row.decode(forColumn: "session_id"), fromTimestamp: try row.decode(forColumn: "from_ts"),
                   toTimestamp: try row.decode(forColumn: "to_ts"), reason: try row.decode(forColumn: "reason"))
    }
}
