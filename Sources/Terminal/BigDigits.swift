/// Digits five cells tall for readouts legible at a distance (the power
/// meter): 0–9, '-', '+', '.', space and the unit letters d, B, m, drawn
/// with full blocks. Each glyph
/// is three cells wide ('.' one), with one blank column between glyphs.
public enum BigDigits {
    /// rows of every glyph [cells]
    public static let height = 5

    /// Glyph rows as bit masks, bit 2 = left column … bit 0 = right column.
    private static func rows(of character: Unicode.Scalar) -> (UInt8, UInt8, UInt8, UInt8, UInt8)? {
        switch character {
        case "0": return (0b111, 0b101, 0b101, 0b101, 0b111)
        case "1": return (0b010, 0b110, 0b010, 0b010, 0b111)
        case "2": return (0b111, 0b001, 0b111, 0b100, 0b111)
        case "3": return (0b111, 0b001, 0b111, 0b001, 0b111)
        case "4": return (0b101, 0b101, 0b111, 0b001, 0b001)
        case "5": return (0b111, 0b100, 0b111, 0b001, 0b111)
        case "6": return (0b111, 0b100, 0b111, 0b101, 0b111)
        case "7": return (0b111, 0b001, 0b001, 0b001, 0b001)
        case "8": return (0b111, 0b101, 0b111, 0b101, 0b111)
        case "9": return (0b111, 0b101, 0b111, 0b001, 0b111)
        case "-": return (0b000, 0b000, 0b111, 0b000, 0b000)
        case "+": return (0b000, 0b010, 0b111, 0b010, 0b000)
        case " ": return (0b000, 0b000, 0b000, 0b000, 0b000)
        case ".": return (0b000, 0b000, 0b000, 0b000, 0b001)
        // the letters of the units beside a readout: dB, dBm
        case "d": return (0b001, 0b001, 0b111, 0b101, 0b111)
        case "B": return (0b110, 0b101, 0b110, 0b101, 0b110)
        case "m": return (0b000, 0b000, 0b111, 0b111, 0b101)
        default: return nil
        }
    }

    /// Cells `text` takes across at `scale` (each glyph pixel `scale` cells
    /// wide; gaps one pixel).
    public static func width(of text: String, scale: Int) -> Int { width(of: text) * max(scale, 1) }

    /// Cell rows the glyphs take at `scale`: a glyph pixel is `scale` half
    /// cells tall, so pixels stay about square (cells are twice as tall as wide).
    public static func height(scale: Int) -> Int { (height * max(scale, 1) + 1) / 2 }

    /// Draws `text` `scale` times the size of `draw(_:x:y:style:into:)`, with
    /// half blocks ('▀', '▄', '█') so the height grows in half cells. Unlit
    /// cells are left as they are. Returns the column after the last glyph.
    @discardableResult
    public static func draw(_ text: String, x: Int, y: Int, scale: Int, style: CellStyle,
                            into buffer: inout Buffer) -> Int {
        let scale = max(scale, 1)
        var column = x
        var first = true
        let rowsTall = height(scale: scale)
        for scalar in text.unicodeScalars {
            guard let glyph = rows(of: scalar) else { continue }
            if !first { column += scale }
            first = false
            let width = glyphWidth(scalar)
            let masks = [glyph.0, glyph.1, glyph.2, glyph.3, glyph.4]
            // is glyph pixel (px, half-cell row h) lit
            func lit(_ dx: Int, _ half: Int) -> Bool {
                let row = half / scale
                guard row < height else { return false }
                return masks[row] & (1 << (width - 1 - dx / scale)) != 0
            }
            for dy in 0..<rowsTall {
                for dx in 0..<(width * scale) {
                    let upper = lit(dx, 2 * dy), lower = lit(dx, 2 * dy + 1)
                    guard upper || lower else { continue }
                    let glyphScalar: Unicode.Scalar = upper && lower ? "█" : upper ? "▀" : "▄"
                    buffer.set(x: column + dx, y: y + dy, Cell(glyphScalar, style: style))
                }
            }
            column += width * scale
        }
        return column
    }

    /// cells a glyph takes, without the gap after it; 0 for characters without a glyph
    public static func glyphWidth(_ character: Unicode.Scalar) -> Int {
        guard rows(of: character) != nil else { return 0 }
        return character == "." ? 1 : 3
    }

    /// cells `text` takes when drawn (glyphs and the gaps between them)
    public static func width(of text: String) -> Int {
        var total = 0
        var glyphs = 0
        for scalar in text.unicodeScalars where glyphWidth(scalar) > 0 {
            total += glyphWidth(scalar)
            glyphs += 1
        }
        return total + max(0, glyphs - 1)
    }

    /// Draws `text` with its top-left cell at (x, y): lit cells as '█' in
    /// `style`, unlit cells left as they are. Characters without a glyph are
    /// skipped. Returns the column after the last glyph.
    @discardableResult
    public static func draw(_ text: String, x: Int, y: Int, style: CellStyle, into buffer: inout Buffer) -> Int {
        var column = x
        var first = true
        for scalar in text.unicodeScalars {
            guard let glyph = rows(of: scalar) else { continue }
            if !first { column += 1 }
            first = false
            let width = glyphWidth(scalar)
            let masks = [glyph.0, glyph.1, glyph.2, glyph.3, glyph.4]
            for (row, mask) in masks.enumerated() {
                for dx in 0..<width where mask & (1 << (width - 1 - dx)) != 0 {
                    buffer.set(x: column + dx, y: y + row, Cell("█", style: style))
                }
            }
            column += width
        }
        return column
    }
}
