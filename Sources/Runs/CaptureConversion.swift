import Capture
import Foundation
import Signals
import Synchronization
import ThreadKit

/// `convert` (and `export --csv`): a capture streamed from one format into
/// another in constant memory. The output appears only when the run succeeds;
/// a signal ends it like an error, the partial output removed.
public struct CaptureConversion {
    public var input: String
    public var inputFormat: CaptureFormat
    public var output: String
    public var outputFormat: CaptureFormat
    public var readOptions: CaptureReadOptions
    /// table layout of a csv output
    public var csvLayout: CSVExporter.Layout = .wide

    /// Checks that `outputFormat` (given, or from the output's extension) can be written there.
    public init(input: String, inputFormat: CaptureFormat, output: String, outputFormat: CaptureFormat?,
                readOptions: CaptureReadOptions) throws {
        guard let format = outputFormat ?? CaptureFormat.forOutput(path: output) else {
            throw CommandError("\(output): say which format to write with --format (\(CaptureFormat.writable))")
        }
        guard format.canWrite else {
            throw CommandError("\(output): tscope cannot write \(format.rawValue) here; outputs: \(CaptureFormat.writable)")
        }
        if format == .tscope, Self.sameFile(input, output) {
            throw CommandError("\(output): is the input; a capture store cannot take a copy of itself as a new session")
        }
        self.input = input
        self.inputFormat = inputFormat
        self.output = output
        self.outputFormat = format
        self.readOptions = readOptions
    }

    /// Converts; skips are reported on stderr; returns the closing line.
    public func run() throws -> String {
        let reader = try CaptureInput.open(input, format: inputFormat, options: readOptions)
        // ^C or kill ends the run like an error: the partial output is removed (watched before it exists)
        let interrupted = Atomic<Bool>(false)
        let signals = SignalWatch { interrupted.store(true, ordering: .relaxed) }
        defer { signals.cancel() }
        // a failed run leaves nothing new: the output appears (or the appended session commits) on success only
        let writer = try outputFormat.openAtomicWriter(path: output, csvLayout: csvLayout, metadata: reader.metadata)
        let progress = ConvertProgress()
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var frames = 0
        do {
            while try reader.next(into: &frame) {
                if interrupted.load(ordering: .relaxed) { throw CommandError("interrupted: \(output) left as it was") }
                try writer.write(frame, readBy: reader)
                frames += 1
                if frames & 63 == 0 { progress.update(done: reader.progress.done, total: reader.progress.total) }
            }
            progress.finish()
            guard frames > 0 else { throw CaptureError(file: input, "no frames in it: nothing to convert") }
            try writer.finish()
        } catch {
            progress.finish()
            writer.abandon()
            throw error
        }
        reportSkips(reader)
        return "\(frames) frames from \(CaptureInput.formatName(input, inputFormat)) to \(outputFormat.rawValue)"
    }

    /// Whether two paths name one existing file (same device and inode).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
