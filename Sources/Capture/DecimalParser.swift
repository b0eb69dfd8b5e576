import Foundation

/// Parses decimal numbers from bytes without allocating, at hundreds of MB/s.
///
/// The fast path takes plain decimals (`-28.67`, `88050000`, `781.25`): at
/// most 15 significant digits and 8 fraction digits. Those give the correctly
/// rounded result: the digits form an integer m < 2^53 and 10^k is exact, so
/// m / 10^k in Double is correctly rounded; converting that to Float cannot
/// round twice wrongly, because a non-dyadic m / 10^k is at least
/// 2^-24 / 10^8 > 2^-53 (relative) away from any Float midpoint. Everything
/// else (exponents, "inf", "nan", long mantissas) goes to strtof/strtod, the
/// reference the tests check the fast path against.
enum DecimalParser {
    /// powers of ten exact in Double (10^0 … 10^22)
    static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// longest field the slow path accepts [bytes]
    static let maxSlowField = 63

    /// Parses all of `field` as a Float; nil unless the whole field is a number.
    @inline(__always)
    static func float(_ field: UnsafeBufferPointer<UInt8>) -> Float? {
        if let (mantissa, fractionDigits, negative) = plainDecimal(field), fractionDigits <= 8 {
            let magnitude = Float(Double(mantissa) / powersOfTen[fractionDigits])
            return negative ? -magnitude : magnitude
        }
        return slowFloat(field)
    }

    /// Parses all of `field` as a Double; nil unless the whole field is a number.
    @inline(__always)
    static func double(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        if let (mantissa, fractionDigits, negative) = plainDecimal(field) {
            let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
            return negative ? -magnitude : magnitude
        }
        return slowDouble(field)
    }

    /// Parses all of `field` as a decimal integer (optional sign, ≤ 18 digits).
    @inline(__always)
    static func integer(_ field: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = field.baseAddress, field.count > 0 else { return nil }
        var i = 0
        var negative = false
        if base[0] == UInt8(ascii: "-") || base[0] == UInt8(ascii: "+") {
            negative = base[0] == UInt8(ascii: "-")
            i = 1
        }
        let digits = field.count - i
        guard digits > 0, digits <= 18 else { return nil }
        var value = 0
        while i < field.count {
            let d = base[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            value = value * 10 + Int(d)
            i += 1
        }
        return negative ? -value : value
    }

    /// sign, digits, optional "." and digits → (m, fraction digits, negative);
    /// nil for anything else or more than 15 significant digits.
    @inline(__always)
    static func plainDecimal(_ field: UnsafeBufferPointer<UInt8>) -> (UInt64, Int, Bool)? {
        guard let base = field.baseAddress, field.count > 0 else { return nil }
        let count = field.count
        var i = 0
        var negative = false
        if base[0] == UInt8(ascii: "-") || base[0] == UInt8(ascii: "+") {
            negative = base[0] == UInt8(ascii: "-")
            i = 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var significant = 0
        var fractionDigits = 0
        var seenPoint = false
        while i < count {
            let byte = base[i]
            let d = byte &- UInt8(ascii: "0")
            if d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
                if mantissa != 0 { significant += 1 }
                if seenPoint { fractionDigits += 1 }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0, significant <= 15, fractionDigits <= 22 else { return nil }
        return (mantissa, fractionDigits, negative)
    }

    static func slowFloat(_ field: UnsafeBufferPointer<UInt8>) -> Float? {
        withTerminatedCopy(field) { text, length in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtof(text, &end)
            return end == text + length ? value : nil
        }
    }

    static func slowDouble(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        withTerminatedCopy(field) { text, length in
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(text, &end)
            return end == text + length ? value : nil
        }
    }

    /// Copies a short field to a NUL-terminated stack buffer for the C parsers;
    /// nil for empty, over-long, leading-space or hexadecimal fields.
    private static func withTerminatedCopy<T>(_ field: UnsafeBufferPointer<UInt8>,
                                             _ body: (UnsafeMutablePointer<CChar>, Int) -> T?) -> T? {
        guard let base = field.baseAddress, field.count > 0, field.count <= maxSlowField else { return nil }
        let first = base[0]
        guard first != UInt8(ascii: " "), first != UInt8(ascii: "\t"), first != 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: maxSlowField + 1) { scratch in
            let text = scratch.baseAddress!
            for i in 0..<field.count {
                // strto* would also take hexadecimal ("0x1p4"): not a decimal
                guard base[i] != 0, base[i] | 0x20 != UInt8(ascii: "x") else { return nil }
                text[i] = CChar(bitPattern: base[i])
            }
            text[field.count] = 0
            return body(text, field.count)
        }
    }
}

/// Walks the comma-separated fields of one line: each field is trimmed of
/// spaces and tabs ("a, b,c" → "a", "b", "c"; "a," → "a", "").
struct FieldCursor {
    private let base: UnsafePointer<UInt8>?
    private let count: Int
    private var position = 0
    private var done = false

    init(_ line: UnsafeBufferPointer<UInt8>) {
        base = line.baseAddress
        count = line.count
        done = base == nil
    }

    /// Everything after the fields returned so far (nil after the last one).
    mutating func rest() -> UnsafeBufferPointer<UInt8>? {
        guard !done, let base else { return nil }
        done = true
        return UnsafeBufferPointer(start: base + position, count: max(0, count - position))
    }

    /// The next field, or nil after the last one.
    @inline(__always)
    mutating func next() -> UnsafeBufferPointer<UInt8>? {
        guard !done, let base else { return nil }
        var first = position
        while first < count, base[first] == UInt8(ascii: " ") || base[first] == UInt8(ascii: "\t") { first += 1 }
        var stop = first
        while stop < count, base[stop] != UInt8(ascii: ",") { stop += 1 }
        if stop >= count { done = true }
        position = stop + 1
        var last = stop
        while last > first, base[last - 1] == UInt8(ascii: " ") || base[last - 1] == UInt8(ascii: "\t") { last -= 1 }
        return UnsafeBufferPointer(start: base + first, count: last - first)
    }
}
