import Foundation
import Signals

/// The CISPR 16-1-1 measuring-receiver bands and their bandwidths, for EMC
/// pre-compliance. CISPR 16-1-1 specifies each band's resolution bandwidth as
/// the filter's **6 dB** bandwidth (band A 200 Hz, B 9 kHz, C and D 120 kHz,
/// E 1 MHz), not the 3 dB bandwidth a bench analyzer's "RBW" usually names,
/// nor a noise bandwidth.
///
/// tscope's resolution on an SDR is an FFT bin with a Hann window. Its power
/// response is the window's |W(f)|²: 6 dB down at ±1.00 bin (6 dB bandwidth
/// 2.00 bins), 3 dB down at ±0.72 bin (1.44 bins), with an equivalent noise
/// bandwidth of 1.50 bins (`hannBandwidths`, computed numerically from the
/// window, checked by `CISPRMeasurementTests`). A CISPR bandwidth B₆ is
/// therefore reached with bins B₆ / 2.00 wide: 4.5 kHz bins for band B.
///
/// Quasi-peak is **absent**: CISPR 16-1-1's quasi-peak detector is a
/// charge/discharge circuit (band B: 1 ms charge, 160 ms discharge, 160 ms
/// meter; C/D: 1 ms, 550 ms, 100 ms) on the IF envelope, which tscope does
/// not model. Its peak detector reads at or above quasi-peak and its CISPR
/// average (`CISPRAverage`) at or below, so a pre-scan that passes on peak
/// passes on quasi-peak.
public enum CISPRBand: String, CaseIterable, Sendable {
    case a, b, c, d, e

    /// the band's frequencies [Hz] (CISPR 16-1-1: A 9–150 kHz, B 0.15–30 MHz, C 30–300 MHz, D 0.3–1 GHz, E 1–18 GHz)
    public var range: FrequencyRange {
        switch self {
        case .a: return FrequencyRange(lowerHz: 9e3, upperHz: 150e3)!
        case .b: return FrequencyRange(lowerHz: 150e3, upperHz: 30e6)!
        case .c: return FrequencyRange(lowerHz: 30e6, upperHz: 300e6)!
        case .d: return FrequencyRange(lowerHz: 300e6, upperHz: 1e9)!
        case .e: return FrequencyRange(lowerHz: 1e9, upperHz: 18e9)!
        }
    }

    /// the measuring bandwidth at its 6 dB points [Hz]
    public var sixDBBandwidthHz: Double {
        switch self {
        case .a: return 200
        case .b: return 9e3
        case .c, .d: return 120e3
        case .e: return 1e6
        }
    }

    /// The band a frequency falls in (the lower band at a shared edge); nil below 9 kHz or above 18 GHz.
    public static func at(_ hz: Double) -> CISPRBand? {
        allCases.first { $0.range.lowerHz <= hz && hz <= $0.range.upperHz }
    }

    /// The band whose bandwidth a band of frequencies needs: the widest
    /// among the bands it touches (a 150 kHz–30 MHz scan is band B; one
    /// across 30 MHz takes band C's 120 kHz). Nil outside 9 kHz–18 GHz.
    public static func covering(_ band: FrequencyRange) -> CISPRBand? {
        let touched = allCases.filter { $0.range.upperHz > band.lowerHz && $0.range.lowerHz < band.upperHz }
        return touched.max { $0.sixDBBandwidthHz < $1.sixDBBandwidthHz }
    }

    /// The Hann-windowed FFT bin width [Hz] whose 6 dB bandwidth is this band's.
    public var hannBinWidthHz: Double { sixDBBandwidthHz / CISPRMeasurement.hannBandwidths.sixDB }

    /// "B (9 kHz, 150 kHz–30 MHz)"
    public var label: String {
        "\(rawValue.uppercased()) (\(FrequencyFormat.label(sixDBBandwidthHz)), \(range))"
    }
}

/// The bandwidths of a Hann-windowed FFT bin, and the CISPR average of an envelope.
public enum CISPRMeasurement {
    /// A window's bandwidths in bins: where its power response |W(f)|²/|W(0)|²
    /// falls 3 dB and 6 dB (full widths), and its equivalent noise bandwidth
    /// N·Σw²/(Σw)².
    public struct Bandwidths: Sendable, Equatable {
        public var threeDB: Double
        public var sixDB: Double
        public var noise: Double
    }

    /// The Hann window's bandwidths, computed from a 4096-point window
    /// (`bandwidths(of:)`): about 1.44, 2.00 and 1.50 bins.
    public static let hannBandwidths = bandwidths(of: (0..<4096).map { SpectralWindow.hann($0, length: 4096) })

