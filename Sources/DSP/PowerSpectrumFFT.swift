import CFFTW

/// One forward complex FFT of N points and the power of its bins: the part
/// every spectrum path shares (the HackRF sweep's `SweepFFT`, the real-time
/// `RealtimeSpectrum`, the RTL-SDR and SoapySDR hops' `HopPowerSpectrum`, the
/// raw I/Q reader). Each path windows and scales its own samples into
/// `input`, calls `transform()`, and combines each bin's power
/// |X|² × scale into an accumulator of its own, in FFT order (bin 0 = DC,
/// bins N/2… the negative frequencies).
///
/// The FFTW plan (single precision, FFTW_ESTIMATE) and both buffers are made
/// once in `init`; `transform` and `combinePower` allocate nothing. The only
/// type outside `FFTWPlanner` that names FFTW.
public final class PowerSpectrumFFT {
    /// how a transform's bin powers enter an accumulator
    public enum Combination: Sendable {
        /// accumulator = power (the first transform of a frame, or a sample detector)
        case replace
        /// accumulator = max(accumulator, power) (peak detector)
        case maximum
        /// accumulator += power (a mean, divided by the caller)
        case sum
        /// accumulator = √power, the envelope voltage |X|·√scale (the first
        /// transform of a CISPR average)
        case replaceByEnvelope
        /// accumulator += √power (the CISPR average: a mean of voltage,
        /// divided and squared by the caller)
        case sumOfEnvelopes
    }

    /// N [points]
    public let size: Int
    /// the samples to transform: N complex values as interleaved I, Q floats (2N), written by the caller
    public let input: UnsafeMutablePointer<Float>
    private let inputComplex: UnsafeMutablePointer<fftwf_complex>
    private let output: UnsafeMutablePointer<fftwf_complex>
    private let plan: fftwf_plan

    public init(size: Int) {
        precondition(size >= 1, "FFT size must be positive")
        self.size = size
        let input = fftwf_alloc_complex(size)!
        let output = fftwf_alloc_complex(size)!
        inputComplex = input
        self.output = output
        // fftwf_complex is two contiguous floats: the input seen as 2N floats
        self.input = UnsafeMutableRawPointer(input).assumingMemoryBound(to: Float.self)
        plan = FFTWPlanner.forwardPlan(size: size, input: input, output: output)
    }

    deinit {
        FFTWPlanner.destroy(plan)
        fftwf_free(inputComplex)
        fftwf_free(output)
    }

    /// Transforms `input` (unnormalised: a bin holds Σ x·e^(−2πikn/N)).
    public func transform() {
        fftwf_execute(plan)
    }

    /// Each bin's |X|² × `scale` from the last `transform`, combined into
    /// `accumulator` (N values, FFT order).
    public func combinePower(scale: Float, _ combination: Combination, into accumulator: UnsafeMutablePointer<Float>) {
        let n = size
        let spectrum = UnsafeRawPointer(output).assumingMemoryBound(to: Float.self)
        switch combination {
        case .replace:
            for i in 0..<n {
                let re = spectrum[2 * i], im = spectrum[2 * i + 1]
                accumulator[i] = (re * re + im * im) * scale
            }
        case .maximum:
            for i in 0..<n {
                let re = spectrum[2 * i], im = spectrum[2 * i + 1]
                accumulator[i] = max(accumulator[i], (re * re + im * im) * scale)
            }
        case .sum:
            for i in 0..<n {
                let re = spectrum[2 * i], im = spectrum[2 * i + 1]
                accumulator[i] += (re * re + im * im) * scale
            }
        case .replaceByEnvelope:
            for i in 0..<n {
                let re = spectrum[2 * i], im = spectrum[2 * i + 1]
                accumulator[i] = ((re * re + im * im) * scale).squareRoot()
            }
        case .sumOfEnvelopes:
            for i in 0..<n {
                let re = spectrum[2 * i], im = spectrum[2 * i + 1]
                accumulator[i] += ((re * re + im * im) * scale).squareRoot()
            }
        }
    }

    /// Each bin's power |X|² × `scale` from the last `transform` into the
    /// four planes of `planes` (4N values, FFT order each, at
    /// `SpectrumDetector.everyDetectorPlane`): the largest so far (plane 0,
    /// the peak detector), the running sum (plane 1: the average, divided by
    /// the caller), this transform's alone (plane 2, the sample detector) and
    /// the running sum of envelopes √power (plane 3: the CISPR average,
    /// divided and squared by the caller). `first` starts the planes afresh.
    public func combineEveryDetector(scale: Float, first: Bool, into planes: UnsafeMutablePointer<Float>) {
        let n = size
        let peak = planes, sum = planes + n, last = planes + 2 * n, envelopes = planes + 3 * n
        combinePower(scale: scale, .replace, into: last)
        if first {
            peak.update(from: last, count: n)
            sum.update(from: last, count: n)
            for i in 0..<n { envelopes[i] = last[i].squareRoot() }
        } else {
            for i in 0..<n {
                peak[i] = max(peak[i], last[i])
                sum[i] += last[i]
                envelopes[i] += last[i].squareRoot()
            }
        }
    }
}
