import ArgumentParser
import Capture
import Foundation
import Runs
import Signals
import Synchronization
import ThreadKit

/// Streams a capture from one format into another in constant memory.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert between formats (tscope capture store, rtl_power, hackrf_sweep, soapy_power_bin, SigMF, raw I/Q, CSV).",
        discussion: """
            The input format comes from the extension and the first bytes (or --in-format), the output format from \
            the extension (.bin: hackrf_sweep -B, .sdrff: soapy_power_bin) or --format. CSV outputs need --format: \
            hackrf_sweep, or csv (a table for pandas, see `tscope export --csv`). --format null reads the whole \
            input and writes nothing: a check of a file.
            Damaged lines or records are skipped and counted with a warning; --strict stops at the first.
            The output appears only when the run succeeds (it is written beside it under a temporary name); a session \
            appended to an existing capture store is rolled back whole if the run fails.
            """
    )

    @Argument(help: "Input capture.")
    var input: String

    @Argument(help: "Output file ('-' for stdout).")
    var output: String

    @Option(help: "Output format: tscope, rtl_power, hackrf_sweep, hackrf_sweep_binary, soapy_power_bin, csv, null.")
    var format: CaptureFormatArgument?

    @Option(help: "Table layout for --format csv: wide (one row per frame) or long (one row per bin).")
    var layout: CSVLayoutArgument = .init(layout: .wide)

    @OptionGroup var inputOptions: CaptureInputOptions

    func run() throws {
        let inputFormat = try inputOptions.format(of: input)
        guard let outputFormat = format?.format ?? CaptureFormat.forOutput(path: output) else {
            throw CommandError("\(output): say which format to write with --format (\(CaptureFormat.writable))")
        }
        guard outputFormat.canWrite else {
            throw CommandError("\(output): tscope cannot write \(outputFormat.rawValue) here; outputs: \(CaptureFormat.writable)")
        }
        if outputFormat == .tscope, Self.sameFile(input, output) {
            throw CommandError("\(output): is the input; a capture store cannot take a copy of itself as a new session")
        }
        let reader = try inputOptions.openReader(path: input, format: inputFormat)
        // ^C or kill ends the run like an error: the partial output is removed (watched before it exists)
        let interrupted = InterruptFlag()
        let signals = SignalWatch(signals: [SIGINT, SIGTERM, SIGHUP]) { interrupted.set() }
        defer { signals.cancel() }
        // a failed run leaves nothing new: the output appears (or the appended session commits) on success only
        let writer: AtomicFrameWriter
        writer = try outputFormat.openAtomicWriter(path: output, csvLayout: layout.layout, metadata: reader.metadata)
        let progress = ConvertProgress()
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var frames = 0
        do {
            while try reader.next(into: &frame) {
                if interrupted.isSet { throw CommandError("interrupted: \(output) left as it was") }
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
        printError("\(frames) frames from \(inputFormat.rawValue) to \(outputFormat.rawValue)")
    }
}

extension ConvertCommand {
    /// Whether two paths name one existing file (same device and inode).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}

/// Set by a signal handler, read by the converting loop.
final class InterruptFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// Warns once about damage a reader skipped.
struct CSVLayoutArgument: ExpressibleByArgument {
    var layout: CSVExporter.Layout
    init(layout: CSVExporter.Layout) { self.layout = layout }
    init?(argument: String) {
        guard let layout = CSVExporter.Layout(rawValue: argument) else { return nil }
        self.layout = layout
    }
    var defaultValueDescription: String { layout.rawValue }
    static var allValueStrings: [String] { CSVExporter.Layout.allCases.map(\.rawValue) }
}
