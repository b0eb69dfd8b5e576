import Foundation
import Signals

/// The per-block power spectrum exactly as hackrf_sweep computes it
/// (host/hackrf-tools/src/hackrf_sweep.c, release 2022.09.1):
///
/// - the last `fftSize` complex samples of a 16384-byte sweep block,
/// - each int8 scaled by 1/128 and multiplied by a Hann window
///   0.5·(1 − cos(2πi/(N−1))),
/// - a forward complex FFT (FFTW, single precision, no shift),
/// - power per bin 10·log10(|X/N|²) [dB relative to full scale].
///
/// With `segments > 1` the power of that many consecutive N-sample segments,
/// ending at the block's last sample, is combined before the log: averaged
/// (Welch, non-overlapping: `SpectrumDetector.average`) for a steadier trace,
/// its maximum kept per bin (`.peak`) so a burst anywhere in the block shows,
/// or the envelope voltage |X| averaged (`.cisprAverage`). Same bin geometry
/// every way.
///
/// Plans and buffers are made once in `init`; `process` allocates nothing.
public final class SweepFFT {
    /// FFT size N [bins]
    public let fftSize: Int
    /// segments combined per block (1 = hackrf_sweep's numbers)
    public let segments: Int
    /// how the segments' powers are combined per bin (`sample` where there is one segment)
    public let combiningDetector: SpectrumDetector

    private let fft: PowerSpectrumFFT
    /// Hann window divided by 128 (int8 full scale), each weight twice (for
    /// I and for Q) so the conversion runs over the interleaved bytes in one
    /// vectorisable loop; the division by a power of two is exact, so
    /// sample × weight equals hackrf_sweep's (sample × window) / 128 bit for bit
    private let interleavedWindow: UnsafeMutablePointer<Float>
    /// linear power accumulator, one per bin
    private let powerSum: UnsafeMutablePointer<Float>
    /// dB per bin in FFT order, filled by the last `process`
    private let decibels: UnsafeMutablePointer<Float>
    /// set when every detector is kept: the one `process` returns
    public let keptDetector: SpectrumDetector?
    /// every-detector mode: the largest, summed and last segment power per
    /// bin, then each in dB (FFT order; 3 × N each, nil otherwise)
    private let everyPower: UnsafeMutablePointer<Float>?
    private let everyDecibels: UnsafeMutablePointer<Float>?

    /// - Parameters:
    ///   - fftSize: N, 4…8180 as hackrf_sweep allows
    ///   - segments: how many N-sample segments to average (≥ 1); capped so they
    ///     fit in `maxSamples`
    ///   - maxSamples: complex samples available per block (8192 for HackRF)
    ///   - combining: how the segments combine per bin (`SpectrumDetector.combination`): the power mean
    ///     by default, the largest for `.peak`, the envelope mean for `.cisprAverage`
    ///   - keepEveryDetector: transform every segment and keep each bin's level by every detector
    ///     (`levels(by:)`); `process` then returns `keptDetector`'s
    public init(fftSize: Int, segments: Int = 1, maxSamples: Int = 8192, combining: SpectrumDetector = .average,
                keepEveryDetector: SpectrumDetector? = nil) {
        precondition(fftSize >= 4, "FFT size must be at least 4")
        self.fftSize = fftSize
        self.segments = max(1, min(keepEveryDetector == nil ? segments : Int.max, maxSamples / fftSize))
        combiningDetector = self.segments == 1 ? .sample : combining
        keptDetector = keepEveryDetector
        let planes = SpectrumDetector.everyDetectorPlaneCount
        everyPower = keepEveryDetector == nil ? nil : .allocate(capacity: planes * fftSize)
        everyDecibels = keepEveryDetector == nil ? nil : .allocate(capacity: planes * fftSize)
        fft = PowerSpectrumFFT(size: fftSize)
        interleavedWindow = .allocate(capacity: 2 * fftSize)
        powerSum = .allocate(capacity: fftSize)
        decibels = .allocate(capacity: fftSize)
        for i in 0..<fftSize {
            // hackrf_sweep: (float)(0.5f * (1.0f - cos(2 * M_PI * i / (fftSize - 1))))
            let window = Float(SpectralWindow.hann(i, length: fftSize))
            interleavedWindow[2 * i] = window / 128
            interleavedWindow[2 * i + 1] = window / 128
        }
    }

