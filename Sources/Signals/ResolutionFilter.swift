import Foundation

/// A swept analyzer's resolution filter, taken as Gaussian: its power
/// response at Δf from the centre is exp(−4 ln2 · (Δf / RBW)²), RBW being
/// the −3 dB width (−12.04 dB at one RBW from the centre).
public enum ResolutionFilter {
    /// noise bandwidth / −3 dB bandwidth of a Gaussian filter: √(π / (4 ln 2))
    /// ≈ 1.0645 (the integral of the power response above)
    public static let gaussianNoiseBandwidthRatio = (Double.pi / (4 * log(2.0))).squareRoot()

    /// Noise bandwidth of a Gaussian filter with −3 dB width `rbwHz` [Hz].
    public static func noiseBandwidth(rbwHz: Double) -> Double { rbwHz * gaussianNoiseBandwidthRatio }
}
