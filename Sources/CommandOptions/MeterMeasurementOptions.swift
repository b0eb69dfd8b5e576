import ArgumentParser
import DSP
import Runs

/// What `meter` measures besides the channel power: occupied bandwidth, the
/// highest peaks, and which trace (live, held or averaged).
public struct MeterMeasurementOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: "Occupied bandwidth: the band holding this percent of the power (e.g. 99).")
    public var obw: Double?

    @Option(name: .long, help: "Report the K highest peaks (a peak rises --excursion dB over its surroundings).")
    public var peaks: Int = 0

    @Option(name: .long, help: "Peak excursion [dB] for --peaks.")
    public var excursion: Double = 6

    @Option(name: .long, help: ArgumentHelp(
        "Measure a held or averaged trace, as a bench analyzer's channel power does: max or min hold since the "
            + "start, or avg:N (linear mean of the last N sweeps). Default live: each interval's sweeps.",
        valueName: "live|max|min|avg|avg:N"))
    public var trace: TraceMode = .live

    public func validate() throws {
        if let obw, !(obw > 0 && obw < 100) { throw ValidationError("--obw \(obw): expected a percent between 0 and 100") }
        guard (0...100).contains(peaks) else { throw ValidationError("--peaks \(peaks): expected 0…100") }
        guard excursion.isFinite, excursion >= 0 else { throw ValidationError("--excursion \(excursion): expected dB ≥ 0") }
    }

    /// what the per-interval spectrum is measured for, nil when nothing is asked
    public var request: MeterMeasurementRequest? {
        obw == nil && peaks == 0 ? nil
            : MeterMeasurementRequest(occupiedPercent: obw, peakCount: peaks, excursionDB: Float(excursion))
    }
}
