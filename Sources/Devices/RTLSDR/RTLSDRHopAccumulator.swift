import DSP
import Foundation
import Signals

/// Integrates hops of an `RTLSDRHopPlan` and reads them out as rtl_power
/// does (csv_dbm): FFT halves swapped so bin 0 is the lowest frequency, the
/// DC bin replaced by its neighbour, edges cropped, 10·log10 of the mean
/// power. Also lays every hop's kept bins onto one frame on a uniform grid.
///
/// All storage is allocated in `init`; `add`, `hopDecibels` and `fillFrame`
/// allocate nothing.
public final class RTLSDRHopAccumulator {
    public let plan: RTLSDRHopPlan
    private let spectrum: HopPowerSpectrum
    /// hopCount × fftSize linear power sums, FFT order
    private let power: UnsafeMutablePointer<Float>
    /// FFTs per hop since the last reset
    private let transforms: UnsafeMutablePointer<Int>
    /// reads per hop since the last reset
    private let reads: UnsafeMutablePointer<Int>
    /// kept bins of one hop in dB, filled by `hopDecibels`
    private let decibels: UnsafeMutablePointer<Float>
    /// frame bin for each hop's first kept bin
    private let frameOffsets: [Int]
    /// bins of a whole-band frame
    public let frameBinCount: Int

    /// a frame bin's noise bandwidth over its width (the window's mean square)
    public let noiseBandwidthInBins: Double

    /// the FFT's window (`SpectrumFrame.windowing`); nil for rtl_power's
    /// giant bins (one FFT point: each bin is a whole read's power)
    public let windowing: FFTWindowing?

    /// how each hop's transforms combine into one level per bin: `peak`
    /// (each bin's largest power; not for rtl_power's giant bins, N = 1,
    /// which stay a mean), `cisprAverage` (the mean envelope |X|, squared),
    /// or rtl_power's mean power (`sample`, `average`, `rms`)
    public let detector: SpectrumDetector

    /// - Parameter detector: `peak` keeps each bin's largest FFT power over
    ///   the integration, `cisprAverage` the mean of its envelope voltage; the
    ///   others give rtl_power's mean
    public init(plan: RTLSDRHopPlan, window: SpectralWindow, detector: SpectrumDetector = .sample) {
        self.plan = plan
        let combination: PowerSpectrumFFT.Combination
        switch detector {
        case .peak where plan.fftSize > 1:
            self.detector = .peak
            combination = .maximum
        case .cisprAverage:
            self.detector = .cisprAverage
            combination = .sumOfEnvelopes
        case .sample, .peak, .average, .rms:
            // rtl_power's integration: the mean power over every FFT of the interval
            self.detector = .average
            combination = .sum
        }
        spectrum = HopPowerSpectrum(fftSize: plan.fftSize, window: window, downsample: plan.downsample,
                                    combination: combination)
        noiseBandwidthInBins = spectrum.noiseBandwidthInBins
        windowing = plan.fftSize > 1 ? FFTWindowing(.rtlPower(window), length: plan.fftSize) : nil
        let bins = plan.hopCount * plan.fftSize
        power = .allocate(capacity: bins)
        power.initialize(repeating: 0, count: bins)
        transforms = .allocate(capacity: plan.hopCount)
        transforms.initialize(repeating: 0, count: plan.hopCount)
        reads = .allocate(capacity: plan.hopCount)
        reads.initialize(repeating: 0, count: plan.hopCount)
        decibels = .allocate(capacity: plan.fftSize)
        decibels.initialize(repeating: .nan, count: plan.fftSize)
        let first = plan.keptBins.lowerBound
        frameOffsets = (0..<plan.hopCount).map { hop in
            Int(((plan.binCenterHz(hop: hop, bin: first) - Double(plan.lowerHz)) / plan.binWidthHz).rounded())
        }
        frameBinCount = max(1, Int((Double(plan.upperHz - plan.lowerHz) / plan.binWidthHz).rounded()))
    }

    deinit {
        power.deallocate()
        transforms.deallocate()
        reads.deallocate()
        decibels.deallocate()
    }

    /// Adds one read of hop `hop` (u8 I/Q).
    public func add(hop: Int, iq: UnsafeRawBufferPointer) {
        precondition(hop >= 0 && hop < plan.hopCount, "hop out of range")
        transforms[hop] += spectrum.accumulate(iq, into: power + hop * plan.fftSize)
        reads[hop] += 1
    }

    /// rtl_power's "samples" column: FFTs × downsampling (reads for giant bins).
    public func samples(hop: Int) -> Int {
        plan.fftSize == 1 ? reads[hop] : transforms[hop] * plan.downsample
    }

    /// The kept bins of `hop` in dB, lowest frequency first; NaN before any read.
    /// Valid until the next call.
    public func hopDecibels(_ hop: Int) -> UnsafeBufferPointer<Float> {
        let n = plan.fftSize
        let kept = plan.keptBins
        let sums = power + hop * n
        // a peak-held bin is already one power; a sum is divided by the FFTs in it (and squared for envelopes)
        let count = transforms[hop]
        let empty = count == 0
        for (out, bin) in kept.enumerated() {
            decibels[out] = empty ? .nan
                : Self.decibels(detector.accumulatedPower(Self.shiftedPower(sums, bin: bin, n: n), transforms: count))
        }
        return UnsafeBufferPointer(start: decibels, count: kept.count)
    }

    /// Power of shifted bin `bin`: halves swapped, DC (shifted bin n/2)
    /// replaced by the bin above it, as rtl_power "nukes" it.
    @inline(__always)
    static func shiftedPower(_ sums: UnsafePointer<Float>, bin: Int, n: Int) -> Float {
        guard n > 1 else { return sums[0] }
        let half = n / 2
        let fftBin = bin < half ? bin + half : bin - half
        return sums[fftBin == 0 ? 1 : fftBin]
    }

    @inline(__always)
    static func decibels(_ power: Float) -> Float { 10 * log10f(power) }

    /// Writes every hop's kept bins into `bins` (`frameBinCount` values) at
    /// their frequency; bins no hop covers are NaN.
    public func fillFrame(_ bins: UnsafeMutableBufferPointer<Float>) {
        for i in 0..<bins.count { bins[i] = .nan }
        for hop in 0..<plan.hopCount {
            let values = hopDecibels(hop)
            let offset = frameOffsets[hop]
            for (i, v) in values.enumerated() {
                let target = offset + i
                if target >= 0 && target < bins.count { bins[target] = v }
            }
        }
    }

    /// Starts a new integration.
    public func reset() {
        (power).update(repeating: 0, count: plan.hopCount * plan.fftSize)
        transforms.update(repeating: 0, count: plan.hopCount)
        reads.update(repeating: 0, count: plan.hopCount)
    }
}
