import Foundation

/// One file format `tscope replay` can play: how to recognise it by name
/// and how to open a reader at its first frame.
public struct ReplayFormat: Sendable {
    /// what `--format` calls it, e.g. "tscope", "rtl_power"
    public var name: String
    /// file name endings that select it, lower case without the dot, e.g. ["csv"]
    public var extensions: [String]
    /// opens the file at its first frame; a reader that is not a
    /// `SeekableSpectrumFrameReader` is wrapped in `ReopeningSeekableReader`
    public var open: @Sendable (_ path: String) throws -> any SpectrumFrameReader

    public init(name: String, extensions: [String],
                open: @escaping @Sendable (_ path: String) throws -> any SpectrumFrameReader) {
        self.name = name
        self.extensions = extensions
        self.open = open
    }

    /// the capture store (SQLite), seekable by its time index
    public static let tscope = ReplayFormat(name: "tscope", extensions: ["tscope"]) { path in
        try CaptureStoreReader(path: path)
    }
}

/// Opens any supported file for replay: the one place that maps a file name
/// or `--format` to a reader. Formats are tried in `formats` order; to add a
/// reader (rtl_power CSV, hackrf_sweep, soapy_power_bin, SigMF…) append a
/// `ReplayFormat` to `formats`.
public enum ReplaySourceOpener {
    /// every format replay knows
    public static let formats: [ReplayFormat] = [.tscope]

    /// The names `--format` accepts.
    public static var formatNames: [String] { formats.map(\.name) }

    /// Opens `path` as `formatName`, or as the format its extension names.
    public static func open(path: String, formatName: String? = nil) throws(CaptureError) -> any SeekableSpectrumFrameReader {
        guard FileManager.default.fileExists(atPath: path) else { throw CaptureError(file: path, "no such file") }
        let format = try choose(path: path, formatName: formatName)
        do {
            let first = try format.open(path)
            if let seekable = first as? any SeekableSpectrumFrameReader { return seekable }
            // The first reader serves the scan; later opens read afresh.
            var unused: (any SpectrumFrameReader)? = first
            return try ReopeningSeekableReader {
                if let reader = unused {
                    unused = nil
                    return reader
                }
                return try format.open(path)
            }
        } catch let error as CaptureError {
            throw error
        } catch {
            throw CaptureError(file: path, "cannot read as \(format.name): \(error)")
        }
    }

    /// The format for `path`: the named one, else by extension.
    static func choose(path: String, formatName: String?) throws(CaptureError) -> ReplayFormat {
        let known = formatNames.joined(separator: ", ")
        if let formatName {
            guard let format = formats.first(where: { $0.name == formatName.lowercased() }) else {
                throw CaptureError(file: path, "unknown --format \(formatName); known formats: \(known)")
            }
            return format
        }
        let name = (path as NSString).lastPathComponent.lowercased()
        if let format = formats.first(where: { format in format.extensions.contains { name.hasSuffix(".\($0)") } }) {
            return format
        }
        throw CaptureError(file: path, "cannot tell the format from the file name; expected one of \(known) "
            + "(extensions: \(formats.flatMap(\.extensions).map { "." + $0 }.joined(separator: ", "))) or --format")
    }
}
