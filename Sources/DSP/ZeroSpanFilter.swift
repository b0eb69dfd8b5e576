import Foundation

/// Zero span's resolution filter: four identical one-pole low-pass stages in
/// cascade on the complex baseband (a "4-pole synchronously tuned" filter,
/// the shape of a swept bench analyzer's analog RBW stages: Agilent
/// Application Note 150, "Spectrum Analysis Basics", on RBW filter shape and
/// sweep time). Each stage is y ← y + α·(x − y); α is solved at `init` so
/// the cascade's power response is exactly −3 dB at ±RBW/2 from the tuned
/// frequency: one stage then passes 2^(−1/4) of the power there.
///
/// In continuous time the cascade's step response is the Erlang(4) law,
/// 10 % at 1.745 τ and 90 % at 6.681 τ, τ = 1/(2π f_c), f_c = (RBW/2)/√(2^¼ − 1);
/// the envelope's 10–90 % rise time is 4.94 τ ≈ 0.68/RBW (the familiar
/// 0.35/B with B the equivalent low-pass width RBW/2), a Gaussian filter's
/// figure to 1 %. Its noise bandwidth is 1.128 × RBW (analog prototype: ∫(1+x²)⁻⁴dx).
///
/// State is kept in Double: with α down to 10⁻⁴ (a 1 kHz RBW at 8 MS/s) a
/// Float accumulator would lose the small steps.
public struct ZeroSpanRBWFilter: Sendable {
    /// stages in cascade
    public static let poles = 4
    /// the envelope's 10–90 % rise time × RBW of the analog prototype (4.936 τ, τ = 0.1385/RBW)
    public static let riseTimeTimesRBW = 0.6834
    /// −3 dB bandwidth [Hz]
    public let rbwHz: Double
    /// [samples/s]
    public let sampleRateHz: Double
    /// each stage's coefficient α (0 < α ≤ 1)
    public let alpha: Double

    private var i0 = 0.0, q0 = 0.0, i1 = 0.0, q1 = 0.0, i2 = 0.0, q2 = 0.0, i3 = 0.0, q3 = 0.0

    /// nil unless 0 < RBW < the sample rate
    public init?(rbwHz: Double, sampleRateHz: Double) {
        guard rbwHz.isFinite, sampleRateHz.isFinite, rbwHz > 0, rbwHz < sampleRateHz else { return nil }
        self.rbwHz = rbwHz
        self.sampleRateHz = sampleRateHz
        alpha = Self.coefficient(rbwHz: rbwHz, sampleRateHz: sampleRateHz)
    }

    /// the envelope's rise time (10–90 %) of this filter [s], from the analog prototype
    public var riseTimeSeconds: Double { Self.riseTimeTimesRBW / rbwHz }

    /// One stage's power gain at normalised frequency w [rad/sample] for coefficient a.
    static func stagePowerGain(alpha a: Double, w: Double) -> Double {
        let b = 1 - a
        return a * a / (1 - 2 * b * cos(w) + b * b)
    }

    /// α with one stage's power gain 2^(−1/4) at ±RBW/2 (so the cascade's is ½), by bisection
    /// (the gain rises monotonically with α).
    static func coefficient(rbwHz: Double, sampleRateHz: Double) -> Double {
        let w = Double.pi * rbwHz / sampleRateHz
        let wanted = pow(2, -1.0 / Double(poles))
        var low = 0.0, high = 1.0
        for _ in 0..<80 {
            let mid = (low + high) / 2
            if stagePowerGain(alpha: mid, w: w) < wanted { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }

    /// The cascade's power response at `offsetHz` from the tuned frequency (1 at 0).
    public func powerResponse(atOffsetHz offsetHz: Double) -> Double {
        pow(Self.stagePowerGain(alpha: alpha, w: 2 * Double.pi * offsetHz / sampleRateHz), Double(Self.poles))
    }

    /// Clears the stages (after a gap in the stream).
    public mutating func reset() {
        i0 = 0; q0 = 0; i1 = 0; q1 = 0; i2 = 0; q2 = 0; i3 = 0; q3 = 0
    }

    /// Filters one complex sample; returns the output's power |y|².
    @inline(__always)
    public mutating func power(i: Double, q: Double) -> Double {
        let a = alpha
        i0 += a * (i - i0); q0 += a * (q - q0)
        i1 += a * (i0 - i1); q1 += a * (q0 - q1)
        i2 += a * (i1 - i2); q2 += a * (q1 - q2)
        i3 += a * (i2 - i3); q3 += a * (q2 - q3)
        return i3 * i3 + q3 * q3
    }

    /// Filters one complex sample; returns the output (impulse-response tests).
    public mutating func filter(i: Double, q: Double) -> (i: Double, q: Double) {
        _ = power(i: i, q: q)
        return (i3, q3)
    }
}
