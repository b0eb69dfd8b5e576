@testable import Terminal

/// A minimal terminal emulator for the sequences DiffWriter emits (CUP, SGR,
/// ED 2, synchronized update, UTF-8 text); used to check that applying the diff
/// bytes reproduces the buffer. Anything else is recorded as unexpected.
struct VirtualScreen {
    var width: Int
    var height: Int
    var cells: [Cell]
    var cursor = (x: 0, y: 0)
    var style = CellStyle.plain
    var synchronized = false
    var unexpected: [String] = []

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        cells = Array(repeating: .blank, count: width * height)
    }

    var lines: [String] { (0..<height).map { y in String(String.UnicodeScalarView(cells[(y * width)..<((y + 1) * width)].map(\.scalar))) } }

    mutating func apply(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B {
                guard index + 1 < bytes.count, bytes[index + 1] == 0x5B else { unexpected.append("ESC"); index += 1; continue }
                var end = index + 2
                while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
                guard end < bytes.count else { unexpected.append("unterminated CSI"); return }
                let parameters = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
                control(parameters, final: bytes[end])
                index = end + 1
                continue
            }
            var iterator = bytes[index...].makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { unexpected.append("bad UTF-8"); return }
            let length = String(scalar).utf8.count
            if cursor.x < width && cursor.y < height {
                cells[cursor.y * width + cursor.x] = Cell(scalar, style: style)
            } else {
                unexpected.append("write outside at \(cursor)")
            }
            cursor.x += 1
            index += length
        }
    }

    private mutating func control(_ parameters: String, final: UInt8) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        switch (final, parameters) {
        case (0x68, "?2026"): synchronized = true
        case (0x6C, "?2026"): synchronized = false
        case (0x4A, "2"): cells = Array(repeating: Cell(" ", style: CellStyle(background: style.background)), count: width * height)
        case (0x48, _): cursor = (numbers[1] - 1, numbers[0] - 1)
        case (0x6D, _): applySGR(numbers)
        default: unexpected.append("CSI \(parameters) \(final)")
        }
    }

    private mutating func applySGR(_ numbers: [Int]) {
        var i = 0
        func color() -> Color {
            defer { i += numbers[i + 1] == 5 ? 3 : 5 }
            if numbers[i + 1] == 5 { return .indexed(UInt8(numbers[i + 2])) }
            return .rgb(UInt8(numbers[i + 2]), UInt8(numbers[i + 3]), UInt8(numbers[i + 4]))
        }
        while i < numbers.count {
            switch numbers[i] {
            case 0: style = .plain; i += 1
            case 1: style.attributes.insert(.bold); i += 1
            case 2: style.attributes.insert(.dim); i += 1
            case 7: style.attributes.insert(.inverse); i += 1
            case 39: style.foreground = .default; i += 1
            case 49: style.background = .default; i += 1
            case 38: style.foreground = color()
            case 48: style.background = color()
            default: unexpected.append("SGR \(numbers[i])"); i += 1
            }
        }
    }
}
