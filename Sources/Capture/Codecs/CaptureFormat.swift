import Foundation
import Signals

/// A file format tscope reads or writes, named as `--format` takes it: a
/// handle on its codec. The formats are the codecs of `CaptureCodecs.all`;
/// the static members (`.rtlPower`, `.tscope` …, declared beside each codec)
/// are names for code and tests. Two formats are equal when their names are.
public struct CaptureFormat: Sendable, Hashable, CustomStringConvertible {
    public let codec: any CaptureCodec

    public init(_ codec: any CaptureCodec) { self.codec = codec }

    /// The format `--format NAME` names, from the list; nil for a name no codec has.
    public init?(rawValue: String) {
        guard let codec = CaptureCodecs.all.first(where: { $0.name == rawValue }) else { return nil }
        self.codec = codec
    }

    /// the `--format` name
    public var rawValue: String { codec.name }
    public var description: String { codec.name }

    /// every format, in the list's order
    public static var allCases: [CaptureFormat] { CaptureCodecs.all.map(CaptureFormat.init) }

    public var canRead: Bool { codec is any ReadableCaptureCodec }
    public var canWrite: Bool { codec is any WritableCaptureCodec }

    /// formats `--in-format` accepts, for messages
    public static var readable: String { allCases.filter(\.canRead).map(\.rawValue).joined(separator: ", ") }
    /// formats convert's `--format` accepts, for messages
    public static var writable: String { allCases.filter(\.canWrite).map(\.rawValue).joined(separator: ", ") }

    public static func == (lhs: CaptureFormat, rhs: CaptureFormat) -> Bool { lhs.codec.name == rhs.codec.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(codec.name) }

    /// Opens a reader for `path` in this format.
    public func openReader(path: String, options: CaptureReadOptions) throws -> SpectrumFrameReader {
        guard let codec = codec as? any ReadableCaptureCodec else {
            throw CaptureError(file: path, "\(rawValue) is an output format only; inputs: \(Self.readable)")
        }
        return try codec.makeReader(path: path, options: options)
    }

    /// Opens a writer for `path` in this format (`csvLayout` for .csv). A
    /// capture store that exists is appended to as a new session, never
    /// overwritten; `metadata` (the input's) goes into a new store.
    public func openWriter(path: String, csvLayout: CSVExporter.Layout = .wide,
                           metadata: CaptureMetadata? = nil) throws -> SpectrumFrameWriter {
        try writableCodec(path: path).makeWriter(path: path, options: CaptureWriteOptions(csvLayout: csvLayout,
                                                                                          metadata: metadata))
    }

    /// `openWriter` for a command's output: nothing appears at `path` unless
    /// `finish` succeeds, and `abandon` (or a failed `finish`) leaves it as it
    /// was. A new file is written beside `path` under a temporary name and
    /// renamed; a session appended to an existing capture store is one
    /// transaction, rolled back whole.
    public func openAtomicWriter(path: String, csvLayout: CSVExporter.Layout = .wide,
                                 metadata: CaptureMetadata? = nil) throws -> AtomicFrameWriter {
        try writableCodec(path: path).makeAtomicWriter(path: path, options: CaptureWriteOptions(csvLayout: csvLayout,
                                                                                                metadata: metadata))
    }

    private func writableCodec(path: String) throws -> any WritableCaptureCodec {
        guard let codec = codec as? any WritableCaptureCodec else {
            throw CaptureError(file: path, "tscope cannot write \(rawValue) yet; outputs: \(Self.writable)")
        }
        return codec
    }
}
