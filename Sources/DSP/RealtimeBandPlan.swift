import Signals

/// How a live analyzer watches a band (`--mode`).
public enum AnalysisMode: String, CaseIterable, Sendable {
    /// real time where the band fits the analyzer's instantaneous bandwidth, else sweep
    case auto
    /// stream every sample of one tuning through overlapped FFTs
    case realtime
    /// step across the band (hackrf_sweep, rtl_power), watching each frequency part of the time
    case sweep

    /// Whether a band `widthHz` wide is watched in real time by an analyzer
    /// that streams at most `realtimeLimitHz` at once (nil: it cannot).
    public func watchesInRealTime(widthHz: Double, realtimeLimitHz: Double?) -> Bool {
        guard let limit = realtimeLimitHz else { return false }
        switch self {
        case .sweep: return false
        case .realtime: return true
        case .auto: return widthHz <= limit * (1 + 1e-9)
        }
    }
}

/// One tuning of a streaming radio laid over a band: which FFT size gives
/// bins no wider than asked, and which bins of the centred spectrum fall
/// inside the band.
public struct RealtimeBandPlan: Sendable, Equatable {
    public let band: FrequencyRange
    /// the radio's centre frequency [Hz]
    public let centreHz: Double
    public let sampleRateHz: Double
    /// N [samples]
    public let fftSize: Int
    /// centred bins (0 = −fs/2, N/2 = the centre) whose centres lie in the band
    public let keptBins: Range<Int>

    /// - Parameters:
    ///   - binWidthHz: the widest bins wanted; the FFT's are this or narrower (a power of two)
    public init(band: FrequencyRange, centreHz: Double, sampleRateHz: Double, binWidthHz: Double) {
        self.band = band
        self.centreHz = centreHz
        self.sampleRateHz = sampleRateHz
        let n = RealtimeSpectrum.fftSize(sampleRateHz: sampleRateHz, binWidthHz: binWidthHz)
        fftSize = n
        let width = sampleRateHz / Double(n)
        let first = Int(((band.lowerHz - centreHz) / width + Double(n / 2)).rounded(.up))
        let last = Int(((band.upperHz - centreHz) / width + Double(n / 2)).rounded(.down))
        let lower = max(0, min(n - 1, first)), upper = max(lower, min(n - 1, last))
        keptBins = lower..<(upper + 1)
    }

    /// Where to tune a radio streaming at `sampleRateHz` to watch `band`,
    /// so that its DC offset (and the removal of it, which takes a signal
    /// at exactly the tuned frequency with it) stays off the band's centre,
    /// where users put the carrier they measure:
    /// - a band of at most 0.4·fs is offset-tuned: the radio sits 0.05·fs
    ///   below the band (above it where that would be under `lowestHz`), so
    ///   the whole band lies clear of DC, inside 0.45·fs;
    /// - a wider band is centred but for δ = min(0.01·fs, room left inside
    ///   ±fs/2): DC lands δ off the centre — at the centre only when the band
    ///   fills the whole sample rate (a 20 MHz band at 20 MS/s), where it is
    ///   removed with whatever sits there, as gqrx's "DC remove" does.
    public static func tunedCentre(for band: FrequencyRange, sampleRateHz fs: Double, lowestHz: Double = 0) -> Double {
        if band.spanHz <= 0.4 * fs {
            let below = band.lowerHz - 0.05 * fs
            return (below >= lowestHz ? below : band.upperHz + 0.05 * fs).rounded()
        }
        let room = 0.5 * fs - band.spanHz / 2
        return (band.centerHz + max(0, min(room, 0.01 * fs))).rounded()
    }

    /// true when the tuned frequency (DC) lies outside the band
    public var isOffsetTuned: Bool { !(band.lowerHz...band.upperHz).contains(centreHz) }

    /// fs / N [Hz]
    public var binWidthHz: Double { sampleRateHz / Double(fftSize) }
    /// the lower edge of the first kept bin: a frame's `startHz` [Hz]
    public var frameStartHz: Double {
        centreHz + (Double(keptBins.lowerBound - fftSize / 2) - 0.5) * binWidthHz
    }
}
