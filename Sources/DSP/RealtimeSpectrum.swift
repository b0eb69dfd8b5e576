import Foundation
import Signals

/// Real-time spectrum analysis of a continuous I/Q stream, as a bench
/// real-time analyzer does it: every sample goes through overlapped windowed
/// FFTs (hop ≤ N/2, so every sample lies in the main lobe of some window),
/// and each display bin's detector (`peak`, `average`/`rms`, `sample`,
/// `cisprAverage`: the mean envelope |X| over the frame's FFTs) runs
/// over every FFT of a frame. Frames partition the FFT sequence exactly:
/// no FFT is counted twice or left out.
///
/// Scale and window are the sweep path's (`SweepFFT`): the Hann window
/// 0.5·(1 − cos(2πi/(N−1))), samples divided by 128, power |X/N|², so a tone
/// reads the same level in either mode and a calibration carries over.
///
/// DC removal: the tuned centre of a direct-conversion radio (HackRF) carries
/// the ADC's and mixer's offset, a spike in the middle of the band. The mean
/// of I and of Q over each hop is smoothed over about eight hops
/// (exponentially, α = 1/8) and subtracted before windowing; a signal within
/// a few fs/hop of the exact centre is attenuated with it (stated in README).
///
/// Buffers and the plan are made in `init`; `consume` allocates nothing.
public final class RealtimeSpectrum {
    /// how the stream's bytes encode samples
    public enum SampleFormat: Sendable, Equatable {
        /// signed int8 I, Q (HackRF)
        case int8
        /// offset-binary u8 I, Q around 127.5 (RTL-SDR)
        case uint8
        /// signed int16 I, Q, full scale 32768 (SoapySDR's CS16)
        case int16
        /// float32 I, Q, full scale 1 (SoapySDR's CF32)
        case float32

        /// bytes of one complex sample
        public var bytesPerSample: Int {
            switch self {
            case .int8, .uint8: return 2
            case .int16: return 4
            case .float32: return 8
            }
        }
    }

    /// FFT size N [samples]
    public let fftSize: Int
    /// new samples between consecutive FFTs (N/2 at 50 % overlap) [samples]
    public let hop: Int
    public let sampleRateHz: Double
    public let detector: SpectrumDetector
    public let format: SampleFormat
    /// FFTs combined into one frame
    public let fftsPerFrame: Int
    /// the bins a frame holds, as indices into the centred spectrum (0 = −fs/2, N/2 = DC)
    public let keptBins: Range<Int>
    public let removesDC: Bool

    private let fft: PowerSpectrumFFT
    /// Hann / 128, twice per sample (I and Q)
    private let interleavedWindow: UnsafeMutablePointer<Float>
    /// the newest ≤ N samples, converted to float, DC not yet removed (2N floats)
    private let history: UnsafeMutablePointer<Float>
    /// complex samples in `history`
    private var filled = 0
    /// detector accumulator per FFT bin (FFT order)
    private let accumulator: UnsafeMutablePointer<Float>
    /// the frame in dB, `keptBins.count` values (centred order)
    private let frameDecibels: UnsafeMutablePointer<Float>
    private let framePower: UnsafeMutablePointer<Float>
    /// FFTs in the accumulator
    private var fftsInFrame = 0
    /// every-detector mode: per FFT bin the largest, summed and last power
    /// and the summed envelope (`SpectrumDetector.everyDetectorPlaneCount` × N,
    /// FFT order), and a frame's planes in dB (as many × kept bins); nil otherwise
    private let everyAccumulator: UnsafeMutablePointer<Float>?
    private let everyFrameDecibels: UnsafeMutablePointer<Float>?
    public var keepsEveryDetector: Bool { everyAccumulator != nil }
    /// the DC estimate [full-scale units] and the running sums of the current hop
    private var dcI: Float = 0, dcQ: Float = 0
    private var hasDC = false
    private var hopSumI: Float = 0, hopSumQ: Float = 0
    /// every FFT computed since `init` (or `reset`)
    public private(set) var fftCount = 0
    /// every sample consumed
    public private(set) var sampleCount = 0

