import ArgumentParser
import Capture
import DSP
import Runs
import ViewModels

extension SpectrumDetector: ExpressibleByArgument {}

/// `--trace live|max|min|avg|avg:N` on watch and replay (t cycles in the view).
extension TraceMode: ExpressibleByArgument {
    public static var allValueStrings: [String] { ["live", "max", "min", "avg", "avg:N"] }
}

/// `--detector`: how each tuning step's samples become one level per bin
/// (SpectrumDetector). Each command has its own default: `sweep` keeps
/// hackrf_sweep's numbers, the views and `record` lose nothing seen, the
/// meter measures mean power.
public struct DetectorOption: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp(
        "Detector over each tuning step's samples: sample (hackrf_sweep's last N), peak (largest over the whole "
            + "dwell), average or rms (linear mean of power over the dwell), cispr-average (CISPR 16-1-1's average: "
            + "linear mean of the envelope voltage, then dB; with --rbw cispr). Default: sample for sweep, average "
            + "for meter, peak otherwise. No quasi-peak (CISPR 16-1-1's charge/discharge time constants are not "
            + "modelled): peak reads at or above it, cispr-average at or below."))
    public var detector: SpectrumDetector?

    /// the detector asked for, else `fallback`
    public func chosen(default fallback: SpectrumDetector) -> SpectrumDetector { detector ?? fallback }
}

/// `--reference FILE` and `--subtract-reference` on watch and replay: a
/// stored trace (the CSV `export --csv F --trace …` writes) drawn dimmed
/// behind the live one, or subtracted from it.
public struct ReferenceOption: ParsableArguments {
    public init() {}

    @Option(name: .customLong("reference"), help: "Reference trace: CSV of frequency_hz,power_db rows (export --trace); s stores one.")
    public var path: String?

    @Flag(name: .customLong("subtract-reference"), help: "Show live − reference [dB] in the plot and the waterfall.")
    public var subtract = false

    public func validate() throws {
        if subtract && path == nil { throw ValidationError("--subtract-reference needs --reference FILE") }
    }

    /// Loads the file into the model (a bad file is one line).
    public func apply(to model: AnalyzerModel) throws {
        guard let path else { return }
        model.setReference(try LevelPointsCSV.read(path: path), subtract: subtract)
    }
}
