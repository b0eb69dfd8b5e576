/// The screen as a grid of cells that views draw into; `DiffWriter` turns it into
/// terminal bytes. Storage is allocated at init and on `resize` only. Every write
/// is clipped: positions outside the buffer are ignored.
public struct Buffer: Sendable, CustomStringConvertible {
    public private(set) var width: Int
    public private(set) var height: Int
    /// row-major: cell (x, y) is `cells[y * width + x]`
    public private(set) var cells: [Cell]

    /// Sizes are clamped to 0…65535, the range a terminal can report (`winsize` is 16-bit).
    public init(width: Int, height: Int) {
        self.width = Buffer.clampedSize(width)
        self.height = Buffer.clampedSize(height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public var area: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The cell at (x, y), or nil outside the buffer.
    public func cell(x: Int, y: Int) -> Cell? {
        guard contains(x: x, y: y) else { return nil }
        return cells[y * width + x]
    }

    public mutating func set(x: Int, y: Int, _ cell: Cell) {
        guard contains(x: x, y: y) else { return }
        cells[y * width + x] = cell
    }

    /// Writes `text` one scalar per column from (x, y), clipped at the buffer edges.
    /// Control characters (newline included) are drawn as spaces.
    /// - Returns: the column after the last scalar (whether or not it was visible).
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .plain) -> Int {
        var column = x
        for scalar in text.unicodeScalars {
            let printable = scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar
            set(x: column, y: y, Cell(printable, style: style))
            column &+= 1
        }
        return column
    }

    /// Sets every cell of `rect` (clipped) to `cell`.
    public mutating func fill(_ rect: Rect, with cell: Cell) {
        let clipped = rect.intersection(area)
        guard !clipped.isEmpty else { return }
        cells.withUnsafeMutableBufferPointer { storage in
            for row in clipped.y..<clipped.maxY {
                let start = row * width + clipped.x
                storage[start..<(start + clipped.width)].update(repeating: cell)
            }
        }
    }

    /// Sets every cell to `cell` (a blank by default).
    public mutating func clear(_ cell: Cell = .blank) {
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: cell) }
    }

    /// Changes the size and blanks the content; reallocates only when the size changes.
    public mutating func resize(width newWidth: Int, height newHeight: Int) {
        let w = Buffer.clampedSize(newWidth), h = Buffer.clampedSize(newHeight)
        guard w != width || h != height else { return clear() }
        width = w
        height = h
        cells = Array(repeating: .blank, count: w * h)
    }

    /// The characters of each row, trailing spaces kept (for golden tests).
    public var lines: [String] {
        (0..<height).map { row in
            var line = String.UnicodeScalarView()
            for cell in cells[(row * width)..<((row + 1) * width)] { line.append(cell.scalar) }
            return String(line)
        }
    }

    /// `lines` joined by newlines.
    public var description: String { lines.joined(separator: "\n") }

    private static func clampedSize(_ size: Int) -> Int { min(max(0, size), Int(UInt16.max)) }

    private func contains(x: Int, y: Int) -> Bool {
        x >= 0 && x < width && y >= 0 && y < height
    }
}
