/// How many colours the terminal is asked to show.
public enum ColorMode: Sendable, Equatable {
    /// 24-bit SGR (38;2;r;g;b)
    case trueColor
    /// xterm 256-colour palette (38;5;n); rgb is mapped to the nearest entry
    case palette256
    /// no colour at all (attributes such as bold and inverse still apply)
    case none

    /// The mode the environment asks for: `NO_COLOR` set and non-empty → none
    /// (no-color.org); `COLORTERM` truecolor or 24bit → trueColor; else 256 colours.
    public static func detect(environment: [String: String]) -> ColorMode {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        switch environment["COLORTERM"]?.lowercased() {
        case "truecolor", "24bit": return .trueColor
        default: return .palette256
        }
    }

    /// `color` as this mode will emit it.
    public func resolve(_ color: Color) -> Color {
        switch (self, color) {
        case (.none, _): return .default
        case (.palette256, .rgb(let r, let g, let b)): return .indexed(Xterm256.nearestIndex(r: r, g: g, b: b))
        default: return color
        }
    }
}
