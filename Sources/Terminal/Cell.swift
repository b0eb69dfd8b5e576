/// One character position of the screen: a single Unicode scalar (wide characters
/// are not supported) with its colours and attributes.
public struct Cell: Hashable, Sendable {
    public var scalar: Unicode.Scalar
    public var style: CellStyle

    public init(_ scalar: Unicode.Scalar = " ", style: CellStyle = .plain) {
        self.scalar = scalar
        self.style = style
    }

    public var foreground: Color {
        get { style.foreground }
        set { style.foreground = newValue }
    }

    public var background: Color {
        get { style.background }
        set { style.background = newValue }
    }

    /// a space in the terminal's default colours: what a cleared screen shows
    public static let blank = Cell()
}
