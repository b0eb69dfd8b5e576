import Foundation
import GRDB
import Signals
import ThreadKit

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
/// power cut). The WAL is checkpointed into the main file when the file is
/// created (schema, metadata, session row) and then at least every
/// `checkpointInterval`, so the main file copied alone after a crash holds
/// everything older than that. `finish` checkpoints and returns the file to a
/// single self-contained file (rollback journal).
///
/// The first write error (disk full, I/O error) rolls back what was not yet
/// committed and makes every later write fail with it; `finish` still records
/// the session's stop time and the frames actually stored (`framesStored`).
/// So that a full disk leaves room for that, `<path>-reserve` (256 KiB) is
/// kept beside the file while recording and deleted on the first error and
/// at `finish`.
///
/// Opening an existing capture appends a new session to it; its metadata is
/// kept, fields it lacks are filled in.
///
/// Invariant: a RecordingSession's writer is used by one thread at a time —
/// its writer thread until that thread signals `finished`, then the caller of
/// `stop` — a hand-over the compiler cannot see through the semaphore.
public final class CaptureStoreWriter: SpectrumFrameWriter, SweepRowWriting, @unchecked Sendable {
    public struct Options: Sendable {
        /// longest time frames wait uncommitted [s]
        public var commitInterval: Double
        /// longest time committed frames stay only in the -wal side file [s]
        public var checkpointInterval: Double
        /// times the commit cadence (tests hand in a `ManualClock`)
        public var clock: any MonotonicClock

        /// the whole session (its row, metadata, frames and gaps) is one
        /// transaction committed by `finish` or dropped by `abandon`: for
        /// conversions, where a failed run must leave the store as it was
        /// (live recordings commit every `commitInterval` to keep their data)
        public var atomicSession: Bool

        public init(commitInterval: Double = 1, checkpointInterval: Double = 5,
                    clock: any MonotonicClock = SystemClock(),
                    atomicSession: Bool = false) {
            self.commitInterval = commitInterval
            self.checkpointInterval = checkpointInterval
            self.clock = clock
            self.atomicSession = atomicSession
        }
    }

    public let path: String
    /// this writer's row in `sessions`
    public let sessionID: Int64
    public private(set) var framesWritten = 0
    /// frames committed to the file (`framesWritten` less those lost to a write error)
    public private(set) var framesStored = 0
    /// the first write error; nothing is written after it
    public private(set) var failure: CaptureError?
    /// transactions committed so far (the initial schema and session row not counted)
    package private(set) var commits = 0

