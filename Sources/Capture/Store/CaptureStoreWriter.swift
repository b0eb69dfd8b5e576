import Foundation
import GRDB
import Signals

/// Writes spectrum frames into a capture store (an SQLite file, layout in
/// `CaptureStoreSchema`), one session per writer.
///
/// Frames go into an open transaction that is committed once `commitInterval`
/// has passed since the last commit (checked on every `write` and on
/// `commitIfDue`, which a writer thread calls when no frames arrive), so a
/// process killed with SIGKILL loses at most that interval. (With
/// `Options.atomicSession` only `finish` commits: a conversion's session is
/// all or nothing, and `abandon` drops it.) The journal is a
/// WAL with synchronous=NORMAL: a commit survives the process dying (not a
/// power cut). `finish` checkpoints and returns the file to a single
/// self-contained file (rollback journal).
///
/// Opening an existing capture appends a new session to it; its metadata is
/// kept, fields it lacks are filled in.
public final class CaptureStoreWriter: SpectrumFrameWriter, SweepRowWriting {
    public struct Options: Sendable {
        /// longest time frames wait uncommitted [s]
        public var commitInterval: Double
        /// monotonic clock [s] for the commit cadence
        public var clock: @Sendable () -> Double

        /// the whole session (its row, metadata, frames and gaps) is one
        /// transaction committed by `finish` or dropped by `abandon`: for
        /// conversions, where a failed run must leave the store as it was
        /// (live recordings commit every `commitInterval` to keep their data)
        public var atomicSession: Bool

        public init(commitInterval: Double = 1, clock: @escaping @Sendable () -> Double = { monotonicSeconds() },
                    atomicSession: Bool = false) {
            self.commitInterval = commitInterval
            self.clock = clock
            self.atomicSession = atomicSession
        }
    }

    public let path: String
    /// this writer's row in `sessions`
    public let sessionID: Int64
    public private(set) var framesWritten = 0
    /// transactions committed so far (the initial schema and session row not counted)
    package private(set) var commits = 0

    private let options: Options
    private let database: DatabaseQueue
    private var inTransaction = false
    private var lastCommit: Double
    /// first and last frame timestamps [s, Unix]
    private var firstTimestamp: Double?
    private var lastTimestamp: Double?
    /// little-endian Float32 bytes of the frame being written; grows only
    /// when a frame has more bins than any before it
    private var scratch: UnsafeMutableRawBufferPointer
    private var finished = false
    /// the encoded rows of the frame being written (reused)
    private var rowBytes: [UInt8] = []

