import Foundation
import Signals

/// Total power in a band of a spectrum, as a bench analyzer's channel power
/// integrates power spectral density: Σ Pᵢ × wᵢ / NBW, where Pᵢ is a bin's
/// linear power, wᵢ the part of the bin inside the band [Hz] and NBW the
/// frame's noise bandwidth (`SpectrumFrame.noiseBandwidthHz`; the bin width
/// when it is not known, which makes it the plain sum of the bins). The
/// result is in the frame's dB reference.
public enum BandPower {
    /// Power in `band` of `frame` [dB]; nil when the band does not overlap
    /// the frame or every overlapping bin is NaN.
    public static func decibels(in band: FrequencyRange, of frame: SpectrumFrame) -> Double? {
        frame.powerDB.withUnsafeBufferPointer { bins in
            decibels(in: band, startHz: frame.startHz, binWidthHz: frame.binWidthHz, bins: bins,
                     noiseBandwidthHz: frame.noiseBandwidthHz)
        }
    }

    /// Power in `band` of bins starting at `startHz` [dB]; nil as above, or
    /// for a non-positive bin or noise bandwidth.
    public static func decibels(
        in band: FrequencyRange, startHz: Double, binWidthHz: Double, bins: UnsafeBufferPointer<Float>,
        noiseBandwidthHz: Double? = nil
    ) -> Double? {
        let noiseBandwidth = noiseBandwidthHz ?? binWidthHz
        guard binWidthHz.isFinite, binWidthHz > 0, startHz.isFinite, !bins.isEmpty,
              noiseBandwidth.isFinite, noiseBandwidth > 0 else { return nil }
        // Only bins that can overlap the band [index].
        // Clamped as Double first so far-away bands cannot overflow Int.
        let lastIndex = Double(bins.count - 1)
        let first = Int(max(0, min(lastIndex + 1, ((band.lowerHz - startHz) / binWidthHz).rounded(.down))))
        let last = Int(max(-1, min(lastIndex, ((band.upperHz - startHz) / binWidthHz).rounded(.down))))
        guard first <= last else { return nil }
        var power = 0.0  // linear, relative to the dB reference
        var counted = false
        for i in first...last {
            let value = bins[i]
            if value.isNaN { continue }
            let binLower = startHz + Double(i) * binWidthHz
            let overlap = min(binLower + binWidthHz, band.upperHz) - max(binLower, band.lowerHz)
            guard overlap > 0 else { continue }
            power += overlap / noiseBandwidth * Units.power(decibels: Double(value))
            counted = true
        }
        return counted ? Units.decibels(power: power) : nil
    }
}
