import CPNG
import GRDB

/// Versions of the C libraries Capture links, read from them at run time.
public enum CaptureLibraries {
    /// SQLite's `sqlite_version()` as the linked library answers it.
    public static var sqliteVersion: String {
        do {
            return try DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") } ?? "unknown"
        } catch {
            return "unknown (\(error))"
        }
    }

    /// `png_get_libpng_ver()`
    public static var pngVersion: String {
        png_get_libpng_ver(nil).map { String(cString: $0) } ?? "unknown"
    }
}
