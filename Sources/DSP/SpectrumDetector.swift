import Signals

/// How a swept analyzer turns the samples it captured at one tuning step
/// (its dwell) into one level per bin, as a bench analyzer's detector does.
///
/// At each step the HackRF delivers 8187 usable samples (a 16384-byte block
/// less its 10-byte header; Firmware-Notes/hackrf-sweep.md), about 409 µs at
/// 20 MS/s. hackrf_sweep transforms only the last N of them; the other
/// detectors cut the whole dwell into back-to-back N-sample segments.
public enum SpectrumDetector: String, CaseIterable, Sendable {
    /// the last N samples only: hackrf_sweep's and rtl_power's numbers exactly
    case sample
    /// every segment of the dwell; each bin keeps its largest power, so a
    /// burst anywhere in the dwell shows at its level (nothing seen is lost)
    case peak
    /// every segment of the dwell averaged in linear power (Welch): the noise
    /// floor's scatter falls as 1/√K for K segments, and a power reads as power
    case average
    /// the same as `average`: the mean of |X|² is the RMS voltage squared, so
    /// in power the two are one measurement (bench analyzers offer both names)
    case rms

    /// what the per-bin powers of the segments are combined into
    public var combinesByMaximum: Bool { self == .peak }

    /// true when only the last segment counts
    public var usesLastSegmentOnly: Bool { self == .sample }

    /// average and rms: the linear mean of power (one measurement, two names)
    public var isPowerMean: Bool { self == .average || self == .rms }
}

extension DetectorLevels {
    /// the levels `detector` made (rms is average: one measurement in power)
    public func levels(by detector: SpectrumDetector) -> [Float] {
        switch detector {
        case .peak: return peak
        case .average, .rms: return average
        case .sample: return sample
        }
    }
}

extension SpectrumFrame {
    /// this frame's levels by `detector`, where its source kept every detector; nil otherwise
    public func levels(by detector: SpectrumDetector) -> [Float]? { everyDetector?.levels(by: detector) }
}
