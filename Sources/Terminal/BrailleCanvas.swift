/// A dot canvas over a rect of cells: each cell holds 2×4 dots drawn as a braille
/// character (U+2800 + dot bits). Pixel (0, 0) is the top-left dot; x grows right,
/// y grows down. Drawing outside the canvas does nothing. Storage is allocated at
/// init; drawing and `render(into:)` do not allocate.
public struct BrailleCanvas: Sendable {
    /// the cells of the buffer this canvas covers
    public let area: Rect
    /// dot columns (2 per cell)
    public var pixelWidth: Int { area.width * 2 }
    /// dot rows (4 per cell)
    public var pixelHeight: Int { area.height * 4 }
    /// colour given to dots drawn without an explicit colour
    public var color: Color

    /// dot bits per cell, row-major over `area`
    private var masks: [UInt8]
    /// foreground per cell: the colour of the last dot drawn into it
    private var colors: [Color]

    public init(area: Rect, color: Color = .default) {
        self.area = area
        self.color = color
        masks = Array(repeating: 0, count: area.width * area.height)
        colors = Array(repeating: color, count: area.width * area.height)
    }

    /// Bit of the dot at column `dx` (0–1), row `dy` (0–3) of a cell, from the
    /// Unicode braille pattern layout: dots 1,2,3,7 down the left column are bits
    /// 0,1,2,6; dots 4,5,6,8 down the right column are bits 3,4,5,7.
    package static func dotBit(dx: Int, dy: Int) -> UInt8 {
        switch (dx, dy) {
        case (0, 0): return 0x01
        case (0, 1): return 0x02
        case (0, 2): return 0x04
        case (0, 3): return 0x40
        case (1, 0): return 0x08
        case (1, 1): return 0x10
        case (1, 2): return 0x20
        default: return 0x80
        }
    }

    /// Removes every dot.
    public mutating func clear() {
        masks.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        colors.withUnsafeMutableBufferPointer { [color] in $0.update(repeating: color) }
    }

    public mutating func set(x: Int, y: Int, color: Color? = nil) {
        guard x >= 0, x < pixelWidth, y >= 0, y < pixelHeight else { return }
        let index = (y >> 2) * area.width + (x >> 1)
        masks[index] |= BrailleCanvas.dotBit(dx: x & 1, dy: y & 3)
        colors[index] = color ?? self.color
    }

    /// Removes the dots of column `x` (a sweep clears ahead of its newest point).
    public mutating func clear(column x: Int) {
        guard x >= 0, x < pixelWidth else { return }
        let keep = ~(BrailleCanvas.dotBit(dx: x & 1, dy: 0) | BrailleCanvas.dotBit(dx: x & 1, dy: 1)
            | BrailleCanvas.dotBit(dx: x & 1, dy: 2) | BrailleCanvas.dotBit(dx: x & 1, dy: 3))
        for row in 0..<area.height { masks[row * area.width + (x >> 1)] &= keep }
    }

    /// Whether the dot at (x, y) is set; false outside.
    public func isSet(x: Int, y: Int) -> Bool {
        guard x >= 0, x < pixelWidth, y >= 0, y < pixelHeight else { return false }
        return masks[(y >> 2) * area.width + (x >> 1)] & BrailleCanvas.dotBit(dx: x & 1, dy: y & 3) != 0
    }

    /// Sets the dots of column `x` from row `y0` to `y1` inclusive (either order):
    /// joins a trace's value in one column to its neighbour's.
    public mutating func verticalSpan(x: Int, from y0: Int, to y1: Int, color: Color? = nil) {
        guard x >= 0, x < pixelWidth else { return }
        let top = max(min(y0, y1), 0)
        let bottom = min(max(y0, y1), pixelHeight - 1)
        guard top <= bottom else { return }
        for y in top...bottom { set(x: x, y: y, color: color) }
    }

    /// A Bresenham line from (x0, y0) to (x1, y1), both ends included. Ends far
    /// outside are first clipped to the canvas so the work stays bounded by its size.
    public mutating func line(x0: Int, y0: Int, x1: Int, y1: Int, color: Color? = nil) {
        guard let (a, b) = clip(x0: x0, y0: y0, x1: x1, y1: y1) else { return }
        var x = a.x, y = a.y
        let dx = abs(b.x - a.x), dy = -abs(b.y - a.y)
        let stepX = a.x < b.x ? 1 : -1, stepY = a.y < b.y ? 1 : -1
        var error = dx + dy
        while true {
            set(x: x, y: y, color: color)
            if x == b.x && y == b.y { break }
            let doubled = 2 * error
            if doubled >= dy { error += dy; x += stepX }
            if doubled <= dx { error += dx; y += stepY }
        }
    }

    /// Writes the cells that hold at least one dot into `buffer`: the braille
    /// character and its colour; the cell's background is kept.
    public func render(into buffer: inout Buffer) {
        for row in 0..<area.height {
            for column in 0..<area.width {
                let index = row * area.width + column
                let mask = masks[index]
                guard mask != 0, let target = buffer.cell(x: area.x + column, y: area.y + row) else { continue }
                var cell = target
                cell.scalar = Unicode.Scalar(0x2800 + UInt32(mask))!
                cell.foreground = colors[index]
                buffer.set(x: area.x + column, y: area.y + row, cell)
            }
        }
    }

    /// Endpoints inside the canvas are kept exactly; an endpoint outside is moved
    /// along the line (Liang–Barsky, in Double) to the canvas edge. Nil when the
    /// line misses the canvas.
    private func clip(x0: Int, y0: Int, x1: Int, y1: Int) -> ((x: Int, y: Int), (x: Int, y: Int))? {
        let inside0 = x0 >= 0 && x0 < pixelWidth && y0 >= 0 && y0 < pixelHeight
        let inside1 = x1 >= 0 && x1 < pixelWidth && y1 >= 0 && y1 < pixelHeight
        if inside0 && inside1 { return ((x0, y0), (x1, y1)) }
        guard pixelWidth > 0, pixelHeight > 0 else { return nil }
        let fx0 = Double(x0), fy0 = Double(y0)
        let dx = Double(x1) - fx0, dy = Double(y1) - fy0
        var t0 = 0.0, t1 = 1.0
        // each canvas edge as p·t ≤ q, over the dot box [0, w-1] × [0, h-1]
        func limit(_ p: Double, _ q: Double) -> Bool {
            if p == 0 { return q >= 0 }
            let t = q / p
            if p < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
            return true
        }
        guard limit(-dx, fx0), limit(dx, Double(pixelWidth - 1) - fx0),
              limit(-dy, fy0), limit(dy, Double(pixelHeight - 1) - fy0),
              t0 <= t1 else { return nil }
        func point(_ t: Double, exact: (Int, Int), keep: Bool) -> (x: Int, y: Int) {
            if keep { return exact }
            let x = min(max((fx0 + t * dx).rounded(), 0), Double(pixelWidth - 1))
            let y = min(max((fy0 + t * dy).rounded(), 0), Double(pixelHeight - 1))
            return (Int(x), Int(y))
        }
        return (point(t0, exact: (x0, y0), keep: inside0), point(t1, exact: (x1, y1), keep: inside1))
    }
}
