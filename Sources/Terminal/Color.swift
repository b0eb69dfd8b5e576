/// A colour as views ask for it; the writer maps it to what the terminal can show
/// (see `ColorMode`).
public enum Color: Hashable, Sendable {
    /// the terminal's own foreground or background
    case `default`
    /// 24-bit colour, 8 bits per channel
    case rgb(UInt8, UInt8, UInt8)
    /// an xterm palette entry: 0–15 system colours, 16–231 the 6×6×6 cube, 232–255 greys
    case indexed(UInt8)
}

/// Text attributes of a cell.
public struct CellAttributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = CellAttributes(rawValue: 1 << 0)
    public static let dim = CellAttributes(rawValue: 1 << 1)
    public static let inverse = CellAttributes(rawValue: 1 << 2)
}

/// Colours and attributes shared by the cells a view writes in one call.
public struct CellStyle: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: CellAttributes

    public init(foreground: Color = .default, background: Color = .default, attributes: CellAttributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    public static let plain = CellStyle()
}
