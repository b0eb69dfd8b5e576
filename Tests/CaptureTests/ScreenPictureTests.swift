import Foundation
import Signals
import Testing
@testable import Capture

@Suite struct ScreenPictureTests {
    @Test func blocksBrailleLinesAndTextAreDrawnInTheirCells() throws {
        let red = PowerColorMap.RGB(red: 255, green: 0, blue: 0)
        let blue = PowerColorMap.RGB(red: 0, green: 0, blue: 255)
        let cells: [Unicode.Scalar] = ["▀", "⠁", "─", "A", " "]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("screen-\(UUID()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ScreenPicture.write(columns: cells.count, rows: 1, scale: 1, to: path) { x, _ in
            ScreenPicture.Cell(scalar: cells[x], foreground: red, background: blue)
        }
        let picture = try RGBImage.readPNG(path: path)
        let w = ScreenPicture.cellWidth, h = ScreenPicture.cellHeight
        #expect(picture.width == cells.count * w && picture.height == h)
        // ▀: red above, blue below
        #expect(picture.pixel(2, 1) == red && picture.pixel(2, h - 2) == blue)
        // ⠁: one dot at the top left, the rest background
        #expect(picture.pixel(w, 1) == red && picture.pixel(w + 4, 8) == blue)
        // ─: a line across the middle only
        #expect(picture.pixel(2 * w, h / 2 - 1) == red && picture.pixel(2 * w + w - 1, h / 2 - 1) == red)
        #expect(picture.pixel(2 * w + 2, 1) == blue)
        // A: the font's glyph, 3 px down: its top bar
        #expect(picture.pixel(3 * w + 2, 3) == red)
        // space: all background
        #expect((0..<w).allSatisfy { picture.pixel(4 * w + $0, 6) == blue })
    }
}