    /// - Parameters:
    ///   - fftSize: N ≥ 8
    ///   - overlap: fraction of each window shared with the next, 0.5…0.9375 (50 % at least, so every
    ///     sample lies inside some window's main lobe)
    ///   - keptBins: the centred bins frames carry (default: all N)
    ///   - framesPerSecond: frames wanted per second of samples; the FFTs per frame are rounded from it
    public init(fftSize: Int, overlap: Double = 0.5, sampleRateHz: Double, detector: SpectrumDetector,
                format: SampleFormat, keptBins: Range<Int>? = nil, framesPerSecond: Double = 30,
                removeDC: Bool = true, keepEveryDetector: Bool = false) {
        precondition(fftSize >= 8, "FFT size must be at least 8")
        precondition(sampleRateHz > 0, "sample rate must be positive")
        self.fftSize = fftSize
        hop = Self.hop(fftSize: fftSize, overlap: overlap)
        self.sampleRateHz = sampleRateHz
        self.detector = detector
        self.format = format
        let kept = keptBins.map { $0.clamped(to: 0..<fftSize) } ?? 0..<fftSize
        self.keptBins = kept.isEmpty ? 0..<fftSize : kept
        fftsPerFrame = Self.fftsPerFrame(sampleRateHz: sampleRateHz, hop: hop, framesPerSecond: framesPerSecond)
        removesDC = removeDC
        fft = PowerSpectrumFFT(size: fftSize)
        interleavedWindow = .allocate(capacity: 2 * fftSize)
        for i in 0..<fftSize {
            let w = Float(SpectralWindow.hann(i, length: fftSize)) / 128
            interleavedWindow[2 * i] = w
            interleavedWindow[2 * i + 1] = w
        }
        history = .allocate(capacity: 2 * fftSize)
        accumulator = .allocate(capacity: fftSize)
        accumulator.initialize(repeating: 0, count: fftSize)
        framePower = .allocate(capacity: self.keptBins.count)
        frameDecibels = .allocate(capacity: self.keptBins.count)
        let planes = SpectrumDetector.everyDetectorPlaneCount
        everyAccumulator = keepEveryDetector ? .allocate(capacity: planes * fftSize) : nil
        everyFrameDecibels = keepEveryDetector ? .allocate(capacity: planes * self.keptBins.count) : nil
    }

    deinit {
        interleavedWindow.deallocate()
        history.deallocate()
        accumulator.deallocate()
        framePower.deallocate()
        frameDecibels.deallocate()
        everyAccumulator?.deallocate()
        everyFrameDecibels?.deallocate()
    }

    /// frequency resolution: fs / N [Hz]
    public var binWidthHz: Double { sampleRateHz / Double(fftSize) }
    /// offset of kept bin 0's centre from the tuned centre [Hz]
    public var firstKeptOffsetHz: Double { Double(keptBins.lowerBound - fftSize / 2) * binWidthHz }
    /// a bin's noise bandwidth over its width: the Hann window's mean square (power is |X/N|²)
    public var noiseBandwidthInBins: Double { SpectralWindow.hannMeanSquare(length: fftSize) }
    /// how long one frame spans [s]
    public var frameSeconds: Double { Double(fftsPerFrame * hop) / sampleRateHz }
    /// the window's overlap with the next, 0…1
    public var overlap: Double { Double(fftSize - hop) / Double(fftSize) }

    /// The shortest steady burst certain to fill at least one whole window,
    /// whatever its alignment with the FFT grid, so that it reads its full
    /// level: N + hop − 1 samples [s] (a burst shorter still shows, lower).
    public var fullAmplitudeBurstSeconds: Double { analysis.fullAmplitudeBurstSeconds }

    /// the figures the status line and `meter --json` state
    public var analysis: RealtimeAnalysis {
        RealtimeAnalysis(fftSize: fftSize, overlap: overlap, sampleRateHz: sampleRateHz, frameSeconds: frameSeconds)
    }

    /// Forgets the samples held (after a gap in the stream: windows never
    /// straddle a discontinuity) and the frame begun; the DC estimate stays.
    public func restartWindows() {
        filled = 0
        hopSumI = 0
        hopSumQ = 0
    }

