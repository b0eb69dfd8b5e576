import Signals

/// How a swept analyzer turns the samples it captured at one tuning step
/// (its dwell) into one level per bin, as a bench analyzer's detector does.
///
/// At each step the HackRF delivers 8187 usable samples (a 16384-byte block
/// less its 10-byte header; Firmware-Notes/hackrf-sweep.md), about 409 µs at
/// 20 MS/s. hackrf_sweep transforms only the last N of them; the other
/// detectors cut the whole dwell into back-to-back N-sample segments.
///
/// Each FFT bin is a Hann-windowed filter, and its |X| over the segments is
/// that filter's envelope sampled once per segment: the detectors differ in
/// how those envelope samples become one level.
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
    /// CISPR 16-1-1's average detector: the linear mean of the envelope
    /// **voltage** |X| over every segment of the dwell, then 20·log10 (stored
    /// as the power (mean |X|)², so it reads in the same dB as the others). A
    /// carrier pulsed at duty cycle d reads 20·log10(d) below its peak here
    /// and 10·log10(d) on `average`/`rms`; Gaussian noise reads 1.05 dB below
    /// its mean power (the Rayleigh envelope's mean is √(π/4) of its RMS).
    case cisprAverage = "cispr-average"

    /// how one transform's bin powers enter the per-bin accumulator: the
    /// first transform of a dwell starts it afresh, the later ones combine
    public func combination(first: Bool) -> PowerSpectrumFFT.Combination {
        switch self {
        case .sample: return .replace
        case .peak: return first ? .replace : .maximum
        case .average, .rms: return first ? .replace : .sum
        case .cisprAverage: return first ? .replaceByEnvelope : .sumOfEnvelopes
        }
    }

    /// how the accumulator of `transforms` transforms becomes a power:
    /// divided by the count (a mean), and squared where it holds envelope
    /// voltages (the CISPR average: (Σ|X| / K)²)
    public func accumulatedPower(_ accumulated: Float, transforms: Int) -> Float {
        switch self {
        case .sample, .peak: return accumulated
        case .average, .rms: return accumulated / Float(max(1, transforms))
        case .cisprAverage:
            let meanEnvelope = accumulated / Float(max(1, transforms))
            return meanEnvelope * meanEnvelope
        }
    }

    /// true when only the last segment counts
    public var usesLastSegmentOnly: Bool { self == .sample }

    /// average and rms: the linear mean of power (one measurement, two names)
    public var isPowerMean: Bool { self == .average || self == .rms }

    /// Where this detector's levels sit among a source's every-detector
    /// planes (`DetectorLevels`, `SweepFFT`, `RealtimeSpectrum`): peak 0,
    /// the power mean 1 (average and rms), sample 2, CISPR average 3.
    public var everyDetectorPlane: Int {
        switch self {
        case .peak: return 0
        case .average, .rms: return 1
        case .sample: return 2
        case .cisprAverage: return 3
        }
    }

    /// planes a source keeping every detector holds (`everyDetectorPlane`)
    public static let everyDetectorPlaneCount = 4

    /// How levels of this detector are merged over frequency, when a plot
    /// column or a viewer's coarser bin holds several bins: a power mean
    /// stays a mean (band power), the others keep the largest bin — the CISPR
    /// average of a column is its highest bin's, each bin detected at the
    /// analyzer's resolution (with `--rbw cispr`, the CISPR bandwidth).
    public var columnDetector: ColumnDetector { isPowerMean ? .mean : .peak }
}

extension DetectorLevels {
    /// the levels `detector` made (rms is average: one measurement in power)
    public func levels(by detector: SpectrumDetector) -> [Float] {
        switch detector {
        case .peak: return peak
        case .average, .rms: return average
        case .sample: return sample
        case .cisprAverage: return cisprAverage
        }
    }
}

extension SpectrumFrame {
    /// this frame's levels by `detector`, where its source kept every detector; nil otherwise
    public func levels(by detector: SpectrumDetector) -> [Float]? { everyDetector?.levels(by: detector) }
}
