import ArgumentParser
import CommandOptions
import Runs

/// Headless recording into the capture store (or raw I/Q as SigMF).
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record the spectrum into a capture file (SQLite), or raw I/Q as SigMF with --raw.",
        discussion: """
            The file name is built from operator, label and UTC start, e.g. bench2_fm-survey_20261121T101500Z.tscope, in \
            --output DIR (default: the current directory), unless --output names a file (later recordings are appended to it \
            as new sessions). Frames are committed twice a second: a crash loses under a second. Ctrl-C or SIGTERM stop early \
            and keep everything recorded. A write error (disk full) ends the recording at once, keeping what was stored, exit \
            1. At the end the requested and achieved frame rates, the dropped and bad blocks are printed and stored.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band to record, start:stop in MHz (default 88:108).", transform: Band.init(parsing:))
    var band: Band = Band(defaultMHz: 88, 108)

    @Option(name: [.customShort("w"), .customLong("bin-width")], help: "Bin width in Hz (the device may round it).")
    var binWidth: Double = 100_000

    @Option(name: .customLong("frame-rate"),
            help: "Frames per second to store, each the per-bin peak of the sweeps since the last; 0: every sweep.")
    var frameRate: Double = 10

    @Option(help: "Label for the file name and metadata, e.g. fm-survey.")
    var label: String?

    @Option(name: .customLong("operator"), help: "Operator or bench name for the file name and metadata.")
    var operatorName: String?

    @Option(help: "Stop after this long: seconds, or with a unit: 90s, 5m, 1h.", transform: TimeSpan.init(parsing:))
    var duration: TimeSpan?

    @Option(name: [.customShort("o"), .long], help: "Directory for a new file, or a file path.")
    var output: String = "."

    @Flag(help: "Record raw I/Q as SigMF (.sigmf-data + .sigmf-meta) instead of spectra: ci8 from a HackRF (each sweep block), cu8 from an RTL-SDR (tuned to the band centre at 2.4 MS/s).")
    var raw = false

    @OptionGroup var hackRFLetters: HackRFLetterOptions

    func validate() throws {
        try analyzerOptions.checkMode(bands: [band.range], device: deviceOptions.device)
        guard binWidth.isFinite, binWidth > 0 else { throw ValidationError("--bin-width must be a positive number of Hz") }
        guard frameRate.isFinite, frameRate >= 0 else { throw ValidationError("--frame-rate must be 0 or more") }
    }

    func run() throws {
        var selection = try analyzerOptions.apply(to: deviceOptions.selection)
        hackRFLetters.apply(to: &selection.settings)
        let band = self.band.real(behind: deviceOptions.conversion)
        let request = try RecordingRequest(
            selection: selection, band: band.range, bandText: band.text, binWidthHz: binWidth,
            frameRate: frameRate, label: label, operatorName: operatorName, durationSeconds: duration?.seconds,
            outputPath: output, detector: detectorOption.chosen(default: .peak))
        if raw {
            try RawRecording.run(request)
        } else {
            try usage { try SpectrumRecording(request: request).run() }
        }
    }
}