    /// Consumes interleaved I/Q bytes (a trailing partial sample is ignored) and
    /// calls `frame` with each completed frame's levels in dB (centred
    /// `keptBins` order, valid during the call) and the FFTs it combined.
    public func consume(_ bytes: UnsafeRawBufferPointer, frame: (UnsafeBufferPointer<Float>, Int) -> Void) {
        guard let base = bytes.baseAddress else { return }
        let stride = format.bytesPerSample
        let pairs = bytes.count / stride
        var done = 0
        while done < pairs {
            let take = min(pairs - done, fftSize - filled)
            convert(base + stride * done, count: take)
            filled += take
            done += take
            if filled == fftSize {
                transform()
                if fftsInFrame == fftsPerFrame { emit(frame) }
                // keep the newest N − hop samples for the next window
                memmove(history, history + 2 * hop, 2 * (fftSize - hop) * MemoryLayout<Float>.size)
                filled = fftSize - hop
            }
        }
        sampleCount += pairs
    }

    /// bytes → floats at the end of `history`, summing I and Q for the DC estimate
    private func convert(_ source: UnsafeRawPointer, count: Int) {
        let target = history + 2 * filled
        var sumI: Float = 0, sumQ: Float = 0
        switch format {
        case .int8:
            let s = source.assumingMemoryBound(to: Int8.self)
            for k in 0..<count {
                let i = Float(s[2 * k]), q = Float(s[2 * k + 1])
                target[2 * k] = i
                target[2 * k + 1] = q
                sumI += i
                sumQ += q
            }
        case .uint8:
            let s = source.assumingMemoryBound(to: UInt8.self)
            for k in 0..<count {
                let i = Float(s[2 * k]) - 127.5, q = Float(s[2 * k + 1]) - 127.5
                target[2 * k] = i
                target[2 * k + 1] = q
                sumI += i
                sumQ += q
            }
        case .int16:
            // 32768 full scale → the int8 path's 128 (the window carries the 1/128)
            let s = source.assumingMemoryBound(to: Int16.self)
            for k in 0..<count {
                let i = Float(s[2 * k]) * (1 / 256), q = Float(s[2 * k + 1]) * (1 / 256)
                target[2 * k] = i
                target[2 * k + 1] = q
                sumI += i
                sumQ += q
            }
        case .float32:
            let s = source.assumingMemoryBound(to: Float.self)
            for k in 0..<count {
                let i = s[2 * k] * 128, q = s[2 * k + 1] * 128
                target[2 * k] = i
                target[2 * k + 1] = q
                sumI += i
                sumQ += q
            }
        }
        hopSumI += sumI
        hopSumQ += sumQ
    }

    /// One windowed FFT of `history`, its power combined into the accumulator.
    private func transform() {
        if removesDC {
            // the newest hop's mean (the first window: all N samples) moves the estimate
            let count = Float(hasDC ? hop : fftSize)
            let meanI = hopSumI / count, meanQ = hopSumQ / count
            if hasDC {
                dcI += (meanI - dcI) / 8
                dcQ += (meanQ - dcQ) / 8
            } else {
                dcI = meanI
                dcQ = meanQ
                hasDC = true
            }
        }
        hopSumI = 0
        hopSumQ = 0
        let n = fftSize
        let inputFloats = fft.input
        let (oi, oq) = removesDC ? (dcI, dcQ) : (0, 0)
        for k in 0..<n {
            inputFloats[2 * k] = (history[2 * k] - oi) * interleavedWindow[2 * k]
            inputFloats[2 * k + 1] = (history[2 * k + 1] - oq) * interleavedWindow[2 * k + 1]
        }
        fft.transform()
        let scale = 1 / (Float(n) * Float(n))
        fft.combinePower(scale: scale, detector.combination(first: fftsInFrame == 0), into: accumulator)
        if let everyAccumulator {
            fft.combineEveryDetector(scale: scale, first: fftsInFrame == 0, into: everyAccumulator)
        }
        fftsInFrame += 1
        fftCount += 1
    }

