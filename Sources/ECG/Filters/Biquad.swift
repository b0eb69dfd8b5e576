import Foundation

/// A second-order IIR section in transposed direct form II, in Double so that
/// the 0.5 Hz high-pass keeps its poles (near z = 1) exact at 1 kHz.
///
/// Designs follow R. Bristow-Johnson, "Cookbook formulae for audio EQ biquad
/// filter coefficients" (w0 = 2π f0 / fs, α = sin w0 / 2Q), normalised by a0.
public struct Biquad: Sendable, Equatable {
    public var b0, b1, b2, a1, a2: Double
    private var s1 = 0.0, s2 = 0.0

    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    /// Butterworth Q for a single second-order section
    public static let butterworthQ = 1 / 2.0.squareRoot()

    public static func lowPass(cutoff: Double, sampleRate: Double, q: Double = butterworthQ) -> Biquad {
        let (cosW, alpha) = angles(cutoff, sampleRate, q)
        return normalised(b: ((1 - cosW) / 2, 1 - cosW, (1 - cosW) / 2), a: (1 + alpha, -2 * cosW, 1 - alpha))
    }

    public static func highPass(cutoff: Double, sampleRate: Double, q: Double = butterworthQ) -> Biquad {
        let (cosW, alpha) = angles(cutoff, sampleRate, q)
        return normalised(b: ((1 + cosW) / 2, -(1 + cosW), (1 + cosW) / 2), a: (1 + alpha, -2 * cosW, 1 - alpha))
    }

    /// a notch at `centre` [Hz] with -3 dB bandwidth centre / q
    public static func notch(centre: Double, sampleRate: Double, q: Double) -> Biquad {
        let (cosW, alpha) = angles(centre, sampleRate, q)
        return normalised(b: (1, -2 * cosW, 1), a: (1 + alpha, -2 * cosW, 1 - alpha))
    }

    private static func angles(_ frequency: Double, _ sampleRate: Double, _ q: Double) -> (cos: Double, alpha: Double) {
        // keep the design valid for any rate: the corner stays below Nyquist
        let w0 = 2 * Double.pi * min(frequency, 0.49 * sampleRate) / sampleRate
        return (cos(w0), sin(w0) / (2 * q))
    }

    private static func normalised(b: (Double, Double, Double), a: (Double, Double, Double)) -> Biquad {
        Biquad(b0: b.0 / a.0, b1: b.1 / a.0, b2: b.2 / a.0, a1: a.1 / a.0, a2: a.2 / a.0)
    }

    /// gain at 0 Hz
    public var dcGain: Double { (b0 + b1 + b2) / (1 + a1 + a2) }

    /// b0, b1, b2, a1, a2, s1, s2: the section as C code takes it (CECGKernels); setting it sets
    /// the state and the coefficients
    var coefficientsAndState: (Double, Double, Double, Double, Double, Double, Double) {
        get { (b0, b1, b2, a1, a2, s1, s2) }
        set { (b0, b1, b2, a1, a2, s1, s2) = newValue }
    }

    @inline(__always)
    public mutating func process(_ x: Double) -> Double {
        let y = b0 * x + s1
        s1 = b1 * x - a1 * y + s2
        s2 = b2 * x - a2 * y
        return y
    }

    /// Sets the state as if `x` had been the input forever, so a record that
    /// starts off zero causes no start-up transient.
    public mutating func prime(with x: Double) {
        let y = dcGain * x
        s2 = b2 * x - a2 * y
        s1 = b1 * x - a1 * y + s2
    }

    public mutating func reset() {
        s1 = 0
        s2 = 0
    }
}
