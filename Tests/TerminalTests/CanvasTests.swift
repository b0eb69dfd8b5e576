import Testing
@testable import Terminal

@Suite struct BrailleCanvasTests {
    @Test(arguments: [
        (0, 0, "⠁"), (0, 1, "⠂"), (0, 2, "⠄"), (0, 3, "⡀"),
        (1, 0, "⠈"), (1, 1, "⠐"), (1, 2, "⠠"), (1, 3, "⢀"),
    ])
    func eachDotHasItsBrailleBit(x: Int, y: Int, expected: String) {
        var buffer = Buffer(width: 3, height: 3)
        var canvas = BrailleCanvas(area: Rect(x: 1, y: 1, width: 1, height: 1))
        canvas.set(x: x, y: y)
        canvas.render(into: &buffer)
        #expect(buffer.lines == ["   ", " \(expected) ", "   "])
    }

    @Test func allDotsMakeTheFullCell() {
        var buffer = Buffer(width: 1, height: 1)
        var canvas = BrailleCanvas(area: buffer.area)
        for y in 0..<4 { canvas.verticalSpan(x: 0, from: y, to: y); canvas.set(x: 1, y: y) }
        canvas.render(into: &buffer)
        #expect(buffer.lines == ["⣿"])
    }

    @Test func diagonalLineGolden() {
        var buffer = Buffer(width: 4, height: 2)
        var canvas = BrailleCanvas(area: buffer.area)
        canvas.line(x0: 0, y0: 0, x1: 7, y1: 7)
        canvas.render(into: &buffer)
        #expect(buffer.lines == ["⠑⢄  ", "  ⠑⢄"])
    }

    @Test func shallowLineMatchesBresenham() {
        var canvas = BrailleCanvas(area: Rect(x: 0, y: 0, width: 4, height: 1))
        canvas.line(x0: 0, y0: 0, x1: 7, y1: 2)
        let dots = (0..<8).map { x in (0..<4).filter { canvas.isSet(x: x, y: $0) } }
        #expect(dots == [[0], [0], [1], [1], [1], [1], [2], [2]])
    }

    @Test func drawingOutsideDoesNothing() {
        var buffer = Buffer(width: 3, height: 1)
        var canvas = BrailleCanvas(area: Rect(x: 1, y: 0, width: 1, height: 1))
        canvas.set(x: 2, y: 0)
        canvas.set(x: -1, y: 0)
        canvas.set(x: 0, y: 4)
        canvas.verticalSpan(x: 2, from: 0, to: 3)
        canvas.line(x0: 5, y0: -3, x1: 9, y1: -1)
        canvas.render(into: &buffer)
        #expect(buffer.lines == ["   "])
    }

    @Test func longLineFromFarOutsideIsClipped() {
        var canvas = BrailleCanvas(area: Rect(x: 0, y: 0, width: 2, height: 1))
        canvas.line(x0: -1_000_000_000, y0: 1, x1: Int.max, y1: 1)
        #expect((0..<4).allSatisfy { canvas.isSet(x: $0, y: 1) })
        #expect(!canvas.isSet(x: 0, y: 0))
        canvas.line(x0: Int.min, y0: Int.min, x1: Int.max, y1: Int.max)
    }

    @Test func verticalSpanClampsAndColours() {
        var buffer = Buffer(width: 1, height: 2)
        var canvas = BrailleCanvas(area: buffer.area, color: .indexed(2))
        canvas.verticalSpan(x: 1, from: 100, to: 6, color: .rgb(1, 2, 3))
        canvas.render(into: &buffer)
        #expect(buffer.lines == [" ", "⢠"]) // dots 6 and 8: bits 0x20 | 0x80
        #expect(buffer.cell(x: 0, y: 1)?.foreground == .rgb(1, 2, 3))
        canvas.clear()
        canvas.set(x: 0, y: 0)
        canvas.render(into: &buffer)
        #expect(buffer.cell(x: 0, y: 0) == Cell("⠁", style: CellStyle(foreground: .indexed(2))))
    }

    @Test func renderKeepsCellBackground() {
        var buffer = Buffer(width: 1, height: 1)
        buffer.set(x: 0, y: 0, Cell(" ", style: CellStyle(background: .indexed(4))))
        var canvas = BrailleCanvas(area: buffer.area, color: .indexed(1))
        canvas.set(x: 0, y: 0)
        canvas.render(into: &buffer)
        #expect(buffer.cell(x: 0, y: 0) == Cell("⠁", style: CellStyle(foreground: .indexed(1), background: .indexed(4))))
    }
}

@Suite struct HalfBlockCanvasTests {
    @Test func upperAndLowerPixelsBecomeForegroundAndBackground() {
        var buffer = Buffer(width: 3, height: 1)
        var canvas = HalfBlockCanvas(area: buffer.area)
        let red = Color.rgb(255, 0, 0), blue = Color.rgb(0, 0, 255)
        canvas.set(x: 0, y: 0, color: red)
        canvas.set(x: 0, y: 1, color: blue)
        canvas.set(x: 1, y: 0, color: red)
        canvas.set(x: 2, y: 1, color: blue)
        canvas.set(x: 3, y: 0, color: red)
        canvas.set(x: 0, y: 2, color: red)
        canvas.render(into: &buffer)
        #expect(buffer.lines == ["▀▀▄"])
        #expect(buffer.cell(x: 0, y: 0)?.style == CellStyle(foreground: red, background: blue))
        #expect(buffer.cell(x: 1, y: 0)?.style == CellStyle(foreground: red, background: .default))
        #expect(buffer.cell(x: 2, y: 0)?.style == CellStyle(foreground: blue))
        #expect(canvas.color(x: 3, y: 0) == nil)
    }

    @Test func clearedCanvasRendersBlanks() {
        var buffer = Buffer(width: 2, height: 2)
        var canvas = HalfBlockCanvas(area: Rect(x: 1, y: 1, width: 1, height: 1))
        canvas.set(x: 0, y: 0, color: .indexed(9))
        canvas.clear()
        buffer.put("ab", x: 0, y: 1)
        canvas.render(into: &buffer)
        #expect(buffer.lines == ["  ", "a "])
    }
}
