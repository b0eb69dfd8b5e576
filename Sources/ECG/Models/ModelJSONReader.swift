import Foundation

/// A strict, narrow reader of the models' JSON (`GradientBoostedTrees`, `QuantileNetwork`): objects,
/// arrays, numbers, plain strings and null, read straight into the `ModelFile` structs.
///
/// Why: Foundation's `JSONDecoder` took about 60 ms to decode the four embedded models (1.4 MB, some
/// 170 000 numbers), which every `ecg classify` run pays before its first recording (Benchmarks/README.md,
/// "ECG classify"). This reader takes a few milliseconds. It reads exactly the values `JSONDecoder`
/// reads: a number is checked against JSON's grammar and then converted by the C library's `strtod`
/// (correctly rounded, as the Swift runtime's conversion that `JSONDecoder` uses; the tests compare
/// every value of every embedded model bit for bit).
///
/// Anything it does not handle the way `JSONDecoder` would — an escape in a string, invalid UTF-8, a
/// duplicated or missing key, a value of another type, a number out of range or not written as the
/// field's type (an Int written `1.0`), anything that is not JSON — makes it give up (`nil`), and the
/// caller decodes with `JSONDecoder`, which then accepts the text or explains what is wrong with it.
struct ModelJSONReader {
    /// gave up: decode with JSONDecoder instead
    struct GiveUp: Error {}

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// objects and arrays open around the current value (deeper than `maximumDepth`: give up)
    var depth = 0
    static let maximumDepth = 64

    /// `body` applied to the whole document, which must be nothing but one value (and whitespace);
    /// nil when the reader gave up.
    static func read<Value>(_ bytes: UnsafeBufferPointer<UInt8>,
                            _ body: (inout ModelJSONReader) throws -> Value) -> Value? {
        var reader = ModelJSONReader(bytes: bytes)
        do {
            let value = try body(&reader)
            reader.skipWhitespace()
            return reader.position == bytes.count ? value : nil
        } catch {
            return nil
        }
    }

    /// The same on a String's UTF-8 (in place when the string is stored contiguously, else copied once).
    static func read<Value>(_ text: String, _ body: (inout ModelJSONReader) throws -> Value) -> Value? {
        var text = text
        return text.withUTF8 { read($0, body) }
    }

    // MARK: Structure

    @inline(__always) mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// the next byte after whitespace, not consumed (0 at the end: no JSON value starts with it)
    @inline(__always) mutating func peek() -> UInt8 {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : 0
    }

