import Capture
import PostgresStore

/// Where a command reads a capture: a file in any format tscope reads, or a
/// PostgreSQL store's session (`postgresql://USER@HOST:PORT/DB[?session=ID|label=L]`).
public enum CaptureInput {
    public static func isDatabase(_ path: String) -> Bool { SensorLink.isDatabaseURL(path) }

    /// The format of `path`: given, detected, or — for a database — the store's.
    public static func format(of path: String, given: CaptureFormat?) throws -> CaptureFormat {
        if isDatabase(path) { return .tscope }
        if let given {
            guard given.canRead else {
                throw CommandError("--in-format \(given.rawValue) cannot be read; inputs: \(CaptureFormat.readable)")
            }
            return given
        }
        return try CaptureFormat.detect(path: path)
    }

    /// A forward reader of `path`.
    public static func open(_ path: String, format: CaptureFormat, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        if isDatabase(path) {
            #if SensorLink
            return try PostgresCaptureReader(location: PostgresLocation(url: path))
            #else
            throw SensorLink.missing("a PostgreSQL capture store")
            #endif
        }
        return try format.openReader(path: path, options: options)
    }

    /// A reader that seeks, for replay (a database session is read again from its start for a backward seek).
    public static func openSeekable(_ path: String, format: CaptureFormat?, options: CaptureReadOptions) throws
        -> any SeekableSpectrumFrameReader {
        if isDatabase(path) {
            #if SensorLink
            let location = try PostgresLocation(url: path)
            return try ReopeningSeekableReader { try PostgresCaptureReader(location: location) }
            #else
            throw SensorLink.missing("a PostgreSQL capture store")
            #endif
        }
        return try ReplaySourceOpener.open(path: path, format: format, options: options)
    }

    /// how messages name the input's format
    static func formatName(_ path: String, _ format: CaptureFormat) -> String {
        isDatabase(path) ? "postgresql" : format.rawValue
    }
}
