import ArgumentParser
import Signals
import ViewModels

/// `--log-frequency` on watch, replay (through `BandPlanViewOptions`) and
/// `export --png`: frequency across on a logarithmic axis, for wide EMC plots
/// (150 kHz–30 MHz, 30 MHz–1 GHz). A band starting at 0 Hz is refused in one
/// line (`LogFrequencyError`).
public struct FrequencyAxisOption: ParsableArguments {
    public init() {}

    public static let help = "Frequency across on a logarithmic axis (EMC plots: 150k:30M, 30M:1000M); ticks at 1-2-5 × 10ⁿ; the band must start above 0 Hz; l toggles it in watch and replay."

    @Flag(name: .customLong("log-frequency"), help: ArgumentHelp(Self.help))
    public var logFrequency = false

    /// Refuses a band from 0 Hz on a logarithmic axis (a command's validate, before any device or terminal).
    public func check(_ band: FrequencyRange) throws {
        guard logFrequency else { return }
        do { try LogFrequencyError.check(band) } catch { throw ValidationError(error.description) }
    }

    /// Puts the axis into the viewer's model, refusing a band from 0 Hz.
    public func apply(to model: AnalyzerModel) throws {
        guard logFrequency else { return }
        do {
            try LogFrequencyError.check(model.plot.visibleBand)
        } catch {
            throw ValidationError(error.description)
        }
        model.plot.setLogFrequency(true)
    }
}
