/// A colour-pixel canvas over a rect of cells: each cell shows two pixels, the
/// upper as the foreground of '▀' and the lower as its background (waterfall rows).
/// Drawing outside does nothing; storage is allocated at init.
public struct HalfBlockCanvas: Sendable {
    public let area: Rect
    /// pixel columns (1 per cell)
    public var pixelWidth: Int { area.width }
    /// pixel rows (2 per cell)
    public var pixelHeight: Int { area.height * 2 }

    /// row-major over pixels; `.default` means unpainted
    private var pixels: [Color]

    public init(area: Rect) {
        self.area = area
        pixels = Array(repeating: .default, count: area.width * area.height * 2)
    }

    public mutating func set(x: Int, y: Int, color: Color) {
        guard x >= 0, x < pixelWidth, y >= 0, y < pixelHeight else { return }
        pixels[y * pixelWidth + x] = color
    }

    /// The pixel at (x, y); nil outside.
    public func color(x: Int, y: Int) -> Color? {
        guard x >= 0, x < pixelWidth, y >= 0, y < pixelHeight else { return nil }
        return pixels[y * pixelWidth + x]
    }

    public mutating func clear() {
        pixels.withUnsafeMutableBufferPointer { $0.update(repeating: .default) }
    }

    /// Writes every cell of the canvas: '▀' with fg = upper, bg = lower pixel. A cell
    /// whose upper pixel is unpainted but lower is painted uses '▄' (fg = lower) so
    /// the empty half shows the terminal background, not its text colour; a cell
    /// with neither painted becomes a blank.
    public func render(into buffer: inout Buffer) {
        for row in 0..<area.height {
            for column in 0..<area.width {
                let upper = pixels[2 * row * pixelWidth + column]
                let lower = pixels[(2 * row + 1) * pixelWidth + column]
                let cell: Cell
                switch (upper, lower) {
                case (.default, .default):
                    cell = .blank
                case (.default, _):
                    cell = Cell("▄", style: CellStyle(foreground: lower))
                default:
                    cell = Cell("▀", style: CellStyle(foreground: upper, background: lower))
                }
                buffer.set(x: area.x + column, y: area.y + row, cell)
            }
        }
    }
}
