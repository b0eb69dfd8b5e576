/// Digits five cells tall for readouts legible at a distance (the power
/// meter): 0–9, '-', '+', '.', and space, drawn with full blocks. Each glyph
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
        default: return nil
        }
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
