import Foundation

/// Zero span's receiver after the radio: the stream's bytes → complex
/// samples (the real-time path's scale: int8 / 128, so |x|² is dB full
/// scale and a carrier reads its power, as channel power does) → a shift
/// from the radio's tuning to the wanted frequency → `ZeroSpanRBWFilter` →
/// power |y|² → the largest power of each point's samples (a positive-peak
/// detector: a burst shorter than a point still shows at its level).
///
/// The radio is tuned a quarter of the sample rate above the wanted
/// frequency (`offsetHz`), so its DC offset lies fs/4 away, outside the
/// filter, and the shift back is multiplication by jⁿ: no table, no drift.
///
/// A recording made at another tuning (its centre not fs/4 above the wanted
/// frequency) gives its own `offsetHz`; the shift back is then a rotating
/// phasor, renormalised every 4096 samples so its magnitude stays 1.
///
/// Each point carries the index of its first sample since the stream began,
/// so its time is a sample count ÷ the sample rate, never the wall clock.
/// Allocation-free after `init`.
public final class ZeroSpanDetector {
    public let format: RealtimeSpectrum.SampleFormat
    public let samplesPerPoint: Int
    /// the radio's tuning minus the wanted frequency: +fs/4 unless given [Hz]
    public let offsetHz: Double
    /// the shift's phasor per sample, and now; nil for the fs/4 shift (multiplication by jⁿ)
    private let step: (re: Double, im: Double)?
    private var phasor = (re: 1.0, im: 0.0)
    private var filter: ZeroSpanRBWFilter
    /// samples since the stream began (the next one's index)
    public private(set) var sampleIndex = 0
    /// samples in the current point, and their largest power
    private var inPoint = 0
    private var pointPeak = 0.0
    private var pointFirst = 0
    /// samples after a restart the filter still settles for (4 × its rise time): no point is made from them
    private let settleSamples: Int
    private var settling = 0

    /// - Parameter offsetHz: the tuning minus the wanted frequency [Hz]; nil: +fs/4 (how `ZeroSpanPlan` tunes a radio)
    public init(filter: ZeroSpanRBWFilter, format: RealtimeSpectrum.SampleFormat, samplesPerPoint: Int,
                offsetHz: Double? = nil) {
        self.filter = filter
        self.format = format
        self.samplesPerPoint = max(1, samplesPerPoint)
        let quarter = filter.sampleRateHz / 4
        self.offsetHz = offsetHz ?? quarter
        if let offsetHz, offsetHz != quarter {
            let w = 2 * Double.pi * offsetHz / filter.sampleRateHz
            step = (cos(w), sin(w))
        } else {
            step = nil
        }
        settleSamples = Int((4 * filter.riseTimeSeconds * filter.sampleRateHz).rounded(.up))
        settling = settleSamples
    }

    /// After a gap in the stream at sample `index`: the filter starts again, the open point is dropped.
    public func restart(at index: Int) {
        filter.reset()
        sampleIndex = index
        if step != nil {
            let w = 2 * Double.pi * offsetHz / filter.sampleRateHz
            let turns = (w * Double(index)).truncatingRemainder(dividingBy: 2 * Double.pi)
            phasor = (cos(turns), sin(turns))
        }
        inPoint = 0
        pointPeak = 0
        settling = settleSamples
    }

    /// Consumes whole complex samples from `bytes`; `onPoint(power, firstSample)` gets each finished
    /// point's peak power (linear, full scale 1) and the index of its first sample.
    public func consume(_ bytes: UnsafeRawBufferPointer, onPoint: (Double, Int) -> Void) {
        let count = bytes.count / format.bytesPerSample
        guard count > 0, let base = bytes.baseAddress else { return }
        switch format {
        case .int8:
            let s = base.assumingMemoryBound(to: Int8.self)
            for k in 0..<count { take(Double(s[2 * k]) / 128, Double(s[2 * k + 1]) / 128, onPoint) }
        case .uint8:
            let s = base.assumingMemoryBound(to: UInt8.self)
            for k in 0..<count { take((Double(s[2 * k]) - 127.5) / 128, (Double(s[2 * k + 1]) - 127.5) / 128, onPoint) }
        case .int16:
            let s = base.assumingMemoryBound(to: Int16.self)
            for k in 0..<count { take(Double(s[2 * k]) / 32768, Double(s[2 * k + 1]) / 32768, onPoint) }
        case .float32:
            let s = base.assumingMemoryBound(to: Float.self)
            for k in 0..<count { take(Double(s[2 * k]), Double(s[2 * k + 1]), onPoint) }
        }
    }

    @inline(__always)
    private func take(_ i: Double, _ q: Double, _ onPoint: (Double, Int) -> Void) {
        // the wanted frequency sits at −offset in the radio's baseband: × e^(j·2π·offset·n/fs) moves it to 0
        let shifted: (Double, Double)
        if let step {
            shifted = (i * phasor.re - q * phasor.im, i * phasor.im + q * phasor.re)
            phasor = (phasor.re * step.re - phasor.im * step.im, phasor.re * step.im + phasor.im * step.re)
            if sampleIndex & 4095 == 4095 {
                let norm = (phasor.re * phasor.re + phasor.im * phasor.im).squareRoot()
                phasor = (phasor.re / norm, phasor.im / norm)
            }
        } else {
            // fs/4: × jⁿ
            switch sampleIndex & 3 {
            case 0: shifted = (i, q)
            case 1: shifted = (-q, i)
            case 2: shifted = (-i, -q)
            default: shifted = (q, -i)
            }
        }
        let power = filter.power(i: shifted.0, q: shifted.1)
        let index = sampleIndex
        sampleIndex += 1
        if settling > 0 {
            settling -= 1
            return
        }
        if inPoint == 0 {
            pointFirst = index
            pointPeak = power
        } else if power > pointPeak {
            pointPeak = power
        }
        inPoint += 1
        if inPoint == samplesPerPoint {
            inPoint = 0
            onPoint(pointPeak, pointFirst)
        }
    }
}
