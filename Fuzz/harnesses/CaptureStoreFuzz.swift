import Capture
import Foundation
import GRDB
import Signals

/// A damaged capture store: opened, read to the end (lenient and strict),
/// its rows decoded, sought. Thrown errors are the expected answer; a trap
/// (e.g. a column of the wrong type decoded as non-optional) is a finding.
///
/// Input: 1 byte mode, then
/// - mode even: a whole store file (the seeds are real captures converted by
///   tscope), so byte flips, truncation and zeroed pages reach SQLite and the
///   reader;
/// - mode odd: edits to a valid store the harness builds once (two frames
///   imported from rtl_power rows, a gap, a session), so fuzzed values reach
///   the columns and blobs the reader decodes without SQLite's checks getting
///   in the way. Each edit is `op, target, length, payload`; see `applyEdit`.
func fuzzCaptureStore(_ bytes: UnsafeRawBufferPointer) {
    guard let mode = bytes.first else { return }
    let path = CaptureStoreFuzzFiles.path
    CaptureStoreFuzzFiles.removeAll()
    defer { CaptureStoreFuzzFiles.removeAll() }
    let rest = UnsafeRawBufferPointer(rebasing: bytes[1...])
    if mode % 2 == 0 {
        guard FileManager.default.createFile(atPath: path, contents: Data(rest)) else { return }
    } else {
        guard let base = CaptureStoreFuzzFiles.validStore,
              FileManager.default.createFile(atPath: path, contents: Data(base)) else { return }
        applyEdits(rest, to: path)
    }
    readEverything(path)
}

private func readEverything(_ path: String) {
    for strict in [false, true] {
        guard let reader = try? CaptureStoreReader(path: path, strict: strict) else { continue }
        _ = (reader.metadata, reader.sessions, reader.gaps, reader.timeRange, reader.progress)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var frames = 0
        while frames < 10_000, (try? reader.next(into: &frame)) == true {
            frames += 1
            precondition(frame.binWidthHz > 0 && frame.binWidthHz.isFinite && frame.startHz.isFinite,
                         "a frame with impossible geometry")
            _ = reader.rows
        }
        if let start = reader.timeRange?.lowerBound, (try? reader.seek(toTime: start)) != nil {
            _ = try? reader.next(into: &frame)
        }
    }
}

/// Applies `op, target, length, payload` edits to the store at `path`.
private func applyEdits(_ bytes: UnsafeRawBufferPointer, to path: String) {
    var patches: [(offset: Int, bytes: [UInt8])] = []
    do {
        let database = try DatabaseQueue(path: path)
        try database.inDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            var offset = 0
            while offset + 3 <= bytes.count {
                let op = bytes[offset], target = Int(bytes[offset + 1]), length = Int(bytes[offset + 2])
                let end = min(bytes.count, offset + 3 + length)
                let payload = Array(bytes[(offset + 3)..<end])
                offset = end
                if op % 11 == 10 {
                    patches.append((target * 64 + Int(payload.first ?? 0), Array(payload.dropFirst())))
                } else {
                    try? applyEdit(op: op % 11, target: target, payload: payload, db)
                }
            }
        }
    } catch {
        return
    }
    // byte patches after SQLite closed the file: damage under SQLite's feet
    guard !patches.isEmpty, let handle = FileHandle(forUpdatingAtPath: path) else { return }
    defer { try? handle.close() }
    for patch in patches where !patch.bytes.isEmpty {
        try? handle.seek(toOffset: UInt64(patch.offset))
        try? handle.write(contentsOf: patch.bytes)
    }
}

