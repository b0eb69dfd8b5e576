/// Decodes one UTF-8 scalar, strictly (RFC 3629: no overlongs, no surrogates,
/// nothing above U+10FFFF).
enum UTF8Scalar {
    enum Result: Equatable {
        case scalar(Unicode.Scalar, length: Int)
        case needMore
        case invalid
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Result {
        let lead = bytes[start]
        let length: Int, initial: UInt32, minimum: UInt32
        switch lead {
        case 0x00..<0x80: return .scalar(Unicode.Scalar(lead), length: 1)
        case 0xC2...0xDF: (length, initial, minimum) = (2, UInt32(lead & 0x1F), 0x80)
        case 0xE0...0xEF: (length, initial, minimum) = (3, UInt32(lead & 0x0F), 0x800)
        case 0xF0...0xF4: (length, initial, minimum) = (4, UInt32(lead & 0x07), 0x10000)
        default: return .invalid
        }
        var value = initial
        for offset in 1..<length {
            guard start + offset < bytes.count else { return .needMore }
            let byte = bytes[start + offset]
            guard byte & 0xC0 == 0x80 else { return .invalid }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return .invalid }
        return .scalar(scalar, length: length)
    }
}
