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

    /// One value, for tests and odd callers; `convert` is the bulk path.
    static func decibels(_ power: Float) -> Float {
        isSeriesDomain(power) ? series(power) : reference(power)
    }

    /// Writes the dB of `count` powers to `decibels`: a branch-free first
    /// pass the compiler can vectorise, then a pass that redoes the rare
    /// values outside the series' domain with the reference formula.
    static func convert(_ powers: UnsafePointer<Float>, into decibels: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { decibels[i] = series(powers[i]) }
        for i in 0..<count where !isSeriesDomain(powers[i]) { decibels[i] = reference(powers[i]) }
    }

    /// positive, normal and finite (false for NaN)
    @inline(__always)
    static func isSeriesDomain(_ power: Float) -> Bool {
        power >= Float.leastNormalMagnitude && power < Float.infinity
    }

    @inline(__always)
    static func series(_ power: Float) -> Float {
        let bits = power.bitPattern
        let mantissa = Float(bitPattern: (bits & 0x007f_ffff) | 0x3f80_0000)  // [1, 2)
        let high = mantissa > 1.414_213_5
        let m = high ? mantissa * 0.5 : mantissa  // [√½, √2)
        let exponent = Int32(bitPattern: (bits >> 23) & 0xff) - (high ? 126 : 127)
        let t = (m - 1) / (m + 1)
        let t2 = t * t
        let atanh = t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 * (1.0 / 9)))))
        return (Float(exponent) + twoOverLn2 * atanh) * decibelsPerOctave
    }

    /// hackrf_sweep's formula, `(float)(log2(magsq) * 10.0f / log2(10.0f))`
    /// evaluated in double (hackrf_sweep.c, release 2022.09.1, `logPower`).
    static func reference(_ power: Float) -> Float {
        Float(log2(Double(power)) * 10.0 / log2(10.0))
    }
}
