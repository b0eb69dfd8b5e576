import Foundation

/// 10·log10(power) without a libm call per bin, for the per-block spectrum.
///
/// The power is split into 2^e · m with m in [√½, √2), and
/// log2(m) = (2 / ln 2) · atanh(t), t = (m − 1)/(m + 1), |t| ≤ 0.1716, is
/// summed to the t⁹ term (the first dropped term is below 3e-10 in log2,
/// ~1e-9 dB). What remains is Float rounding: within 1e-4 dB of hackrf_sweep's
/// `log2(magsq) * 10 / log2(10)` in double, far inside the 0.01 dB allowed.
/// Zero, subnormal, infinite and NaN inputs take the libm path, so 0 still
/// gives −infinity exactly as hackrf_sweep prints.
enum FastDecibels {
    /// 10 / log2(10): dB per octave of power
    static let decibelsPerOctave: Float = 3.010_299_956_639_812
    /// 2 / ln 2
    static let twoOverLn2: Float = 2.885_390_081_777_927

    @inline(__always)
    static func decibels(_ power: Float) -> Float {
        guard power >= Float.leastNormalMagnitude, power < Float.infinity else {
            return reference(power)
        }
        let bits = power.bitPattern
        var exponent = Int32(bitPattern: (bits >> 23) & 0xff) - 127
        var mantissa = Float(bitPattern: (bits & 0x007f_ffff) | 0x3f80_0000)  // [1, 2)
        if mantissa > 1.414_213_5 {
            mantissa *= 0.5
            exponent += 1
        }
        let t = (mantissa - 1) / (mantissa + 1)
        let t2 = t * t
        let series = t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 * (1.0 / 9)))))
        return (Float(exponent) + twoOverLn2 * series) * decibelsPerOctave
    }

    /// hackrf_sweep's formula, `(float)(log2(magsq) * 10.0f / log2(10.0f))`
    /// evaluated in double (hackrf_sweep.c, release 2022.09.1, `logPower`).
    static func reference(_ power: Float) -> Float {
        Float(log2(Double(power)) * 10.0 / log2(10.0))
    }
}