    /// A detector over the dwell: `sample` transforms the last N samples;
    /// `peak`, `average`, `rms` and `cisprAverage` every whole N-sample segment of the
    /// `maxSamples` usable ones, back to back, ending at the block's end.
    /// With `keepingEveryDetector` every segment is transformed whatever the
    /// detector, and the others' levels are kept beside its own (`levels(by:)`).
    public convenience init(fftSize: Int, detector: SpectrumDetector, maxSamples: Int,
                            keepingEveryDetector: Bool = false) {
        self.init(fftSize: fftSize, segments: detector.usesLastSegmentOnly ? 1 : Int.max, maxSamples: maxSamples,
                  combining: detector, keepEveryDetector: keepingEveryDetector ? detector : nil)
    }

    deinit {
        interleavedWindow.deallocate()
        powerSum.deallocate()
        decibels.deallocate()
        everyPower?.deallocate()
        everyDecibels?.deallocate()
    }

    /// A bin's noise bandwidth over its width (`SpectrumFrame.noiseBandwidthHz`):
    /// the Hann window's mean square, since power is |X/N|²
    public var noiseBandwidthInBins: Double { SpectralWindow.hannMeanSquare(length: fftSize) }

    /// Computes the spectrum of one block. `samples` holds interleaved int8
    /// I/Q; the last `fftSize × segments` complex samples are used.
    /// Returns dB per bin in FFT order (bin 0 = DC, bin N/2… negative
    /// frequencies), valid until the next call; all NaN if the block is
    /// shorter than `fftSize × segments` samples.
    @discardableResult
    public func process(_ samples: UnsafeRawBufferPointer) -> UnsafeBufferPointer<Float> {
        let n = fftSize
        let pairs = samples.count / 2
        guard pairs >= n * segments else {
            // A short block has no spectrum; say so with NaN rather than crash.
            for i in 0..<n { decibels[i] = .nan }
            everyDecibels?.update(repeating: .nan, count: SpectrumDetector.everyDetectorPlaneCount * n)
            return UnsafeBufferPointer(start: decibels, count: n)
        }
        let int8s = samples.bindMemory(to: Int8.self)
        if let detector = keptDetector, let everyPower, let everyDecibels {
            processEveryDetector(int8s, pairs: pairs, power: everyPower, decibels: everyDecibels)
            decibels.update(from: everyDecibels + detector.everyDetectorPlane * n, count: n)
            return UnsafeBufferPointer(start: decibels, count: n)
        }
        // |X/N|² = |X|²/N², combined over the segments by the detector
        let powerScale = 1 / (Float(n) * Float(n))
        let detector = combiningDetector
        let inputFloats = fft.input
        for segment in 0..<segments {
            let firstPair = pairs - n * (segments - segment)
            let segmentStart = int8s.baseAddress! + 2 * firstPair
            for k in 0..<(2 * n) {
                inputFloats[k] = Float(segmentStart[k]) * interleavedWindow[k]
            }
            fft.transform()
            fft.combinePower(scale: powerScale, detector.combination(first: segment == 0), into: powerSum)
        }
        switch detector {
        case .sample, .peak: break  // one power per bin already
        case .average, .rms, .cisprAverage:
            for i in 0..<n { powerSum[i] = detector.accumulatedPower(powerSum[i], transforms: segments) }
        }
        FastDecibels.convert(powerSum, into: decibels, count: n)
        return UnsafeBufferPointer(start: decibels, count: n)
    }