/// One edit. Values are bound as the payload says: 8 bytes → a Double's bit
/// pattern (or an Int64 for integer columns), otherwise text or a blob, so
/// columns also get values of the wrong SQLite type.
private func applyEdit(op: UInt8, target: Int, payload: [UInt8], _ db: Database) throws {
    let row = Int64(target % 4)  // frames and sessions are numbered from 1; 0 and 3 match nothing
    let value = fuzzedValue(payload, kind: target >> 6)
    switch op {
    case 0: try db.execute(sql: "UPDATE frames SET power = ? WHERE id = ?", arguments: [Data(payload), row])
    case 1: try db.execute(sql: "UPDATE frames SET bin_count = ? WHERE id = ?", arguments: [value, row])
    case 2: try db.execute(sql: "UPDATE frames SET start_hz = ? WHERE id = ?", arguments: [value, row])
    case 3: try db.execute(sql: "UPDATE frames SET bin_width_hz = ? WHERE id = ?", arguments: [value, row])
    case 4: try db.execute(sql: "UPDATE frames SET timestamp = ? WHERE id = ?", arguments: [value, row])
    case 5: try db.execute(sql: "UPDATE frame_rows SET layout = ? WHERE frame_id = ?", arguments: [Data(payload), row])
    case 6:
        let keys = try String.fetchAll(db, sql: "SELECT key FROM metadata ORDER BY key")
        let key = keys.isEmpty ? "format" : keys[target % keys.count]
        try db.execute(sql: "INSERT OR REPLACE INTO metadata(key, value) VALUES (?, ?)", arguments: [key, value])
    case 7:
        let columns = ["started_at", "stopped_at", "label", "operator", "band_low_hz", "band_high_hz", "bin_width_hz",
                       "requested_frame_rate", "achieved_frame_rate", "frames", "dropped_blocks", "dropped_frames"]
        try db.execute(sql: "UPDATE sessions SET \(columns[target % columns.count]) = ?", arguments: [value])
    case 8:
        let columns = ["session_id", "from_ts", "to_ts", "reason"]
        try db.execute(sql: "UPDATE gaps SET \(columns[target % columns.count]) = ?", arguments: [value])
    default:
        let statements = ["DELETE FROM frames WHERE id = 1", "DELETE FROM sessions", "DROP TABLE gaps",
                          "DROP TABLE frame_rows", "DROP INDEX frames_by_time", "DELETE FROM metadata",
                          "PRAGMA user_version = 99", "PRAGMA application_id = 0", "DROP TABLE metadata",
                          "INSERT INTO frames(session_id, timestamp, start_hz, bin_width_hz, bin_count, power) "
                              + "SELECT session_id, timestamp, start_hz, bin_width_hz, bin_count, power FROM frames"]
        try db.execute(sql: statements[target % statements.count])
    }
}

/// The payload as a value of the kind `kind` asks for (0…3): NULL, integer
/// or real from 8 bytes, text, blob.
private func fuzzedValue(_ payload: [UInt8], kind: Int) -> DatabaseValue {
    var bits: UInt64 = 0
    for (index, byte) in payload.prefix(8).enumerated() { bits |= UInt64(byte) << (8 * UInt64(index)) }
    switch kind {
    case 0: return payload.isEmpty ? .null : Double(bitPattern: bits).databaseValue
    case 1: return Int64(bitPattern: bits).databaseValue
    case 2: return String(decoding: payload, as: UTF8.self).databaseValue
    default: return Data(payload).databaseValue
    }
}

/// The harness's file (one per process) and the valid store it edits.
private enum CaptureStoreFuzzFiles {
    static let path = NSTemporaryDirectory() + "tscope-fuzz-store-\(getpid()).tscope"

    static func removeAll() {
        for suffix in ["", "-wal", "-shm", "-journal", "-reserve"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Two sweeps of two rtl_power hops each, imported with their rows, and a
    /// gap. Kept as an array: LeakSanitizer does not follow `Data`'s tagged
    /// storage pointer from a global and would call it a leak.
    static let validStore: [UInt8]? = {
        let source = NSTemporaryDirectory() + "tscope-fuzz-store-base-\(getpid()).tscope"
        defer { for suffix in ["", "-wal", "-shm", "-reserve"] { try? FileManager.default.removeItem(atPath: source + suffix) } }
        let text = """
            2020-01-01, 00:00:00, 100000, 101000, 250.00, 10, -1.00, -2.00, -3.00, -4.00, -4.00
            2020-01-01, 00:00:00, 101000, 102000, 250.00, 10, -5.00, -6.00, -7.00, -8.00, -8.00
            2020-01-01, 00:00:01, 100000, 101000, 250.00, 10, -11.00, -12.00, -13.00, -14.00, -14.00
            2020-01-01, 00:00:01, 101000, 102000, 250.00, 10, -15.00, -16.00, -17.00, -18.00, -18.00

            """
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { input -> [UInt8]? in
            let reader = RTLPowerCSVReader(input: ByteInput(bytes: input, name: "base"),
                                           options: CaptureReadOptions(timeZone: .utcOffset(seconds: 0)))
            do {
                let writer = try CaptureStoreWriter(path: source, metadata: CaptureMetadata(format: "rtl_power"),
                                                    session: CaptureSessionInfo(startedAt: 1_577_836_800, label: "fuzz"))
                var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
                while try reader.next(into: &frame) { try writer.write(frame, rows: reader.rows) }
                try writer.writeGap(from: 1_577_836_800, to: 1_577_836_801, reason: "fuzz")
                try writer.finish()
                return FileManager.default.contents(atPath: source).map { Array($0) }
            } catch {
                return nil
            }
        }
    }()
}
