/// Appends escape sequences and text to a byte array without intermediate
/// strings, so a writer that reuses its array allocates nothing in steady state.
struct ANSIEncoder {
    static let escape: UInt8 = 0x1B
    static let leftBracket: UInt8 = 0x5B // '['

    /// ESC [
    static func csi(_ out: inout [UInt8]) {
        out.append(escape)
        out.append(leftBracket)
    }

    /// `value` in decimal ASCII.
    static func number(_ value: Int, _ out: inout [UInt8]) {
        guard value >= 10 else { return out.append(0x30 + UInt8(truncatingIfNeeded: max(value, 0))) }
        number(value / 10, &out)
        out.append(0x30 + UInt8(truncatingIfNeeded: value % 10))
    }

    /// CUP: move the cursor to 0-based (x, y).
    static func moveCursor(x: Int, y: Int, _ out: inout [UInt8]) {
        csi(&out)
        number(y + 1, &out)
        out.append(0x3B) // ';'
        number(x + 1, &out)
        out.append(0x48) // 'H'
    }

    /// The UTF-8 bytes of `scalar`.
    static func scalar(_ scalar: Unicode.Scalar, _ out: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            out.append(UInt8(value))
        case 0x80..<0x800:
            out.append(0xC0 | UInt8(value >> 6))
            out.append(0x80 | UInt8(value & 0x3F))
        case 0x800..<0x10000:
            out.append(0xE0 | UInt8(value >> 12))
            out.append(0x80 | UInt8((value >> 6) & 0x3F))
            out.append(0x80 | UInt8(value & 0x3F))
        default:
            out.append(0xF0 | UInt8(value >> 18))
            out.append(0x80 | UInt8((value >> 12) & 0x3F))
            out.append(0x80 | UInt8((value >> 6) & 0x3F))
            out.append(0x80 | UInt8(value & 0x3F))
        }
    }

    /// The bytes of an ASCII string literal.
    static func ascii(_ text: StaticString, _ out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }
}
