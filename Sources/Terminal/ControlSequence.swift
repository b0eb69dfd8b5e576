/// Parses CSI (ESC [) input sequences: cursor and editing keys with xterm
/// modifier parameters ("CSI 1 ; 5 C" = ctrl-right), function keys, and SGR mouse
/// reports "CSI < b ; x ; y M|m" (xterm ctlseqs, mode 1006).
enum ControlSequence {
    /// parameter values above this are nonsense for keys and cells; clamp to it
    static let largestParameter = 1_000_000

    /// `bytes` starts with ESC [.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ParseResult {
        if bytes.count > 2, bytes[2] == 0x5B { // ESC [ [ A…E: Linux console F1–F5
            guard bytes.count > 3 else { return .needMore }
            let final = bytes[3]
            return (0x41...0x45).contains(final)
                ? InputParser.key(.function(Int(final) - 0x41 + 1), consumed: 4) : .invalid(consumed: 4)
        }
        var index = 2
        while true {
            guard index < bytes.count else {
                return index >= InputParser.maximumSequenceLength ? .invalid(consumed: index) : .needMore
            }
            let byte = bytes[index]
            if (0x40...0x7E).contains(byte) { break }
            // parameter (0x30–0x3F) and intermediate (0x20–0x2F) bytes; anything
            // else, or a runaway sequence, ends it as garbage
            guard (0x20...0x3F).contains(byte), index < InputParser.maximumSequenceLength else {
                return .invalid(consumed: index)
            }
            index += 1
        }
        let consumed = index + 1
        let final = bytes[index]
        let parameters = UnsafeBufferPointer(rebasing: bytes[2..<index])
        if parameters.first == 0x3C { // '<'
            return mouse(UnsafeBufferPointer(rebasing: parameters.dropFirst()), final: final, consumed: consumed)
        }
        guard let numbers = Parameters(parameters) else { return .invalid(consumed: consumed) }
        let modifiers = numbers.count > 1 ? keyModifiers(numbers[1]) : []
        func key(_ code: KeyCode) -> ParseResult { InputParser.key(code, modifiers, consumed: consumed) }
        switch final {
        case 0x41: return key(.up)
        case 0x42: return key(.down)
        case 0x43: return key(.right)
        case 0x44: return key(.left)
        case 0x48: return key(.home)
        case 0x46: return key(.end)
        case 0x50...0x53 where numbers.count > 0: return key(.function(Int(final) - 0x50 + 1))
        case 0x5A: return key(.backtab)
        case 0x7E: // '~'
            guard let code = tildeKey(numbers.count > 0 ? numbers[0] : 0) else { return .invalid(consumed: consumed) }
            return key(code)
        default:
            // includes focus in/out (CSI I, CSI O), which this program ignores
            return .invalid(consumed: consumed)
        }
    }

    /// xterm modifier parameter: 1 + (shift 1 | alt 2 | ctrl 4 | meta 8); meta counts as alt.
    private static func keyModifiers(_ parameter: Int) -> KeyModifiers {
        let bits = max(parameter - 1, 0)
        var modifiers: KeyModifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & (2 | 8) != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.ctrl) }
        return modifiers
    }

    /// CSI n ~ (VT220 editing keys and function keys).
    private static func tildeKey(_ number: Int) -> KeyCode? {
        switch number {
        case 1, 7: return .home
        case 2: return .insert
        case 3: return .delete
        case 4, 8: return .end
        case 5: return .pageUp
        case 6: return .pageDown
        case 11...15: return .function(number - 10)
        case 17...21: return .function(number - 11)
        case 23, 24: return .function(number - 12)
        default: return nil
        }
    }

    /// SGR mouse: b = button (low 2 bits) | shift 4 | alt 8 | ctrl 16 | motion 32 | wheel 64;
    /// x, y 1-based; final M = press or motion, m = release.
    private static func mouse(_ parameters: UnsafeBufferPointer<UInt8>, final: UInt8, consumed: Int) -> ParseResult {
        guard final == 0x4D || final == 0x6D, let numbers = Parameters(parameters), numbers.count == 3,
              numbers[1] >= 1, numbers[2] >= 1 else { return .invalid(consumed: consumed) }
        let code = numbers[0]
        guard code < 128 else { return .invalid(consumed: consumed) } // buttons 8–11: unused
        var modifiers: KeyModifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.ctrl) }
        let buttons: [MouseButton?] = [.left, .middle, .right, nil]
        let button = buttons[code & 3]
        let released = final == 0x6D
        let action: MouseAction
        if code & 64 != 0 {
            guard !released else { return .invalid(consumed: consumed) }
            action = [MouseAction.scrollUp, .scrollDown, .scrollLeft, .scrollRight][code & 3]
        } else if code & 32 != 0 {
            action = button.map { .drag($0) } ?? .moved
        } else if let button {
            action = released ? .release(button) : .press(button)
        } else {
            return .invalid(consumed: consumed)
        }
        let event = MouseEvent(action, x: numbers[1] - 1, y: numbers[2] - 1, modifiers: modifiers)
        return .event(.mouse(event), consumed: consumed)
    }
}

/// Up to four ';'-separated decimal parameters; empty ones read as 0. Nil when
/// anything else appears (private markers, colons) or there are more than four.
struct Parameters {
    private var values: (Int, Int, Int, Int) = (0, 0, 0, 0)
    private(set) var count = 0

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty else { return }
        var current = 0
        for byte in bytes {
            switch byte {
            case 0x30...0x39:
                current = min(current * 10 + Int(byte - 0x30), ControlSequence.largestParameter)
            case 0x3B:
                guard append(current) else { return nil }
                current = 0
            default:
                return nil
            }
        }
        guard append(current) else { return nil }
    }

    subscript(index: Int) -> Int {
        switch index {
        case 0: return values.0
        case 1: return values.1
        case 2: return values.2
        default: return values.3
        }
    }

    private mutating func append(_ value: Int) -> Bool {
        switch count {
        case 0: values.0 = value
        case 1: values.1 = value
        case 2: values.2 = value
        case 3: values.3 = value
        default: return false
        }
        count += 1
        return true
    }
}