    private let options: Options
    private let database: DatabaseQueue
    private var inTransaction = false
    private var lastCommit: Double
    private var lastCheckpoint: Double
    /// first and last frame timestamps [s, Unix]
    private var firstTimestamp: Double?
    private var lastTimestamp: Double?
    /// little-endian Float32 bytes of the frame being written; grows only
    /// when a frame has more bins than any before it
    private var scratch: UnsafeMutableRawBufferPointer
    private var finished = false
    /// the encoded rows of the frame being written (reused)
    private var rowBytes: [UInt8] = []
    /// `<path>-reserve`: space given back for finishing the session row after a disk-full error
    private let reservePath: String
    static let reserveBytes = 256 * 1024

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
                    // per-session bad blocks: added to new and older files alike
                    let columns = try db.columns(in: "sessions").map(\.name)
                    if !columns.contains("bad_blocks") {
                        try db.execute(sql: "ALTER TABLE sessions ADD COLUMN bad_blocks INTEGER NOT NULL DEFAULT 0")
                    }
                    // each frame's noise bandwidth, so channel power from the file is the live one's
                    if try !db.columns(in: "frames").contains(where: { $0.name == "noise_bandwidth_hz" }) {
                        try db.execute(sql: "ALTER TABLE frames ADD COLUMN noise_bandwidth_hz REAL")
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
                // the schema, metadata and session row in the main file from the start
                // (an atomic session's stay in its open transaction until `finish`)
                if !options.atomicSession { try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            }
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
        sessionID = newSession
        reservePath = path + "-reserve"
        guard FileManager.default.createFile(atPath: reservePath, contents: Data(count: Self.reserveBytes)) else {
            try? database.close()
            throw CaptureError(file: path, "disk full or not writable: cannot reserve \(Self.reserveBytes / 1024) KiB "
                + "beside it (\(reservePath))")
        }
        lastCommit = options.clock.now
        lastCheckpoint = lastCommit
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
        if let failure { throw failure }
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
                    INSERT INTO frames(session_id, timestamp, start_hz, bin_width_hz, bin_count, power, noise_bandwidth_hz)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
                try insert.execute(arguments: [sessionID, frame.timestamp, frame.startHz, frame.binWidthHz,
                                               count, blob, frame.noiseBandwidthHz])
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
            throw fail(error)
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
        if let failure { throw failure }
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
            throw fail(error)
        }
        try commitIfDue()
    }

    /// Commits if frames have waited `commitInterval` or longer.
    public func commitIfDue() throws {
        guard inTransaction, !options.atomicSession, options.clock.now - lastCommit >= options.commitInterval else { return }
        try commit()
    }

    /// Commits the frames written so far now.
    public func commit() throws {
        if let failure { throw failure }
        guard inTransaction else { return }
        let now = options.clock.now
        do {
            try database.inDatabase { db in
                try db.execute(sql: "UPDATE sessions SET frames = ? WHERE id = ?", arguments: [framesWritten, sessionID])
                try db.execute(sql: "COMMIT")
            }
        } catch {
            throw fail(error)
        }
        inTransaction = false
        framesStored = framesWritten
        commits += 1
        lastCommit = now
        if now - lastCheckpoint >= options.checkpointInterval {
            // PASSIVE: copies what no reader holds back; never waits (a reader may hold the rest for later)
            do {
                try database.inDatabase { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            } catch {
                throw fail(error)
            }
            lastCheckpoint = now
        }
    }

    /// Keeps the first write error, rolls back what was not committed, and
    /// returns the error to throw.
    private func fail(_ error: Error) -> CaptureError {
        let mapped = CaptureStoreErrors.map(error, path: path, frame: framesWritten)
        if failure == nil { failure = mapped }
        unlink(reservePath)
        try? database.inDatabase { db in
            if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") }
        }
        inTransaction = false
        return failure ?? mapped
    }

    /// Commits, records the session's outcome, and leaves a self-contained
    /// file. The achieved frame rate defaults to frames over their time span.
    /// After a write error the session row is still finished (stop time, the
    /// frames stored) when the disk has room for it, and that error is thrown.
    public func finish(outcome: CaptureSessionOutcome? = nil) throws {
        guard !finished else { return }
        finished = true
        defer { unlink(reservePath) }
        let result = outcome ?? CaptureSessionOutcome(stoppedAt: unixTimeNow(), achievedFrameRate: spanFrameRate)
        if failure == nil {
            // the outcome is committed with the last frames (an atomic session: in its one transaction)
            do {
                try database.inDatabase { db in
                    if !inTransaction {
                        try db.execute(sql: "BEGIN IMMEDIATE")
                        inTransaction = true
                    }
                    try recordOutcome(result, frames: framesWritten, in: db)
                    try db.execute(sql: "COMMIT")
                }
                inTransaction = false
                framesStored = framesWritten
            } catch {
                _ = fail(error)
            }
        }
        if let failure {
            // after a write error the session row still gets its stop time and the frames actually stored
            do {
                try database.inDatabase { db in try recordOutcome(result, frames: framesStored, in: db) }
            } catch {
                try? database.close()
                throw failure
            }
        }
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
            // the file and its -wal hold everything; SQLite merges them on the next open
            if failure == nil { failure = CaptureStoreErrors.map(error, path: path) }
        }
        do {
            try database.close()
        } catch {
            if failure == nil { failure = CaptureStoreErrors.map(error, path: path) }
        }
        if let failure { throw failure }
    }

    /// The session row's outcome: stop time, achieved rate, `frames` stored and the device's counts.
    private func recordOutcome(_ result: CaptureSessionOutcome, frames: Int, in db: Database) throws {
        try db.execute(sql: """
            UPDATE sessions SET stopped_at = ?, achieved_frame_rate = ?, frames = ?, dropped_blocks = ?,
                                dropped_frames = ?, bad_blocks = ?
            WHERE id = ?
            """, arguments: [result.stoppedAt, result.achievedFrameRate, frames,
                             result.droppedBlocks, result.droppedFrames, result.badBlocks, sessionID])
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
        unlink(reservePath)
    }

    /// (frames − 1) / time from first to last frame [frames/s]; 0 below two frames
    private var spanFrameRate: Double {
        guard framesWritten > 1, let first = firstTimestamp, let last = lastTimestamp, last > first else { return 0 }
        return Double(framesWritten - 1) / (last - first)
    }
}

extension CaptureStoreWriter: AbandonableFrameWriter {}