    /// Bandwidths of `window` in bins, from its DTFT evaluated directly (no FFT
    /// grid), each −3/−6 dB point found by bisection on the main lobe.
    public static func bandwidths(of window: [Double]) -> Bandwidths {
        let n = Double(window.count)
        let sum = window.reduce(0, +)
        let squares = window.reduce(0) { $0 + $1 * $1 }
        // power response at `bins` from the centre, relative to the centre
        func response(_ bins: Double) -> Double {
            var re = 0.0, im = 0.0
            for (i, w) in window.enumerated() {
                let phase = -2 * Double.pi * bins * Double(i) / n
                re += w * cos(phase)
                im += w * sin(phase)
            }
            return (re * re + im * im) / (sum * sum)
        }
        func halfWidth(decibels: Double) -> Double {
            let target = pow(10, -decibels / 10)
            var low = 0.0, high = 1.0
            while response(high) > target, high < 64 { high *= 2 }
            for _ in 0..<50 {
                let middle = (low + high) / 2
                if response(middle) > target { low = middle } else { high = middle }
            }
            return (low + high) / 2
        }
        return Bandwidths(threeDB: 2 * halfWidth(decibels: 10 * log10(2.0)), sixDB: 2 * halfWidth(decibels: 20 * log10(2.0)),
                          noise: n * squares / (sum * sum))
    }

    /// The CISPR average detector over one measurement time: the mean of the
    /// linear envelope (voltage, √power) of `powers`, the envelope's power at
    /// each sample, then in dB — 20·log10(mean √p). Not the mean of the
    /// power (RMS: 10·log10(mean p)) nor the mean of the dB values. A carrier
    /// pulsed at duty cycle d reads 20·log10(d) below its peak here and
    /// 10·log10(d) on RMS. NaN samples are left out; nil when none is left.
    public static func averageDecibels<C: Collection>(powers: C) -> Double? where C.Element == Float {
        var sum = 0.0
        var count = 0
        for p in powers where !p.isNaN {
            sum += Double(max(p, 0)).squareRoot()
            count += 1
        }
        guard count > 0 else { return nil }
        let mean = sum / Double(count)
        return 20 * log10(mean)
    }
}

/// `--rbw cispr` and `--rbw cispr-a` … `cispr-e`: the FFT bins of an analyzer
/// tscope detects samples for (HackRF, RTL-SDR, SoapySDR) made as wide as a
/// CISPR 16-1-1 band's 6 dB bandwidth needs (`CISPRBand.hannBinWidthHz`:
/// B₆ / 2.00 with the Hann window), whatever bin width the view or the
/// command would have asked for.
public enum CISPRResolution: Sendable, Equatable, CustomStringConvertible {
    /// `cispr`: the band of the frequencies watched; a span over several
    /// bands takes the widest bandwidth among them (`CISPRBand.covering`)
    case byFrequency
    /// `cispr-b`: this band's bandwidth wherever the analyzer is tuned
    case band(CISPRBand)

    /// the `--rbw` values it is written as
    public static let texts = ["cispr"] + CISPRBand.allCases.map { "cispr-\($0.rawValue)" }

    /// "cispr", "cispr-a" … "cispr-e" (any case); nil for anything else
    public init?(text: String) {
        let lowered = text.lowercased()
        if lowered == "cispr" {
            self = .byFrequency
        } else if lowered.hasPrefix("cispr-"), let band = CISPRBand(rawValue: String(lowered.dropFirst(6))) {
            self = .band(band)
        } else {
            return nil
        }
    }

    /// as `--rbw` takes it
    public var description: String {
        switch self {
        case .byFrequency: return "cispr"
        case .band(let band): return "cispr-\(band.rawValue)"
        }
    }

    /// The CISPR band whose bandwidth watching `range` takes; nil where
    /// `byFrequency` finds none (below 9 kHz or above 18 GHz throughout).
    public func band(for range: FrequencyRange) -> CISPRBand? {
        switch self {
        case .byFrequency: return CISPRBand.covering(range)
        case .band(let band): return band
        }
    }

    /// The Hann bin width [Hz] for watching `range`, or why there is none.
    public func binWidthHz(for range: FrequencyRange) throws(CISPRResolutionError) -> Double {
        guard let band = band(for: range) else { throw CISPRResolutionError(range: range) }
        return band.hannBinWidthHz
    }
}

/// `--rbw cispr` on a band outside every CISPR 16-1-1 band.
public struct CISPRResolutionError: Error, Equatable, CustomStringConvertible {
    public var range: FrequencyRange
    public var description: String {
        "--rbw cispr: \(range) lies outside CISPR 16-1-1's bands (9 kHz–18 GHz); name one (--rbw cispr-a … cispr-e) "
            + "or give no --rbw"
    }
}
