import ArgumentParser
import CommandOptions
import Runs

/// A bench analyzer's one-key measurements, headless.
struct MeasureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Measure harmonics, two-tone intermodulation (TOI), adjacent-channel power (ACPR) or noise density.",
        discussion: """
            Sweeps the band the measurement needs, averages --sweeps sweeps in power and reads tones as a marker does (window \
            gain and scalloping corrected) and channels as channel power. dBc and the intercept's distance from the tones hold \
            on any analyzer; absolute levels need a calibrated one (the output's "relative" says which). \
            Docs/measurements-and-events.md shows each reading.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions
    @OptionGroup(title: "Measurement") var measureOptions: MeasureOptions

    func run() throws {
        let settings = MeasureRun.Settings(kind: try measureOptions.measurement, sweeps: measureOptions.sweeps,
                                           count: measureOptions.repeats, json: measureOptions.json,
                                           checkGainDB: measureOptions.checkGain)
        let selection = try analyzerOptions.apply(to: deviceOptions.selection)
        try usage {
            try MeasureRun.live(selection, settings: settings) { band, limits in
                guard limits.lowerHz <= band.lowerHz, band.upperHz <= limits.upperHz else {
                    throw UsageError("measure \(measureOptions.kind.rawValue): it needs \(band), beyond the analyzer's \(limits)")
                }
                return band
            }
        }
    }
}
