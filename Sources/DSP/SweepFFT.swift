import CFFTW
import Foundation

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
/// ending at the block's last sample, is averaged before the log (Welch,
/// non-overlapping): a steadier trace for the live view, same bin geometry.
///
/// Plans and buffers are made once in `init`; `process` allocates nothing.
public final class SweepFFT {
    /// FFT size N [bins]
    public let fftSize: Int
    /// segments averaged per block (1 = hackrf_sweep's numbers)
    public let segments: Int

    private let input: UnsafeMutablePointer<fftwf_complex>
    private let output: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan
    private let window: UnsafeMutablePointer<Float>
    /// linear power accumulator, one per bin
    private let powerSum: UnsafeMutablePointer<Float>
    /// dB per bin in FFT order, filled by the last `process`
    private let decibels: UnsafeMutablePointer<Float>

    /// - Parameters:
    ///   - fftSize: N, 4…8180 as hackrf_sweep allows
    ///   - segments: how many N-sample segments to average (≥ 1); capped so they
    ///     fit in `maxSamples`
    ///   - maxSamples: complex samples available per block (8192 for HackRF)
    public init(fftSize: Int, segments: Int = 1, maxSamples: Int = 8192) {
        precondition(fftSize >= 4, "FFT size must be at least 4")
        self.fftSize = fftSize
        self.segments = max(1, min(segments, maxSamples / fftSize))
        let input = fftwf_alloc_complex(fftSize)!
        let output = fftwf_alloc_complex(fftSize)!
        self.input = input
        self.output = output
        plan = SweepFFT.planLock.withLock {
            fftwf_plan_dft_1d(Int32(fftSize), input, output, FFTW_FORWARD, UInt32(FFTW_ESTIMATE))!
        }
        window = .allocate(capacity: fftSize)
        powerSum = .allocate(capacity: fftSize)
        decibels = .allocate(capacity: fftSize)
        for i in 0..<fftSize {
            // hackrf_sweep: (float)(0.5f * (1.0f - cos(2 * M_PI * i / (fftSize - 1))))
            window[i] = Float(0.5 * (1.0 - cos(2 * Double.pi * Double(i) / Double(fftSize - 1))))
        }
    }

    deinit {
        SweepFFT.planLock.withLock { fftwf_destroy_plan(plan) }
        fftwf_free(input)
        fftwf_free(output)
        window.deallocate()
        powerSum.deallocate()
        decibels.deallocate()
    }

    /// FFTW's planner is not thread-safe; only execution is.
    private static let planLock = NSLock()

    /// Computes the spectrum of one block. `samples` holds interleaved int8
    /// I/Q; the last `fftSize × segments` complex samples are used.
    /// Returns dB per bin in FFT order (bin 0 = DC, bin N/2… negative
    /// frequencies), valid until the next call.
    @discardableResult
    public func process(_ samples: UnsafeRawBufferPointer) -> UnsafeBufferPointer<Float> {
        let n = fftSize
        let pairs = samples.count / 2
        precondition(pairs >= n * segments, "block shorter than the FFT")
        let int8s = samples.bindMemory(to: Int8.self)
        let scale = Float(1) / Float(n)
        let normalizer = Float(1) / Float(segments)
        for i in 0..<n { powerSum[i] = 0 }
        for segment in 0..<segments {
            let firstPair = pairs - n * (segments - segment)
            for i in 0..<n {
                let iSample = Float(int8s[2 * (firstPair + i)])
                let qSample = Float(int8s[2 * (firstPair + i) + 1])
                input[i].0 = iSample * window[i] * (1.0 / 128.0)
                input[i].1 = qSample * window[i] * (1.0 / 128.0)
            }
            fftwf_execute(plan)
            for i in 0..<n {
                let re = output[i].0 * scale
                let im = output[i].1 * scale
                powerSum[i] += re * re + im * im
            }
        }
        for i in 0..<n {
            let power = segments == 1 ? powerSum[i] : powerSum[i] * normalizer
            // hackrf_sweep: (float)(log2(magsq) * 10.0f / log2(10.0f)), in double
            decibels[i] = Float(log2(Double(power)) * 10.0 / log2(10.0))
        }
        return UnsafeBufferPointer(start: decibels, count: n)
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

    /// The nearest valid FFT size to `n`, clamped to 4…8180.
    public static func clamped(_ n: Int) -> Int {
        var size = min(max(n, minimum), maximum)
        while (size + 4) % 8 != 0 { size += 1 }
        return min(size, maximum)
    }

    /// bin width for a size [Hz]
    public static func binWidth(fftSize: Int) -> Double { sampleRate / Double(fftSize) }
}
