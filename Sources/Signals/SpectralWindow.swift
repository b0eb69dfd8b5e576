import Foundation

/// The FFT windows rtl_power offers with `-w` (osmocom/rtl-sdr
/// src/rtl_power.c, release 0.6.0: `rectangle`, `hamming`, …), with its
/// coefficients. N1 = length − 1 throughout, as there.
public enum SpectralWindow: String, CaseIterable, Sendable {
    case rectangle
    case hamming
    case blackman
    case blackmanHarris = "blackman-harris"
    case hannPoisson = "hann-poisson"
    case youssef
    /// rtl_power lists it but computes 1 (a rectangle)
    case kaiser
    case bartlett

    /// Weight of sample `i` of `length`.
    public func weight(_ i: Int, length: Int) -> Double {
        let n1 = Double(length - 1)
        let x = Double(i)
        switch self {
        case .rectangle, .kaiser:
            return 1
        case .hamming:
            return 25.0 / 46.0 - 21.0 / 46.0 * cos(2 * x * .pi / n1)
        case .blackman:
            return (7938.0 - 9240.0 * cos(2 * x * .pi / n1) + 1430.0 * cos(4 * x * .pi / n1)) / 18608.0
        case .blackmanHarris:
            return Self.blackmanHarris(x, n1)
        case .hannPoisson:
            // α = 2; rtl_power's exponent uses |N1 − 1 − 2i| / N1
            let hann = 0.5 * (1 - cos(2 * .pi * x / n1))
            return hann * exp(-2 * abs(n1 - 1 - 2 * x) / n1)
        case .youssef:
            // Blackman-Harris times a Poisson window with α = 0.0025
            return Self.blackmanHarris(x, n1) * exp(-0.0025 * abs(n1 - 1 - 2 * x) / n1)
        case .bartlett:
            let length = Double(length)
            return 1 - abs((x - n1 / 2) / (length / 2))
        }
    }

    /// Σw² / N over `length` weights: what a bin's power takes of white
    /// noise, per bin width, when the FFT is scaled by 1/N (as tscope's FFT
    /// paths are). It is the equivalent noise bandwidth in bins
    /// (N·Σw²/(Σw)²) times the coherent power gain ((Σw/N)²).
    public func meanSquare(length: Int) -> Double {
        guard length > 0 else { return 1 }
        var sum = 0.0
        for i in 0..<length {
            let w = weight(i, length: length)
            sum += w * w
        }
        return sum / Double(length)
    }

    /// The Hann window hackrf_sweep uses, 0.5·(1 − cos(2πi/(N−1))).
    public static func hann(_ i: Int, length: Int) -> Double {
        0.5 * (1 - cos(2 * Double.pi * Double(i) / Double(length - 1)))
    }

    /// The periodic Hann window, 0.5·(1 − cos(2πi/N)): an N-point FFT of a
    /// repeating signal sees no seam (the I/Q importer's window).
    public static func periodicHann(_ i: Int, length: Int) -> Double {
        0.5 * (1 - cos(2 * Double.pi * Double(i) / Double(length)))
    }

    /// Σw²/N of that Hann window (≈ 0.375 for large N).
    public static func hannMeanSquare(length: Int) -> Double {
        guard length > 1 else { return 1 }
        var sum = 0.0
        for i in 0..<length { sum += hann(i, length: length) * hann(i, length: length) }
        return sum / Double(length)
    }

    private static func blackmanHarris(_ x: Double, _ n1: Double) -> Double {
        0.35875 - 0.48829 * cos(2 * x * .pi / n1) + 0.14128 * cos(4 * x * .pi / n1) - 0.01168 * cos(6 * x * .pi / n1)
    }
}
