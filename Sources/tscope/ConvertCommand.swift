import ArgumentParser
import CommandOptions
import Capture
import Foundation
import Runs

/// Streams a capture from one format into another in constant memory.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a capture from one format into another (convert --help lists the formats).",
        discussion: """
            The input format comes from the extension and the first bytes (or --in-format), the output format from the \
            extension (\(CaptureFormat.outputExtensionsHelp)) or --format. CSV outputs need --format: hackrf_sweep, or csv (a \
            table for pandas, see `tscope export --csv`). --format null reads the whole input and writes nothing: a check of a \
            file.
            Damaged lines or records are skipped and counted with a warning; --strict stops at the first.
            The output appears only when the run succeeds (it is written beside it under a temporary name); a session appended \
            to an existing capture store is rolled back whole if the run fails.
            Formats (r: read, w: written):
            \(CaptureFormat.helpTable)
            """
    )

    @Argument(help: "Input capture.")
    var input: String

    @Argument(help: "Output file ('-' for stdout).")
    var output: String

    @Option(help: "Output format: \(CaptureFormat.writable).")
    var format: CaptureFormatArgument?

    @Option(help: "Table layout for --format csv: wide (one row per frame) or long (one row per bin).")
    var layout: CSVLayoutArgument = .init(layout: .wide)

    @OptionGroup var inputOptions: CaptureInputOptions

    func run() throws {
        var conversion = try CaptureConversion(input: input, inputFormat: inputOptions.format(of: input), output: output,
                                               outputFormat: format?.format, readOptions: inputOptions.readOptions)
        conversion.csvLayout = layout.layout
        printError(try conversion.run())
    }
}