    @inline(__always) mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw GiveUp() }
        position += 1
    }

    /// An object: `member` is called with each key and must read (or `skipValue`) its value. A key
    /// seen twice gives up (JSONDecoder's rule for duplicates is not this reader's to copy).
    mutating func object(_ member: (inout ModelJSONReader, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        depth += 1
        guard depth <= Self.maximumDepth else { throw GiveUp() }
        var keys: Set<String> = []
        if peek() == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                let key = try string()
                guard keys.insert(key).inserted else { throw GiveUp() }
                try expect(UInt8(ascii: ":"))
                try member(&self, key)
                let next = peek()
                position += 1
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else { throw GiveUp() }
            }
        }
        depth -= 1
    }

    /// An array, `element` called once per element to read it.
    mutating func array(_ element: (inout ModelJSONReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        depth += 1
        guard depth <= Self.maximumDepth else { throw GiveUp() }
        if peek() == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                try element(&self)
                let next = peek()
                position += 1
                if next == UInt8(ascii: "]") { break }
                guard next == UInt8(ascii: ",") else { throw GiveUp() }
            }
        }
        depth -= 1
    }

    /// whether the next value is `null` (consumed if it is)
    mutating func null() throws -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw GiveUp() }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] { throw GiveUp() }
        position += count
    }

    /// Any value, checked and passed over (a key the model files do not use, as JSONDecoder ignores it).
    mutating func skipValue() throws {
        switch peek() {
        case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue() }
        case UInt8(ascii: "["): try array { reader in try reader.skipValue() }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try numberText()
        }
    }

    // MARK: Values

    /// A string without escapes or control characters, valid UTF-8 (else: give up).
    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                guard let text else { throw GiveUp() }
                return text
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { throw GiveUp() }
            position += 1
        }
        throw GiveUp()
    }

    /// The bytes of one number as JSON writes it (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`),
    /// consumed; and whether it had a fraction or an exponent.
    mutating func numberText() throws -> (text: Range<Int>, integral: Bool) {
        skipWhitespace()
        let start = position
        func digit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9") }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard digit(position) else { throw GiveUp() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while digit(position) { position += 1 }
        }
        var integral = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            integral = false
            position += 1
            guard digit(position) else { throw GiveUp() }
            while digit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            integral = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digit(position) else { throw GiveUp() }
            while digit(position) { position += 1 }
        }
        return (start..<position, integral)
    }

    /// An integer written as one (digits, no fraction or exponent), within ±10¹⁸.
    mutating func int() throws -> Int {
        let (text, integral) = try numberText()
        guard integral else { throw GiveUp() }
        var index = text.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard text.upperBound - index <= 18 else { throw GiveUp() }
        var value = 0
        while index < text.upperBound {
            value = value * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        return negative ? -value : value
    }

    /// A number, converted by `strtod` (correctly rounded: the double nearest the decimal, ties to even).
    /// Gives up when the result overflows or underflows (JSONDecoder's rules there are its own), or when
    /// `strtod` does not read the whole number (a locale whose decimal point is not ".").
    mutating func double() throws -> Double {
        let (text, _) = try numberText()
        if let value = Self.quickDouble(bytes, text) { return value }
        let count = text.count
        guard count < 64 else { throw GiveUp() }
        return try withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer throws -> Double in
            for index in 0..<count { buffer[index] = CChar(bitPattern: bytes[text.lowerBound + index]) }
            buffer[count] = 0
            var end: UnsafeMutablePointer<CChar>?
            errno = 0
            let value = strtod(buffer.baseAddress!, &end)
            guard let end, end - buffer.baseAddress! == count, errno == 0, value.isFinite else { throw GiveUp() }
            return value
        }
    }

    #if arch(x86_64) || arch(i386)
    /// 10⁰ … 10²⁷ as Float80, each exact (10ᵏ = 2ᵏ·5ᵏ and 5²⁷ < 2⁶⁴ fits the 64-bit significand)
    static let powersOfTen: [Float80] = {
        var powers: [Float80] = [1]
        for _ in 1...27 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// The double nearest the decimal in `bytes[text]` (a number `numberText` has checked), as `strtod`
    /// gives it, when it can be had from one correctly rounded Float80 operation; nil otherwise, for
    /// `strtod`. The models hold 130 000 numbers, and `strtod` was most of the time it took to read them.
    ///
    /// The decimal is m · 10^e with m its significant digits (at most 19, so m < 2⁶⁴) and e its
    /// exponent (|e| ≤ 27): m and 10^|e| are exact in Float80, and m · 10^e or m / 10^−e is the exact
    /// value x rounded once to Float80's 64-bit significand, r. Rounding r to Double's 53 bits gives
    /// the double nearest x (ties to even), as `strtod` does, unless r lies on a midpoint between two
    /// doubles (its 11 low bits 10000000000): x may then be on either side of it, or on it, and
    /// `strtod` decides. A midpoint is itself a Float80, so x and r lie on the same side of any other.
    /// Results outside 2⁻¹⁰⁰⁰ … 2¹⁰⁰⁰ (near Double's subnormals or its overflow) go to `strtod` too.
    /// Where there is no Float80 (not x86), every number goes to `strtod`.
    static func quickDouble(_ bytes: UnsafeBufferPointer<UInt8>, _ text: Range<Int>) -> Double? {
        var index = text.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var significand: UInt64 = 0, digits = 0, exponent = 0
        var afterPoint = false
        while index < text.upperBound {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                afterPoint = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                break
            } else {
                let digit = UInt64(byte &- UInt8(ascii: "0"))
                if significand != 0 || digit != 0 {
                    guard digits < 19 else { return nil }
                    significand = significand &* 10 &+ digit
                    digits += 1
                }
                if afterPoint { exponent -= 1 }
            }
            index += 1
        }
        if index < text.upperBound {
            // the exponent: "e", a sign, digits (few: the number is in Double's range or gives up)
            index += 1
            var written = 0, exponentNegative = false
            if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            while index < text.upperBound {
                guard written < 10_000 else { return nil }
                written = written * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        if significand == 0 { return negative ? -0.0 : 0.0 }
        guard exponent >= -27, exponent <= 27 else { return nil }
        let exact = Float80(significand)
        let rounded = exponent >= 0 ? exact * powersOfTen[exponent] : exact / powersOfTen[-exponent]
        guard rounded.exponent >= -1000, rounded.exponent <= 1000,
              rounded.significandBitPattern & 0x7FF != 0x400 else { return nil }
        let value = Double(rounded)
        return negative ? -value : value
    }
    #else
    static func quickDouble(_ bytes: UnsafeBufferPointer<UInt8>, _ text: Range<Int>) -> Double? { nil }
    #endif

    /// `[Double]`
    mutating func doubles() throws -> [Double] {
        var values: [Double] = []
        try array { reader in values.append(try reader.double()) }
        return values
    }

    /// `[Double?]` (null for a missing value)
    mutating func optionalDoubles() throws -> [Double?] {
        var values: [Double?] = []
        try array { reader in values.append(try reader.null() ? nil : try reader.double()) }
        return values
    }

    /// `[[Double]]`
    mutating func doubleRows() throws -> [[Double]] {
        var rows: [[Double]] = []
        try array { reader in rows.append(try reader.doubles()) }
        return rows
    }

    /// `[Int]`
    mutating func ints() throws -> [Int] {
        var values: [Int] = []
        try array { reader in values.append(try reader.int()) }
        return values
    }

    /// `[String]`
    mutating func strings() throws -> [String] {
        var values: [String] = []
        try array { reader in values.append(try reader.string()) }
        return values
    }
}

/// A member read once: a second value for the same key never reaches here (`object` gives up on it),
/// and a required member left nil makes the whole read give up.
extension Optional {
    func requiredMember() throws -> Wrapped {
        guard let self else { throw ModelJSONReader.GiveUp() }
        return self
    }
}