    /// Creates `path` (or appends a session to an existing capture there).
    public init(path: String, metadata: CaptureMetadata, session: CaptureSessionInfo,
                options: Options = Options()) throws(CaptureError) {
        self.path = path
        self.options = options
        let exists = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int).map { $0 > 0 } ?? false
        if exists { try CaptureStoreFileCheck.checkHeader(path: path) }
        var configuration = Configuration()
        // The open transaction spans `write` calls on purpose (see the type's doc).
        configuration.allowsUnsafeTransactions = true
        configuration.label = "tscope.capture.writer"
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
        var newSession: Int64 = 0
        do {
            try database.inDatabase { db in
                if exists {
                    try CaptureStoreFileCheck.checkIdentity(db, path: path)
                }
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                func addSession() throws {
                    if exists {
                        try db.execute(sql: CaptureStoreSchema.gapsTable)
                        try db.execute(sql: CaptureStoreSchema.rowsTable)
                    } else {
                        try db.execute(sql: CaptureStoreSchema.createStatements)
                    }
                    for (key, value) in CaptureStoreSchema.rows(of: metadata) {
                        try db.execute(sql: "INSERT OR IGNORE INTO metadata(key, value) VALUES (?, ?)",
                                       arguments: [key.rawValue, value])
                    }
                    try db.execute(sql: """
                        INSERT INTO sessions(started_at, label, operator, band_low_hz, band_high_hz, bin_width_hz,
                                             requested_frame_rate)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [session.startedAt, session.label, session.operatorName,
                                         session.band?.lowerHz, session.band?.upperHz, session.binWidthHz,
                                         session.requestedFrameRate])
                    newSession = db.lastInsertedRowID
                }
                if options.atomicSession {
                    // left open: frames join this transaction, `finish` commits it
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    try addSession()
                } else {
                    try db.inTransaction {
                        try addSession()
                        return .commit
                    }
                }
            }
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
        sessionID = newSession
        lastCommit = options.clock()
        scratch = .allocate(byteCount: 16_384 * 4, alignment: 16)
        inTransaction = options.atomicSession
    }

    deinit {
        scratch.deallocate()
    }

    /// Adds one frame (committed within `commitInterval`).
    public func write(_ frame: SpectrumFrame) throws {
        try write(frame, rows: nil)
    }

    /// Adds one frame and the rows it was read from (kept for converting it
    /// back to its source format byte for byte).
    public func write(_ frame: SpectrumFrame, rows: SweepRowLayout?) throws {
        guard !finished else { throw CaptureError(file: path, "write after finish") }
        let count = frame.powerDB.count
        guard count > 0 else { throw CaptureError(file: path, "frame at \(frame.timestamp) has no bins") }
        let byteCount = count * 4
        if byteCount > scratch.count {
            scratch.deallocate()
            scratch = .allocate(byteCount: byteCount, alignment: 16)
        }
        PowerBlobCoding.encode(frame.powerDB, into: scratch)
        let blob = Data(bytesNoCopy: scratch.baseAddress!, count: byteCount, deallocator: .none)
        do {
            try database.inDatabase { db in
                if !inTransaction {
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    inTransaction = true
                }
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO frames(session_id, timestamp, start_hz, bin_width_hz, bin_count, power)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """)
                try insert.execute(arguments: [sessionID, frame.timestamp, frame.startHz, frame.binWidthHz,
                                               count, blob])
                if let rows, rows.fits(binCount: count) {
                    SweepRowCoding.encode(rows, into: &rowBytes)
                    let layout = try db.cachedStatement(sql: "INSERT INTO frame_rows(frame_id, layout) VALUES (?, ?)")
                    try rowBytes.withUnsafeBytes { raw in
                        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: raw.baseAddress!),
                                        count: raw.count, deallocator: .none)
                        try layout.execute(arguments: [db.lastInsertedRowID, data])
                    }
                }
            }
        } catch {
            throw CaptureStoreErrors.map(error, path: path, frame: framesWritten)
        }
        framesWritten += 1
        if firstTimestamp == nil { firstTimestamp = frame.timestamp }
        lastTimestamp = frame.timestamp
        try commitIfDue()
    }

    /// Marks a time the device delivered nothing (committed with the frames).
    /// - Parameters: from, to: Unix time [s] of the last frame before and the first after
    public func writeGap(from: Double, to: Double, reason: String) throws {
        guard !finished else { throw CaptureError(file: path, "write after finish") }
        do {
            try database.inDatabase { db in
                if !inTransaction {
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    inTransaction = true
                }
                try db.execute(sql: "INSERT INTO gaps(session_id, from_ts, to_ts, reason) VALUES (?, ?, ?, ?)",
                               arguments: [sessionID, from, to, reason])
            }
        } catch {
            throw CaptureStoreErrors.map(error, path: path, frame: framesWritten)
        }
        try commitIfDue()
    }

    /// Commits if frames have waited `commitInterval` or longer.
    public func commitIfDue() throws {
        guard inTransaction, !options.atomicSession, options.clock() - lastCommit >= options.commitInterval else { return }
        try commit()
    }

    /// Commits the frames written so far now.
    public func commit() throws {
        guard inTransaction else { return }
        do {
            try database.inDatabase { db in
                try db.execute(sql: "UPDATE sessions SET frames = ? WHERE id = ?", arguments: [framesWritten, sessionID])
                try db.execute(sql: "COMMIT")
            }
        } catch {
            throw CaptureStoreErrors.map(error, path: path, frame: framesWritten)
        }
        inTransaction = false
        commits += 1
        lastCommit = options.clock()
    }

    /// Commits, records the session's outcome, and leaves a self-contained
    /// file. The achieved frame rate defaults to frames over their time span.
    public func finish(outcome: CaptureSessionOutcome? = nil) throws {
        guard !finished else { return }
        let result = outcome ?? CaptureSessionOutcome(stoppedAt: unixTimeNow(), achievedFrameRate: spanFrameRate)
        // the outcome is committed with the last frames (an atomic session: in its one transaction)
        do {
            try database.inDatabase { db in
                if !inTransaction {
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    inTransaction = true
                }
                try db.execute(sql: """
                    UPDATE sessions SET stopped_at = ?, achieved_frame_rate = ?, frames = ?, dropped_blocks = ?,
                                        dropped_frames = ?
                    WHERE id = ?
                    """, arguments: [result.stoppedAt, result.achievedFrameRate, framesWritten,
                                     result.droppedBlocks, result.droppedFrames, sessionID])
            }
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
        try commit()
        finished = true
        do {
            try database.inDatabase { db in
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
            // Another connection (a replay of this file, or the input of a
            // conversion into itself) still reads it: everything is committed,
            // and SQLite folds the WAL back in when the last connection closes.
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
        do {
            try database.close()
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
    }


    public func finish() throws {
        try finish(outcome: nil)
    }

    /// Drops what is not committed (with `atomicSession`: the whole session,
    /// leaving the store as it was) and closes the file.
    public func abandon() {
        guard !finished else { return }
        finished = true
        try? database.inDatabase { db in
            if inTransaction { try db.execute(sql: "ROLLBACK") }
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
        }
        inTransaction = false
        try? database.close()
    }

    /// (frames − 1) / time from first to last frame [frames/s]; 0 below two frames
    private var spanFrameRate: Double {
        guard framesWritten > 1, let first = firstTimestamp, let last = lastTimestamp, last > first else { return 0 }
        return Double(framesWritten - 1) / (last - first)
    }
}
