/// A pure parser from terminal input bytes to events: keys (xterm/VT sequences,
/// ctrl-letters, alt as an ESC prefix, UTF-8 text) and SGR mouse reports.
/// Sequences as documented in xterm's ctlseqs ("PC-Style Function Keys",
/// "Extended coordinates" SGR 1006).
public enum InputParser {
    /// longest control sequence accepted before it is dropped as garbage [bytes]
    static let maximumSequenceLength = 32

    public static func parse(_ bytes: [UInt8]) -> ParseResult {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    public static func parse(_ bytes: ArraySlice<UInt8>) -> ParseResult {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    /// Parses the event at the start of `bytes`.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ParseResult {
        guard let first = bytes.first else { return .needMore }
        guard first == 0x1B else { return plainKey(bytes, at: 0, modifiers: []) }
        guard bytes.count > 1 else { return .needMore } // lone ESC: caller times it out
        switch bytes[1] {
        case 0x5B: // '[' CSI
            return ControlSequence.parse(bytes)
        case 0x4F: // 'O' SS3
            guard bytes.count > 2 else { return .needMore }
            return ss3(bytes[2])
        case 0x1B:
            return key(.escape, consumed: 1)
        default:
            // ESC followed by a key: that key with alt
            switch plainKey(bytes, at: 1, modifiers: .alt) {
            case .event(let event, let consumed): return .event(event, consumed: consumed + 1)
            case .invalid(let consumed): return .invalid(consumed: consumed + 1)
            case .needMore: return .needMore
            }
        }
    }

    static func key(_ code: KeyCode, _ modifiers: KeyModifiers = [], consumed: Int) -> ParseResult {
        .event(.key(KeyEvent(code, modifiers: modifiers)), consumed: consumed)
    }

    /// A key that is not an escape sequence: a C0 control, DEL, or a UTF-8 scalar.
    private static func plainKey(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, modifiers: KeyModifiers) -> ParseResult {
        let byte = bytes[start]
        switch byte {
        case 0x0D: return key(.enter, modifiers, consumed: 1)
        case 0x09: return key(.tab, modifiers, consumed: 1)
        case 0x7F, 0x08: return key(.backspace, modifiers, consumed: 1)
        case 0x00: return key(.character(" "), modifiers.union(.ctrl), consumed: 1)
        case 0x01...0x1A: // ctrl-a … ctrl-z
            return key(.character(Unicode.Scalar(byte - 1 + 0x61)), modifiers.union(.ctrl), consumed: 1)
        case 0x1B: return key(.escape, modifiers, consumed: 1)
        case 0x1C...0x1F: // ctrl-\ ctrl-] ctrl-^ ctrl-_
            return key(.character(Unicode.Scalar(byte - 0x1C + 0x5C)), modifiers.union(.ctrl), consumed: 1)
        default:
            switch UTF8Scalar.decode(bytes, at: start) {
            case .scalar(let scalar, let length): return key(.character(scalar), modifiers, consumed: length)
            case .needMore: return .needMore
            case .invalid: return .invalid(consumed: 1)
            }
        }
    }

    /// ESC O x: keypad-mode arrows, Home/End and F1–F4.
    private static func ss3(_ final: UInt8) -> ParseResult {
        switch final {
        case 0x41: return key(.up, consumed: 3)
        case 0x42: return key(.down, consumed: 3)
        case 0x43: return key(.right, consumed: 3)
        case 0x44: return key(.left, consumed: 3)
        case 0x48: return key(.home, consumed: 3)
        case 0x46: return key(.end, consumed: 3)
        case 0x50...0x53: return key(.function(Int(final) - 0x50 + 1), consumed: 3)
        default: return .invalid(consumed: 3)
        }
    }
}
