/// Reads a terminal screen saved as text with SGR colour sequences (what
/// `tmux capture-pane -p -e` prints) back into a `Buffer`, so a picture of
/// what a person saw can be drawn from it (`tscope screenshot`).
///
/// One line per row, one Unicode scalar per cell; SGR parameters 0, 1, 2, 7,
/// 22, 27, 30–37, 39, 40–47, 49, 90–97, 100–107, 38/48;5;n and 38/48;2;r;g;b
/// are understood, other parameters and other sequences are skipped.
public enum ANSIScreenText {
    public static func parse(_ text: String, width: Int, height: Int) -> Buffer {
        var buffer = Buffer(width: max(width, 1), height: max(height, 1))
        var style = CellStyle.plain
        var x = 0, y = 0
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "\n":
                x = 0
                y += 1
            case "\r":
                x = 0
            case "\u{1B}":
                // CSI: ESC [ parameters final; anything else is skipped with its next scalar
                guard index < scalars.count, scalars[index] == "[" else {
                    index += 1
                    continue
                }
                index += 1
                var parameters = ""
                while index < scalars.count, !(0x40...0x7E).contains(scalars[index].value) {
                    parameters.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard index < scalars.count else { break }
                let final = scalars[index]
                index += 1
                if final == "m" { apply(parameters, to: &style) }
            default:
                guard scalar.value >= 0x20 else { continue }
                buffer.set(x: x, y: y, Cell(scalar, style: style))
                x += 1
            }
        }
        return buffer
    }

    /// Applies one SGR parameter list ("38;5;12", "" = reset).
    static func apply(_ text: String, to style: inout CellStyle) {
        let values = text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        var i = 0
        while i < values.count {
            let value = values[i]
            switch value {
            case 0: style = .plain
            case 1: style.attributes.insert(.bold)
            case 2: style.attributes.insert(.dim)
            case 7: style.attributes.insert(.inverse)
            case 22: style.attributes.subtract([.bold, .dim])
            case 27: style.attributes.remove(.inverse)
            case 30...37: style.foreground = .indexed(UInt8(value - 30))
            case 90...97: style.foreground = .indexed(UInt8(value - 90 + 8))
            case 39: style.foreground = .default
            case 40...47: style.background = .indexed(UInt8(value - 40))
            case 100...107: style.background = .indexed(UInt8(value - 100 + 8))
            case 49: style.background = .default
            case 38, 48:
                var color: Color?
                if i + 2 < values.count, values[i + 1] == 5 {
                    color = .indexed(UInt8(clamping: values[i + 2]))
                    i += 2
                } else if i + 4 < values.count, values[i + 1] == 2 {
                    color = .rgb(UInt8(clamping: values[i + 2]), UInt8(clamping: values[i + 3]),
                                 UInt8(clamping: values[i + 4]))
                    i += 4
                }
                if let color {
                    if value == 38 { style.foreground = color } else { style.background = color }
                }
            default: break
            }
            i += 1
        }
    }
}

extension Color {
    /// xterm's default 16 system colours
    static let systemColors: [(UInt8, UInt8, UInt8)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
        (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
        (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// The colour as 8-bit RGB, `whenDefault` for the terminal's own colour.
    public func rgb(whenDefault: (UInt8, UInt8, UInt8)) -> (UInt8, UInt8, UInt8) {
        switch self {
        case .default: return whenDefault
        case .rgb(let r, let g, let b): return (r, g, b)
        case .indexed(let index):
            if Int(index) < Self.systemColors.count { return Self.systemColors[Int(index)] }
            guard let (r, g, b) = Xterm256.rgb(ofIndex: index) else { return whenDefault }
            return (UInt8(r), UInt8(g), UInt8(b))
        }
    }
}
