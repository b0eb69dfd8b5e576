import Signals

/// A terminal screen drawn as a PNG with the export's bitmap font: each cell
/// `cellWidth` × `cellHeight` pixels (1:2, as a terminal's), text in the
/// 5×7 font, and the block elements, braille dots and box-drawing lines the
/// views use drawn as shapes, so a picture shows what a person saw. Used by
/// `tscope screenshot` for the README's pictures.
public enum ScreenPicture {
    /// One cell: its character and colours (already resolved to RGB).
    public struct Cell: Sendable, Equatable {
        public var scalar: Unicode.Scalar
        public var foreground: PowerColorMap.RGB
        public var background: PowerColorMap.RGB

        public init(scalar: Unicode.Scalar, foreground: PowerColorMap.RGB, background: PowerColorMap.RGB) {
            self.scalar = scalar
            self.foreground = foreground
            self.background = background
        }
    }

    /// cell size [px]
    public static let cellWidth = 6
    public static let cellHeight = 12

    /// Writes `columns` × `rows` cells, each pixel `scale` × `scale`, to `path`.
    public static func write(columns: Int, rows: Int, scale: Int = 2, to path: String,
                             cell: (Int, Int) -> Cell) throws {
        let black = PowerColorMap.RGB(red: 0, green: 0, blue: 0)
        var image = RGBImage(width: columns * cellWidth, height: rows * cellHeight, fill: black)
        for y in 0..<rows {
            for x in 0..<columns { draw(cell(x, y), x: x * cellWidth, y: y * cellHeight, into: &image) }
        }
        let factor = max(scale, 1)
        guard factor > 1 else { return try image.writePNG(path: path) }
        var scaled = RGBImage(width: image.width * factor, height: image.height * factor, fill: black)
        for y in 0..<scaled.height {
            for x in 0..<scaled.width { scaled.set(x, y, image.pixel(x / factor, y / factor)) }
        }
        try scaled.writePNG(path: path)
    }

    static func draw(_ cell: Cell, x: Int, y: Int, into image: inout RGBImage) {
        let w = cellWidth, h = cellHeight
        func fill(_ left: Int, _ top: Int, _ width: Int, _ height: Int, _ color: PowerColorMap.RGB) {
            for py in top..<(top + height) {
                for px in left..<(left + width) { image.set(x + px, y + py, color) }
            }
        }
        fill(0, 0, w, h, cell.background)
        let fg = cell.foreground
        let value = cell.scalar.value
        switch value {
        case 0x20: return
        case 0x2580: fill(0, 0, w, h / 2, fg)              // ▀
        case 0x2584: fill(0, h / 2, w, h - h / 2, fg)      // ▄
        case 0x2588: fill(0, 0, w, h, fg)                  // █
        case 0x2589...0x258F:                              // ▉ … ▏: left eighths
            fill(0, 0, max(1, w * (8 - Int(value - 0x2588)) / 8), h, fg)
        case 0x2590: fill(w / 2, 0, w - w / 2, h, fg)      // ▐
        case 0x2591...0x2593:                              // ░ ▒ ▓: a mix
            fill(0, 0, w, h, mix(cell.background, fg, Double(value - 0x2590) / 4))
        case 0x2594: fill(0, 0, w, max(1, h / 8), fg)      // ▔
        case 0x2800...0x28FF:                              // braille: 2 × 4 dots of 2 × 2 px
            let bits = value - 0x2800
            let dots: [(Int, Int, UInt32)] = [(0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (0, 3, 0x40),
                                              (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20), (1, 3, 0x80)]
            for (dx, dy, bit) in dots where bits & bit != 0 { fill(dx * 3, dy * 3 + 1, 2, 2, fg) }
        default:
            if let arms = boxArms[value] {
                let heavy = value == 0x2501 || value == 0x2503
                let cx = w / 2 - 1, cy = h / 2 - 1, thick = heavy ? 2 : 1
                if arms.contains("l") { fill(0, cy, cx + thick, thick, fg) }
                if arms.contains("r") { fill(cx, cy, w - cx, thick, fg) }
                if arms.contains("u") { fill(cx, 0, thick, cy + thick, fg) }
                if arms.contains("d") { fill(cx, cy, thick, h - cy, fg) }
            } else if let shape = shapes[value] {
                for (row, bits) in shape.enumerated() {
                    for column in 0..<5 where bits & (0x10 >> UInt8(column)) != 0 { fill(column, row + 3, 1, 1, fg) }
                }
            } else {
                image.draw(String(Character(cell.scalar)), x: x, y: y + 3, color: fg)
            }
        }
    }

    /// Box-drawing characters: which arms (left, right, up, down) they have.
    static let boxArms: [UInt32: String] = [
        0x2500: "lr", 0x2501: "lr", 0x2502: "ud", 0x2503: "ud", 0x250C: "rd", 0x2510: "ld", 0x2514: "ur",
        0x2518: "ul", 0x251C: "udr", 0x2524: "udl", 0x252C: "lrd", 0x2534: "lru", 0x253C: "lrud",
    ]

    /// Marks the views draw, as 5×7 bitmaps: ◆ ◀ ▶ ▼ ▾ ▏-like cursor
    static let shapes: [UInt32: [UInt8]] = [
        0x25C6: [0, 0x04, 0x0E, 0x1F, 0x0E, 0x04, 0],
        0x25C0: [0x01, 0x03, 0x07, 0x0F, 0x07, 0x03, 0x01],
        0x25B6: [0x10, 0x18, 0x1C, 0x1E, 0x1C, 0x18, 0x10],
        0x25BC: [0, 0x1F, 0x1F, 0x0E, 0x0E, 0x04, 0],
        0x25BE: [0, 0, 0x1F, 0x0E, 0x04, 0, 0],
    ]

    static func mix(_ a: PowerColorMap.RGB, _ b: PowerColorMap.RGB, _ t: Double) -> PowerColorMap.RGB {
        func channel(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) + (Double(y) - Double(x)) * t).rounded()) }
        return PowerColorMap.RGB(red: channel(a.red, b.red), green: channel(a.green, b.green),
                                 blue: channel(a.blue, b.blue))
    }
}
