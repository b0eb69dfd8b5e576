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

    /// fs / N [Hz]
    public var binWidthHz: Double { sampleRateHz / Double(fftSize) }
    /// the lower edge of the first kept bin: a frame's `startHz` [Hz]
    public var frameStartHz: Double {
        centreHz + (Double(keptBins.lowerBound - fftSize / 2) - 0.5) * binWidthHz
    }
}
