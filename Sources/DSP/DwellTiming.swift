/// How long a swept analyzer watches each frequency and how often it comes
/// back: the probability of intercept a user needs to know what a sweep can
/// miss.
///
/// A pulse train of width w and period T (w ≤ T) shows in a sweep when one of
/// its pulses overlaps the dwell D at its frequency; with pulses uncorrelated
/// with the sweep, that happens in a fraction min(1, (D + w) / T) of sweeps
/// (for T shorter than the revisit time; a longer T is also missed whole
/// sweeps at a time).
public struct DwellTiming: Sendable, Equatable {
    /// time each frequency is watched per sweep [s]
    public let dwellSeconds: Double
    /// time between two looks at the same frequency: one sweep [s]
    public let revisitSeconds: Double

    /// set in real-time mode: how the stream is transformed (every sample is watched)
    public var realtime: RealtimeAnalysis?

    public init(dwellSeconds: Double, revisitSeconds: Double, realtime: RealtimeAnalysis? = nil) {
        self.dwellSeconds = dwellSeconds
        self.revisitSeconds = revisitSeconds
        self.realtime = realtime
    }

    /// Real-time mode: every sample is inside some FFT, so each frequency is
    /// watched all the time (dwell = revisit = one frame, duty 1).
    public static func realtime(_ analysis: RealtimeAnalysis) -> DwellTiming {
        DwellTiming(dwellSeconds: analysis.frameSeconds, revisitSeconds: analysis.frameSeconds, realtime: analysis)
    }

    /// fraction of the time each frequency is watched
    public var duty: Double { revisitSeconds > 0 ? min(1, dwellSeconds / revisitSeconds) : 0 }

    /// Fraction of sweeps in which a pulse of `widthSeconds` repeating every
    /// `periodSeconds` overlaps the dwell at its frequency.
    public func interceptFraction(pulseWidthSeconds width: Double, periodSeconds period: Double) -> Double {
        guard period > 0 else { return 0 }
        return min(1, (dwellSeconds + width) / period)
    }

    /// HackRF sweep mode (firmware 2022.09.1): each tuning step delivers one
    /// 16384-byte block of 8187 usable samples after two discarded blocks, at
    /// 20 MS/s, so a step takes 3 × 8192 samples (1.2288 ms) and a sweep
    /// `steps` of them.
    /// - Parameters:
    ///   - fftSize: N [samples]
    ///   - usableSamples: samples per block after the header (8187)
    public static func hackRFSweep(fftSize: Int, detector: SpectrumDetector, steps: Int,
                                   usableSamples: Int = 8187, sampleRateHz: Double = 20e6,
                                   samplesPerStep: Int = 3 * 8192) -> DwellTiming {
        let segments = detector.usesLastSegmentOnly ? 1 : max(1, usableSamples / max(1, fftSize))
        return DwellTiming(dwellSeconds: Double(segments * fftSize) / sampleRateHz,
                           revisitSeconds: Double(max(1, steps) * samplesPerStep) / sampleRateHz)
    }
}

/// What a real-time stream's probability of intercept rests on: the FFT
/// length, the overlap of consecutive windows and the sample rate.
public struct RealtimeAnalysis: Sendable, Equatable {
    /// N [samples]
    public var fftSize: Int
    /// fraction of each window shared with the next (0.5 = 50 %)
    public var overlap: Double
    public var sampleRateHz: Double
    /// the time one frame (one trace, one meter reading) spans [s]
    public var frameSeconds: Double

    public init(fftSize: Int, overlap: Double, sampleRateHz: Double, frameSeconds: Double) {
        self.fftSize = fftSize
        self.overlap = overlap
        self.sampleRateHz = sampleRateHz
        self.frameSeconds = frameSeconds
    }

    /// new samples between windows [samples]
    public var hop: Int { max(1, Int((Double(fftSize) * (1 - overlap)).rounded())) }

    /// The shortest steady burst certain to fill one whole window whatever
    /// its alignment, so it reads its full level (100 % probability of
    /// intercept at full amplitude): N + hop − 1 samples [s].
    public var fullAmplitudeBurstSeconds: Double { Double(fftSize + hop - 1) / sampleRateHz }
}
