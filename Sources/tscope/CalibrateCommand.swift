import ArgumentParser
import CommandOptions
import Runs

/// `tscope calibrate`: turns an analyzer's dB into dBm with reference signals.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Calibrate an analyzer to dBm with reference signals of known level at its input.",
        discussion: """
            REF.csv has the header frequency_hz,level_dbm and one row per reference signal at the input: all present at once \
            (a comb generator, several generators), or with --step one at a time (each prompted for). Each is measured as \
            channel power over --channel around it (average detector, noise-bandwidth corrected, the noise beside it \
            subtracted) over --sweeps sweeps; the offset is its level minus what was measured, and ±1σ the spread of the \
            sweeps. The table names the model, serial and settings it was made with, and goes to \
            ${XDG_CONFIG_HOME:-~/.config}/tscope/calibration/MODEL-SERIAL.csv unless --output says otherwise; every command \
            then applies it to that analyzer (linear in dB between the references, other gains corrected by the gain steps). \
            References need 2 × --channel of room each; one not 10 dB above the noise beside it, outside the analyzer's range, \
            or a bad row writes no table.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions

    @Option(help: ArgumentHelp("The reference signals: CSV with the header frequency_hz,level_dbm.", valueName: "ref.csv"))
    var reference: String

    @Option(name: [.customShort("o"), .long], help: "Write the table here instead of the calibration folder.")
    var output: String?

    @Option(help: "Sweeps each reference is measured over (its repeatability is their spread).")
    var sweeps: Int = 20

    @Option(name: .customLong("bin-width"), help: "The analyzer's bin width while measuring [Hz].")
    var binWidth: Double = 100_000

    @Option(help: "Width of the channel measured around each reference [Hz].")
    var channel: Double = 1_000_000

    @Flag(help: "One reference at a time: prompt to set the generator to each row, then Enter.")
    var step = false

    func validate() throws {
        guard deviceOptions.remote == nil else {
            throw ValidationError("calibrate measures a local analyzer; run it on the sensor's machine")
        }
        guard (2...10_000).contains(sweeps) else { throw ValidationError("--sweeps \(sweeps): expected 2…10000") }
        guard binWidth.isFinite, binWidth > 0 else { throw ValidationError("--bin-width \(binWidth): expected Hz > 0") }
        guard channel.isFinite, channel >= 2 * binWidth else {
            throw ValidationError("--channel \(channel): expected at least two bins (2 × --bin-width)")
        }
        if analyzerOptions.calibration != nil || analyzerOptions.levelUnitsGiven {
            throw ValidationError("--calibration, --unit, --correction, --antenna-factor: calibrate measures without them "
                + "(the table it writes is the calibration)")
        }
    }

    func run() throws {
        let request = CalibrationRequest(
            selection: try analyzerOptions.apply(to: deviceOptions.selection), referencePath: reference,
            outputPath: output, sweeps: sweeps, binWidthHz: binWidth, channelHz: channel, step: step)
        let (table, path) = try usage { try CalibrateRun.run(request) }
        print(CalibrateRun.report(table, path: path), terminator: "")
    }
}
