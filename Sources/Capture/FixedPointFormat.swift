import Foundation

/// Writes numbers as text exactly as C's printf would, without printf's cost.
enum FixedPointFormat {
    /// Writes `value` as `%.2f` does in glibc: the float's exact value rounded
    /// half-to-even to two decimals, "-0.00" for negative values that round to
    /// zero, "inf"/"-inf"/"nan"/"-nan" for non-finite values. Returns bytes written
    /// (at most 48).
    ///
    /// Exact because a Float has a 24-bit significand: value × 100 needs at most
    /// 31 bits and is therefore exact in a Double, so rounding that product is
    /// rounding the true decimal expansion.
    @inline(__always)
    static func writeTwoDecimals(_ value: Float, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var position = 0
        if value.sign == .minus {
            out[0] = UInt8(ascii: "-")
            position = 1
        }
        guard value.isFinite else {
            let word: StaticString = value.isNaN ? "nan" : "inf"
            word.withUTF8Buffer { bytes in
                for (i, b) in bytes.enumerated() { out[position + i] = b }
            }
            return position + 3
        }
        let hundredths = (Double(value.magnitude) * 100).rounded(.toNearestOrEven)
        // Float's largest finite value × 100 is ~3.4e40: beyond UInt64, so go
        // through the slow path (never happens for dB values).
        guard hundredths < 1.8e19 else {
            let text = String(format: "%.2f", Double(value.magnitude))
            for (i, b) in text.utf8.enumerated() { out[position + i] = b }
            return position + text.utf8.count
        }
        let scaled = UInt64(hundredths)
        position += writeDecimal(scaled / 100, to: out + position)
        let fraction = Int(scaled % 100)
        out[position] = UInt8(ascii: ".")
        out[position + 1] = UInt8(ascii: "0") &+ UInt8(fraction / 10)
        out[position + 2] = UInt8(ascii: "0") &+ UInt8(fraction % 10)
        return position + 3
    }

    /// `writeTwoDecimals`, with −inf and NaN in `spelling`; returns bytes written (≤ 48).
    @inline(__always)
    static func writeTwoDecimals(_ value: Float, spelling: NonFiniteSpelling,
                                 to out: UnsafeMutablePointer<UInt8>) -> Int {
        value.isFinite ? writeTwoDecimals(value, to: out) : spelling.write(value, to: out)
    }

    /// Writes an unsigned integer in decimal; returns bytes written (≤ 20).
    @inline(__always)
    static func writeDecimal(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 1
        var probe = value
        while probe >= 10 {
            probe /= 10
            count += 1
        }
        var remaining = value
        for i in stride(from: count - 1, through: 0, by: -1) {
            out[i] = UInt8(ascii: "0") &+ UInt8(remaining % 10)
            remaining /= 10
        }
        return count
    }

    /// Writes `value` zero-padded to `width` digits.
    @inline(__always)
    static func writePadded(_ value: Int, width: Int, to out: UnsafeMutablePointer<UInt8>) {
        var remaining = value
        for i in stride(from: width - 1, through: 0, by: -1) {
            out[i] = UInt8(ascii: "0") &+ UInt8(remaining % 10)
            remaining /= 10
        }
    }

    /// Writes the ", " that separates rtl_power and hackrf_sweep fields; returns 2.
    @inline(__always)
    static func writeCommaSpace(to out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: ",")
        out[1] = UInt8(ascii: " ")
        return 2
    }

    /// Copies preformatted text; returns bytes written.
    @inline(__always)
    static func writeBytes(_ bytes: [UInt8], to out: UnsafeMutablePointer<UInt8>) -> Int {
        for (i, byte) in bytes.enumerated() { out[i] = byte }
        return bytes.count
    }
}
