import ArgumentParser
import DSP

extension SpectrumDetector: ExpressibleByArgument {}

/// `--trace live|max|min|avg|avg:N` on watch and replay (t cycles in the view).
extension TraceMode: ExpressibleByArgument {
    public static var allValueStrings: [String] { ["live", "max", "min", "avg", "avg:N"] }
}

/// `--detector`: how each tuning step's samples become one level per bin
/// (SpectrumDetector). Each command has its own default: `sweep` keeps
/// hackrf_sweep's numbers, the views and `record` lose nothing seen, the
/// meter measures mean power.
struct DetectorOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Detector over each tuning step's samples: sample (hackrf_sweep's last N), peak (largest over the whole "
            + "dwell), average or rms (linear mean over the dwell). Default: sample for sweep, average for meter, "
            + "peak otherwise."))
    var detector: SpectrumDetector?

    /// the detector asked for, else `fallback`
    func chosen(default fallback: SpectrumDetector) -> SpectrumDetector { detector ?? fallback }
}