    /// Every segment transformed; per bin the largest power (plane 0), the
    /// mean (plane 1), the last segment's (plane 2) and the squared mean
    /// envelope (plane 3, the CISPR average), each then in dB.
    private func processEveryDetector(_ int8s: UnsafeBufferPointer<Int8>, pairs: Int,
                                      power: UnsafeMutablePointer<Float>, decibels: UnsafeMutablePointer<Float>) {
        let n = fftSize
        let scale = 1 / (Float(n) * Float(n))
        let inputFloats = fft.input
        for segment in 0..<segments {
            let segmentStart = int8s.baseAddress! + 2 * (pairs - n * (segments - segment))
            for k in 0..<(2 * n) {
                inputFloats[k] = Float(segmentStart[k]) * interleavedWindow[k]
            }
            fft.transform()
            fft.combineEveryDetector(scale: scale, first: segment == 0, into: power)
        }
        let sum = power + SpectrumDetector.average.everyDetectorPlane * n
        let envelopes = power + SpectrumDetector.cisprAverage.everyDetectorPlane * n
        for i in 0..<n {
            sum[i] = SpectrumDetector.average.accumulatedPower(sum[i], transforms: segments)
            envelopes[i] = SpectrumDetector.cisprAverage.accumulatedPower(envelopes[i], transforms: segments)
        }
        FastDecibels.convert(power, into: decibels, count: SpectrumDetector.everyDetectorPlaneCount * n)
    }

    /// A quarter of the last `process`'s spectrum by `detector`, where every
    /// detector is kept (nil otherwise).
    public func quarters(by detector: SpectrumDetector)
        -> (lower: UnsafeBufferPointer<Float>, upper: UnsafeBufferPointer<Float>)? {
        guard let everyDecibels else { return nil }
        let base = everyDecibels + detector.everyDetectorPlane * fftSize
        return (UnsafeBufferPointer(start: base + lowerQuarterStart, count: quarterCount),
                UnsafeBufferPointer(start: base + upperQuarterStart, count: quarterCount))
    }

    /// First FFT bin of the quarter printed as [f, f + fs/4]: 1 + 5N/8.
    public var lowerQuarterStart: Int { 1 + (fftSize * 5) / 8 }
    /// First FFT bin of the quarter printed as [f + fs/2, f + 3fs/4]: 1 + N/8.
    public var upperQuarterStart: Int { 1 + fftSize / 8 }
    /// Bins in each kept quarter: N/4.
    public var quarterCount: Int { fftSize / 4 }

    /// The quarter-spectrum covering [f, f + fs/4] from the last `process`.
    public var lowerQuarter: UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: decibels + lowerQuarterStart, count: quarterCount)
    }
    /// The quarter-spectrum covering [f + fs/2, f + 3fs/4] from the last `process`.
    public var upperQuarter: UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: decibels + upperQuarterStart, count: quarterCount)
    }
}

/// hackrf_sweep's choice of FFT size for a requested bin width.
public enum SweepFFTSize {
    /// sample rate of sweep mode [samples/s]
    public static let sampleRate = 20_000_000.0
    public static let minimum = 4
    public static let maximum = 8180

    /// hackrf_sweep's rule (hackrf_sweep.c, release 2022.09.1, `-w` handling
    /// in `main`): N = ⌊20e6 / binWidth⌋ (integer division), rejected unless
    /// 4 ≤ N ≤ 8180 *before* padding, then increased until (N + 4) is a
    /// multiple of 8 (an odd multiple of 4). Padding never leaves 4…8180
    /// (8180 + 4 is a multiple of 8), but a raw N of 1…3 is an error there
    /// rather than 4. Returns nil where hackrf_sweep would refuse the width.
    public static func forBinWidth(_ binWidthHz: Double) -> Int? {
        guard binWidthHz.isFinite, binWidthHz > 0 else { return nil }
        let raw = (sampleRate / binWidthHz).rounded(.down)
        guard raw >= Double(minimum), raw <= Double(maximum) else { return nil }
        var n = Int(raw)
        while (n + 4) % 8 != 0 { n += 1 }
        return n
    }

    /// bin width for a size [Hz]
    public static func binWidth(fftSize: Int) -> Double { sampleRate / Double(fftSize) }
}