    /// The accumulator as a frame: centred order, kept bins, dB.
    private func emit(_ frame: (UnsafeBufferPointer<Float>, Int) -> Void) {
        let n = fftSize
        let detector = self.detector, transforms = fftsInFrame
        for (j, centred) in keptBins.enumerated() {
            // centred index c is FFT bin (c + N/2) mod N
            let bin = (centred + n / 2) % n
            framePower[j] = detector.accumulatedPower(accumulator[bin], transforms: transforms)
        }
        FastDecibels.convert(framePower, into: frameDecibels, count: keptBins.count)
        if let everyAccumulator, let everyFrameDecibels {
            let kept = keptBins.count
            // one detector per plane (rms shares average's)
            for planeDetector in Self.planeDetectors {
                let plane = planeDetector.everyDetectorPlane
                let source = everyAccumulator + plane * n
                for (j, centred) in keptBins.enumerated() {
                    framePower[j] = planeDetector.accumulatedPower(source[(centred + n / 2) % n], transforms: transforms)
                }
                FastDecibels.convert(framePower, into: everyFrameDecibels + plane * kept, count: kept)
            }
        }
        let combined = fftsInFrame
        fftsInFrame = 0
        frame(UnsafeBufferPointer(start: frameDecibels, count: keptBins.count), combined)
    }

    /// one detector per every-detector plane (rms shares average's), a constant so `emit` allocates nothing
    private static let planeDetectors: [SpectrumDetector] = [.peak, .average, .sample, .cisprAverage]

    /// During `consume`'s frame callback, where every detector is kept: the
    /// frame's levels by `detector` (centred kept-bin order, dB); nil otherwise.
    public func levels(by detector: SpectrumDetector) -> UnsafeBufferPointer<Float>? {
        guard let everyFrameDecibels else { return nil }
        return UnsafeBufferPointer(start: everyFrameDecibels + detector.everyDetectorPlane * keptBins.count,
                                   count: keptBins.count)
    }

    /// new samples between windows for an overlap (clamped to 50 %…93.75 %)
    static func hop(fftSize: Int, overlap: Double) -> Int {
        max(1, min(fftSize / 2, Int((Double(fftSize) * (1 - min(max(overlap, 0.5), 0.9375))).rounded())))
    }

    /// FFTs per frame for a frame rate (at least one)
    static func fftsPerFrame(sampleRateHz: Double, hop: Int, framesPerSecond: Double) -> Int {
        max(1, Int((sampleRateHz / Double(hop) / max(framesPerSecond, 0.1)).rounded()))
    }

    /// What a spectrum made with these parameters will state, without making one (no plan, no buffers).
    public static func analysis(fftSize: Int, overlap: Double = 0.5, sampleRateHz: Double,
                                framesPerSecond: Double = 30) -> RealtimeAnalysis {
        let hop = hop(fftSize: fftSize, overlap: overlap)
        let perFrame = fftsPerFrame(sampleRateHz: sampleRateHz, hop: hop, framesPerSecond: framesPerSecond)
        return RealtimeAnalysis(fftSize: fftSize, overlap: Double(fftSize - hop) / Double(fftSize),
                                sampleRateHz: sampleRateHz, frameSeconds: Double(perFrame * hop) / sampleRateHz)
    }

    /// The FFT size for a wanted bin width: the smallest power of two whose
    /// bins are no wider than `binWidthHz`, within 64…65536. A CISPR band's
    /// Hann bin width (`CISPRBand.hannBinWidthHz`, what `--rbw cispr` asks
    /// for) is met instead by N = fs / width rounded to an even number (the
    /// centred order puts DC at N/2; FFTW transforms every N; up to 2¹⁸ for
    /// band A's 100 Hz bins), so the bins' 6 dB bandwidth is the band's
    /// within 1/N of it.
    public static func fftSize(sampleRateHz: Double, binWidthHz: Double) -> Int {
        guard binWidthHz > 0, binWidthHz.isFinite else { return 1024 }
        if CISPRBand.allCases.contains(where: { abs($0.hannBinWidthHz - binWidthHz) <= 1e-9 * binWidthHz }) {
            return min(1 << 18, max(64, 2 * Int((sampleRateHz / binWidthHz / 2).rounded())))
        }
        var n = 64
        while n < 65_536 && sampleRateHz / Double(n) > binWidthHz { n *= 2 }
        return n
    }
}
