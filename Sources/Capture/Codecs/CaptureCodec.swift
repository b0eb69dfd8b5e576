import Foundation
import Signals

/// One file format: the name `--format`/`--in-format` take, a line for help,
/// how its files are recognised, and — through `ReadableCaptureCodec` and
/// `WritableCaptureCodec` — its reader and writer. Every format is one
/// conforming type in the one list, `CaptureCodecs.all`; parsing `--format`,
/// help texts, detection and opening are all derived from that list.
public protocol CaptureCodec: Sendable {
    /// the `--format` / `--in-format` name ("rtl_power")
    var name: String { get }
    /// what the format is, in a few words, for help and messages
    /// ("rtl_power's CSV"); read after "is" in messages, no full stop, 50 characters at
    /// most (convert --help's table fits 80 columns)
    var summary: String { get }
    /// how `CaptureFormat.detect` finds this format from a path and its first bytes
    var recognition: CaptureRecognition { get }
    /// extensions that name this format for an output path (`convert in.csv out.bin`); empty where the
    /// extension is shared and `--format` must decide
    var outputExtensions: [String] { get }
}

extension CaptureCodec {
    /// most formats are named for output by --format only
    public var outputExtensions: [String] { [] }
}

/// A format tscope reads.
public protocol ReadableCaptureCodec: CaptureCodec {
    /// Opens `path` for reading frames in this format.
    func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader
}

/// A format tscope writes.
public protocol WritableCaptureCodec: CaptureCodec {
    /// Opens `path` ("-": stdout) for writing frames in this format.
    func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter

    /// A writer whose output appears at `path` only when `finish` succeeds (see `AtomicFrameWriter`).
    /// The default writes beside `path` under a temporary name and renames; a codec whose output
    /// is not one file written from the start (the capture store appends sessions) overrides it.
    func makeAtomicWriter(path: String, options: CaptureWriteOptions) throws -> AtomicFrameWriter
}

extension WritableCaptureCodec {
    public func makeAtomicWriter(path: String, options: CaptureWriteOptions) throws -> AtomicFrameWriter {
        let output = AtomicOutput(target: path)
        do {
            return AtomicFrameWriter(writer: try makeWriter(path: output.path, options: options), output: output)
        } catch {
            throw output.naming(error)
        }
    }

    /// The byte sink of a one-file writer: stdout for "-", else `path` created or truncated.
    func makeSink(path: String) throws -> OutputSink {
        if path == "-" { return OutputSink(fd: STDOUT_FILENO, name: "stdout") }
        do { return try OutputSink.file(path: path) } catch let error as OutputError {
            throw CaptureError(file: path, "cannot create: \(error.detail)")
        }
    }
}

/// A reader opened from its path and the read options, as most formats' are.
public protocol PathOpenedFrameReader: SpectrumFrameReader {
    init(path: String, options: CaptureReadOptions) throws
}

/// A readable format whose reader is a `PathOpenedFrameReader`: it names the
/// type (`typealias Reader = …`) and gets `makeReader` from it.
public protocol PathReaderCodec: ReadableCaptureCodec {
    associatedtype Reader: PathOpenedFrameReader
}

extension PathReaderCodec {
    public func makeReader(path: String, options: CaptureReadOptions) throws -> any SpectrumFrameReader {
        try Reader(path: path, options: options)
    }
}

/// A writer of one byte stream and nothing else to choose.
public protocol SinkFrameWriter: SpectrumFrameWriter {
    init(sink: OutputSink)
}

/// A writable format whose writer is a `SinkFrameWriter`: it names the type
/// (`typealias Writer = …`) and gets `makeWriter` from it.
public protocol SinkWriterCodec: WritableCaptureCodec {
    associatedtype Writer: SinkFrameWriter
}

extension SinkWriterCodec {
    public func makeWriter(path: String, options: CaptureWriteOptions) throws -> any SpectrumFrameWriter {
        Writer(sink: try makeSink(path: path))
    }
}

/// What a writer is told besides its path.
public struct CaptureWriteOptions: Sendable {
    /// the table layout, for `csv`
    public var csvLayout: CSVExporter.Layout
    /// the input's metadata (its level unit, and what goes into a new capture store)
    public var metadata: CaptureMetadata?

    public init(csvLayout: CSVExporter.Layout = .wide, metadata: CaptureMetadata? = nil) {
        self.csvLayout = csvLayout
        self.metadata = metadata
    }
}

/// How `CaptureFormat.detect` recognises a format's files. Detection goes in
/// stages, each over every codec in list order, and the first stage that
/// names a codec decides:
///
/// 1. `extensions`: the extension alone names the format; no byte is read.
/// 2. `magic`: the file starts with these bytes, whatever its extension.
/// 3. `checkedExtensions`: the extension names the format, but other kinds of
///    file share it, so `mismatch` looks at the first bytes and says why they
///    cannot be this format (detection then fails with that message).
/// 4. `firstLine`: a text whose first line matches `firstLine.pattern`; this
///    stage runs for a file with one of `firstLine.extensions` or whose first
///    byte is an ASCII digit (every sweep text starts with its date). A codec
///    that cannot read (the CSV export) is recognised here only to say so.
///
/// An extension belongs to at most one codec's `extensions` or
/// `checkedExtensions`; several codecs share `firstLine.extensions` (.csv is
/// rtl_power's and hackrf_sweep's: the first line decides).
public struct CaptureRecognition: Sendable {
    /// A text format told by its first line.
    public struct FirstLine: Sendable {
        /// a regular expression the start of the file matches
        public var pattern: String
        /// extensions of files whose first line is looked at even when it does not start with a digit
        public var extensions: [String]
        /// whether the whole first line (up to 1 MiB) has this format's
        /// structure, where the pattern alone cannot tell (nil: the pattern decides)
        public var structure: (@Sendable (_ line: Substring) -> Bool)?
        /// a first line of this format as a user recognises it, for the message when no format matches
        public var example: String

        public init(pattern: String, extensions: [String], example: String,
                    structure: (@Sendable (Substring) -> Bool)? = nil) {
            self.pattern = pattern
            self.extensions = extensions
            self.example = example
            self.structure = structure
        }
    }

    /// stage 1: extensions (lower case, without the dot) that name this format alone
    public var extensions: [String]
    /// stage 2: the bytes every file of this format, and no other, starts with
    public var magic: [UInt8]?
    /// stage 3: extensions this format shares with other kinds of file
    public var checkedExtensions: [String]
    /// stage 3: why a file's first bytes (up to 64) cannot be this format, as the user should read it;
    /// nil if they can
    public var mismatch: (@Sendable (_ head: [UInt8]) -> String?)?
    /// stage 4: the first line of a text format
    public var firstLine: FirstLine?
    /// whether the format's files are text: an unknown text file's message lists only these, an unknown
    /// binary file's only the others (a text format told by its first line is text)
    public var isText: Bool

    public init(extensions: [String] = [], magic: [UInt8]? = nil, checkedExtensions: [String] = [],
                mismatch: (@Sendable ([UInt8]) -> String?)? = nil, firstLine: FirstLine? = nil, isText: Bool? = nil) {
        self.extensions = extensions
        self.magic = magic
        self.checkedExtensions = checkedExtensions
        self.mismatch = mismatch
        self.firstLine = firstLine
        self.isText = isText ?? (firstLine != nil)
    }

    /// never recognised: named by `--format` only
    public static let byNameOnly = CaptureRecognition()
}
