import Foundation
import Signals
import ThreadKit

/// A CW tone's level and frequency read from the bins of a windowed FFT, as
/// a bench analyzer's marker reads them: corrected for the window's coherent
/// gain and for the scalloping between bins.
///
/// A tone of power P at δ bins from a bin's centre puts P·K(δ) into that bin,
/// where K(δ) = |Σ wₙ e^(−2πinδ/N)|² / N² is the window's power response
/// (tscope's FFT paths scale power as |X/N|²; K(0) = (Σw/N)² is the coherent
/// power gain, −6.02 dB for Hann). At a peak bin k with the higher
/// neighbour on the side of the tone, the ratio ρ = P(k±1)/P(k) =
/// K(1−δ)/K(δ) rises monotonically with δ over 0…½, so δ follows from ρ and
/// P = P(k) / K(δ). This is the ratio-of-neighbouring-bins estimator of
/// Grandke (T. Grandke, "Interpolation algorithms for discrete Fourier
/// transforms of weighted signals", IEEE Trans. Instrum. Meas. 32(2),
/// 350–355, 1983), whose closed form for the periodic Hann window is
/// δ = (2α − 1)/(α + 1) with α = √ρ; here K is tabulated from the window's
/// own weights instead, so the symmetric Hann of hackrf_sweep and every
/// rtl_power window are read exactly too. The result is in the scale of
/// channel power (`BandPower`): a tone reads the same as its channel power.
///
/// A bin that is not a local maximum (a marker moved off a peak) gets the
/// coherent-gain correction only, reading as a tone centred on it would.
/// Frames without `windowing` (a device's own RBW filter made them) are read
/// as they are.
public enum ToneLevel {
    /// One reading.
    public struct Reading: Sendable, Equatable {
        /// the tone's frequency [Hz]: the bin centre moved by the interpolated offset
        public var hz: Double
        /// the tone's level in the frame's dB reference [dB]
        public var decibels: Float

        public init(hz: Double, decibels: Float) {
            self.hz = hz
            self.decibels = decibels
        }
    }

    /// The tone read at bin `bin` of `frame` (NaN level outside the frame or on a NaN bin).
    public static func read(bin: Int, of frame: SpectrumFrame) -> Reading {
        frame.powerDB.withUnsafeBufferPointer {
            read(bin: bin, bins: $0, startHz: frame.startHz, binWidthHz: frame.binWidthHz, windowing: frame.windowing)
        }
    }

    /// The tone read at bin `bin` of `bins` (dB per bin, bin i centred on
    /// startHz + (i + ½)·binWidthHz). Allocates nothing once the window's
    /// response is tabulated (the first reading of each window and length).
    public static func read(bin: Int, bins: UnsafeBufferPointer<Float>, startHz: Double, binWidthHz: Double,
                            windowing: FFTWindowing?) -> Reading {
        let centreHz = startHz + (Double(bin) + 0.5) * binWidthHz
        guard bins.indices.contains(bin) else { return Reading(hz: centreHz, decibels: .nan) }
        let level = bins[bin]
        guard level.isFinite, let windowing, let response = WindowToneResponse.shared(windowing) else {
            return Reading(hz: centreHz, decibels: level)
        }
        func neighbour(_ index: Int) -> Float {
            bins.indices.contains(index) && bins[index].isFinite ? bins[index] : -.infinity
        }
        let below = neighbour(bin - 1), above = neighbour(bin + 1)
        // not a peak: coherent gain only
        guard level >= below, level >= above else {
            return Reading(hz: centreHz, decibels: level - response.gainDB(offsetBins: 0))
        }
        let higher = max(below, above)
        let side: Double = above >= below ? 1 : -1
        // ρ in linear power; an absent neighbour (−∞) gives 0: the tone taken as centred
        let ratio = higher.isFinite ? Double(pow(10, (higher - level) / 10)) : 0
        let offset = response.offset(forRatio: ratio)
        return Reading(hz: centreHz + side * offset * binWidthHz,
                       decibels: level - response.gainDB(offsetBins: offset))
    }
}

