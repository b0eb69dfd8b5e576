import Testing
@testable import Terminal

@Suite struct BufferTests {
    @Test func putClipsAtEdgesAndIgnoresOutsideRows() {
        var buffer = Buffer(width: 5, height: 2)
        buffer.put("abcdefg", x: 2, y: 0)
        buffer.put("xyz", x: -1, y: 1)
        buffer.put("lost", x: 0, y: 2)
        buffer.put("lost", x: 0, y: -1)
        #expect(buffer.lines == ["  abc", "yz   "])
    }

    @Test func setOutsideDoesNothing() {
        var buffer = Buffer(width: 3, height: 3)
        for (x, y) in [(-1, 0), (3, 0), (0, 3), (0, -1), (Int.max, Int.min)] {
            buffer.set(x: x, y: y, Cell("#"))
        }
        #expect(buffer.cells.allSatisfy { $0 == .blank })
        #expect(buffer.cell(x: 3, y: 0) == nil)
    }

    @Test func fillIsClippedToBuffer() {
        var buffer = Buffer(width: 4, height: 3)
        buffer.fill(Rect(x: 2, y: -5, width: 100, height: 7), with: Cell("#"))
        #expect(buffer.description == "  ##\n  ##\n    ")
        buffer.fill(Rect(x: Int.max - 1, y: 0, width: Int.max, height: 1), with: Cell("!"))
        #expect(buffer.description == "  ##\n  ##\n    ")
    }

    @Test func clearAndResizeBlankTheContent() {
        var buffer = Buffer(width: 2, height: 1)
        buffer.put("ab", x: 0, y: 0, style: CellStyle(foreground: .indexed(3)))
        #expect(buffer.cell(x: 1, y: 0) == Cell("b", style: CellStyle(foreground: .indexed(3))))
        buffer.clear()
        #expect(buffer.lines == ["  "])
        buffer.put("ab", x: 0, y: 0)
        buffer.resize(width: 3, height: 2)
        #expect(buffer.lines == ["   ", "   "])
        #expect(buffer.width == 3 && buffer.height == 2)
        buffer.resize(width: -4, height: 2)
        #expect(buffer.lines == ["", ""])
    }

    @Test func controlCharactersBecomeSpaces() {
        var buffer = Buffer(width: 4, height: 1)
        let end = buffer.put("a\nb\u{7F}", x: 0, y: 0)
        #expect(buffer.lines == ["a b "])
        #expect(end == 4)
    }
}
