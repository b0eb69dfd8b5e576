import ArgumentParser
import Capture
import Foundation
import Signals

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
        let reader = try inputOptions.openReader(path: input, format: inputFormat)
        let writer: SpectrumFrameWriter
        do {
            writer = try outputFormat.openWriter(path: output, csvLayout: layout.layout, metadata: reader.metadata)
        } catch {
            throw CommandError("\(error)")
        }
        let progress = ConvertProgress()
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var frames = 0
        do {
            while try reader.next(into: &frame) {
                try writer.write(frame, readBy: reader)
                frames += 1
                if frames & 63 == 0 { progress.update(done: reader.progress.done, total: reader.progress.total) }
            }
            progress.finish()
            try writer.finish()
        } catch {
            progress.finish()
            // keep what was converted before the error
            try? writer.finish()
            throw CommandError("\(error)")
        }
        reportSkips(reader)
        printError("\(frames) frames from \(inputFormat.rawValue) to \(outputFormat.rawValue)")
    }
}

/// Warns once about damage a reader skipped.
func reportSkips(_ reader: SpectrumFrameReader) {
    if let missing = (reader as? MissingValueReporting)?.missingValues, missing > 0 {
        printError("note: \(missing) value(s) were nan (not measured): kept as no data")
    }
    guard reader.skipped > 0 else { return }
    let first = (reader as? DamageReporting)?.firstSkipped.map { " (first: \($0))" } ?? ""
    printError("warning: skipped \(reader.skipped) damaged line(s) or record(s)\(first); --strict makes this fatal")
}

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