/// A window's power response to a tone between bins, K(δ) for δ in 0…1 bin,
/// tabulated once per window and length (see `ToneLevel`).
public final class WindowToneResponse: Sendable {
    /// table steps per bin: the gain's curvature (≈ 11 dB/bin² for Hann)
    /// makes linear interpolation good to 1e-4 dB
    static let stepsPerBin = 128
    /// 10·log10 K(j / stepsPerBin) for j = 0…stepsPerBin [dB]
    private let gainTable: [Double]
    /// K(1 − δ)/K(δ) for δ = j / stepsPerBin, j = 0…stepsPerBin/2, made non-decreasing
    private let ratioTable: [Double]

    /// Longest window tabulated [points]: beyond it the table would cost more than it saves.
    static let maximumLength = 1 << 20

    public init?(_ windowing: FFTWindowing) {
        let n = windowing.length
        guard n >= 2, n <= Self.maximumLength else { return nil }
        let weights = (0..<n).map { windowing.weight($0) }
        let steps = Self.stepsPerBin
        var gains = [Double](repeating: 0, count: steps + 1)
        for j in 0...steps {
            // Σ wₙ zⁿ by Horner, z = e^(−2πiδ/N), in Double
            let angle = -2 * Double.pi * Double(j) / Double(steps) / Double(n)
            let zr = cos(angle), zi = sin(angle)
            var sr = 0.0, si = 0.0
            for k in stride(from: n - 1, through: 0, by: -1) {
                let r = sr * zr - si * zi + weights[k]
                si = sr * zi + si * zr
                sr = r
            }
            let power = (sr * sr + si * si) / Double(n * n)
            gains[j] = 10 * log10(max(power, 1e-30))
        }
        guard gains[0] > -290 else { return nil }
        var ratios = [Double](repeating: 0, count: steps / 2 + 1)
        var running = 0.0
        for j in 0...(steps / 2) {
            running = max(running, pow(10, (gains[steps - j] - gains[j]) / 10))
            ratios[j] = running
        }
        gainTable = gains
        ratioTable = ratios
    }

    /// 10·log10 K(δ) for 0 ≤ δ ≤ 1 [dB]: the level a tone of 0 dB reads δ bins from a bin's centre.
    public func gainDB(offsetBins: Double) -> Float {
        let position = min(max(offsetBins, 0), 1) * Double(Self.stepsPerBin)
        let j = min(Int(position), Self.stepsPerBin - 1)
        let fraction = position - Double(j)
        return Float(gainTable[j] + fraction * (gainTable[j + 1] - gainTable[j]))
    }

    /// The offset δ in 0…½ bin whose neighbour-to-peak power ratio is `ratio`.
    public func offset(forRatio ratio: Double) -> Double {
        let last = ratioTable.count - 1
        guard ratio > ratioTable[0] else { return 0 }
        guard ratio < ratioTable[last] else { return 0.5 }
        // first entry ≥ ratio
        var low = 0, high = last
        while high - low > 1 {
            let middle = (low + high) / 2
            if ratioTable[middle] < ratio { low = middle } else { high = middle }
        }
        let span = ratioTable[high] - ratioTable[low]
        let fraction = span > 0 ? (ratio - ratioTable[low]) / span : 0
        return (Double(low) + fraction) / Double(Self.stepsPerBin)
    }

    /// The response of `windowing`, tabulated on first use and kept (a
    /// session meets a handful of windows and lengths); nil for a length it
    /// cannot tabulate.
    public static func shared(_ windowing: FFTWindowing) -> WindowToneResponse? {
        if let known = cache.withLock({ $0[windowing] }) { return known }
        // tabulated outside the lock: two threads may both make one, the first kept
        guard let made = WindowToneResponse(windowing) else { return nil }
        return cache.withLock { table in
            if let known = table[windowing] { return known }
            if table.count >= 64 { table.removeAll() }
            table[windowing] = made
            return made
        }
    }

    private static let cache = Guarded<[FFTWindowing: WindowToneResponse]>([:])
}
