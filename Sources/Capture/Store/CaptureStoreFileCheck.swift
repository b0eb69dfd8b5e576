import Foundation
import GRDB

/// Checks a file before SQLite opens it, so that a wrong or damaged file gets
/// one line saying what is wrong instead of an SQLite error code.
///
/// SQLite's file header (https://www.sqlite.org/fileformat.html §1.3): the
/// 16-byte string "SQLite format 3\0" at offset 0, the page size (big-endian
/// u16, 1 meaning 65536) at 16, the file change counter at 24, the database
/// size in pages at 28, valid only when the "version-valid-for" number at 92
/// equals the change counter.
enum CaptureStoreFileCheck {
    static let headerSize = 100
    static let magic = Array("SQLite format 3\0".utf8)

    /// Throws unless `path` looks like a complete SQLite database.
    static func checkHeader(path: String) throws(CaptureError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw CaptureError(file: path, exists ? "cannot open for reading (permission?)" : "no such file")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: headerSize)) ?? Data()
        let fileSize = Int((try? handle.seekToEnd()) ?? 0)
        if header.isEmpty {
            throw CaptureError(file: path, location: .byte(0), "empty file, expected a tscope capture (SQLite database)")
        }
        let bytes = [UInt8](header)
        guard bytes.count == headerSize, Array(bytes[0..<16]) == magic else {
            throw CaptureError(file: path, location: .byte(0),
                               "not a tscope capture: expected an SQLite database (header 'SQLite format 3')")
        }
        // A WAL beside the file (left by a crash) may hold pages the header
        // already counts; SQLite recovers it on open.
        guard !FileManager.default.fileExists(atPath: path + "-wal") else { return }
        let rawPageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let changeCounter = bigEndianUInt32(bytes, at: 24)
        let pageCount = Int(bigEndianUInt32(bytes, at: 28))
        let validFor = bigEndianUInt32(bytes, at: 92)
        guard validFor == changeCounter, pageSize >= 512 else { return }
        let expected = pageCount * pageSize
        if fileSize < expected {
            throw CaptureError(file: path, location: .byte(fileSize),
                               "truncated: the header declares \(pageCount) pages of \(pageSize) bytes "
                               + "(\(expected) bytes) but the file ends here")
        }
    }

    /// Throws unless the open database carries tscope's application id and a
    /// layout this version reads.
    static func checkIdentity(_ db: Database, path: String) throws(CaptureError) {
        let applicationID: Int32
        let version: Int
        do {
            applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        } catch {
            throw CaptureStoreErrors.map(error, path: path)
        }
        guard applicationID == CaptureStoreSchema.applicationID else {
            throw CaptureError(file: path, "an SQLite database but not a tscope capture (no tscope application id)")
        }
        guard version <= CaptureStoreSchema.version else {
            throw CaptureError(file: path, "written by a newer tscope (layout \(version)); "
                               + "this one reads layout \(CaptureStoreSchema.version)")
        }
    }

    private static func bigEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Turns SQLite failures into one readable `CaptureError` line.
enum CaptureStoreErrors {
    static func map(_ error: Error, path: String, frame: Int? = nil) -> CaptureError {
        if let capture = error as? CaptureError { return capture }
        let place = frame.map { " (frame \($0))" } ?? ""
        if error is RowDecodingError {
            // a column holding a value of another type: a damaged or hand-edited file
            return CaptureError(file: path, "damaged capture\(place): \(error)")
        }
        guard let database = error as? DatabaseError else {
            return CaptureError(file: path, "\(error)\(place)")
        }
        switch database.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return CaptureError(file: path, "damaged capture\(place): \(database.message ?? "database disk image is malformed")")
        case .SQLITE_FULL:
            return CaptureError(file: path, "disk full (No space left on device)")
        case .SQLITE_IOERR:
            return CaptureError(file: path, "write failed (I/O error: \(database.message ?? "disk I/O error"))")
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
            return CaptureError(file: path, "cannot open for writing\(place): \(database.message ?? "permission denied")")
        default:
            return CaptureError(file: path, "SQLite error\(place): \(database.message ?? "\(database.resultCode)")")
        }
    }
}
