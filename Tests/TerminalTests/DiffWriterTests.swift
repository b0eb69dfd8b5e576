import Signals
import Testing
@testable import Terminal

@Suite struct DiffWriterTests {
    private func text(_ bytes: [UInt8]) -> String {
        String(String(decoding: bytes, as: UTF8.self).map { $0 == "\u{1B}" ? "⎋" : $0 })
    }

    @Test func firstFrameClearsAndDrawsNonBlankCells() {
        var buffer = Buffer(width: 4, height: 2)
        buffer.put("ab", x: 1, y: 0)
        buffer.put("c", x: 3, y: 1)
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        #expect(text(writer.output) == "⎋[?2026h⎋[0m⎋[2J⎋[1;2Hab⎋[2;4Hc⎋[?2026l")
    }

    @Test func unchangedFrameWritesNothing() {
        var buffer = Buffer(width: 3, height: 1)
        buffer.put("x", x: 0, y: 0, style: CellStyle(foreground: .rgb(1, 2, 3)))
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        writer.render(buffer)
        #expect(writer.output.isEmpty)
    }

    @Test func oneChangedCellIsOneMoveAndOneCharacter() {
        var buffer = Buffer(width: 5, height: 3)
        buffer.put("hello", x: 0, y: 1)
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        buffer.put("J", x: 0, y: 1)
        writer.render(buffer)
        #expect(text(writer.output) == "⎋[?2026h⎋[2;1HJ⎋[?2026l")
    }

    @Test func adjacentChangesShareOneCursorMove() {
        var buffer = Buffer(width: 6, height: 1)
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        buffer.put("ab", x: 1, y: 0)
        buffer.put("z", x: 5, y: 0)
        writer.render(buffer)
        #expect(text(writer.output) == "⎋[?2026h⎋[1;2Hab⎋[1;6Hz⎋[?2026l")
    }

    @Test func colourChangesEmitOnlyTheDifferingSGR() {
        var buffer = Buffer(width: 4, height: 1)
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        let red = CellStyle(foreground: .rgb(255, 0, 0))
        buffer.put("ab", x: 0, y: 0, style: red)
        buffer.put("c", x: 2, y: 0, style: CellStyle(foreground: .rgb(255, 0, 0), background: .indexed(4)))
        buffer.put("d", x: 3, y: 0, style: CellStyle(attributes: .bold))
        writer.render(buffer)
        #expect(text(writer.output) == "⎋[?2026h⎋[1;1H⎋[38;2;255;0;0mab⎋[48;5;4mc⎋[1;39;49md⎋[?2026l")
        // the terminal is still bold: a bold change elsewhere needs no SGR
        buffer.put("e", x: 3, y: 0, style: CellStyle(attributes: .bold))
        writer.render(buffer)
        #expect(text(writer.output) == "⎋[?2026h⎋[1;4He⎋[?2026l")
    }

    @Test func paletteAndNoColourModesMapColours() {
        var buffer = Buffer(width: 1, height: 1)
        buffer.put("x", x: 0, y: 0, style: CellStyle(foreground: .rgb(255, 0, 0), attributes: .inverse))
        let palette = DiffWriter(mode: .palette256)
        palette.render(buffer)
        #expect(text(palette.output) == "⎋[?2026h⎋[0m⎋[2J⎋[1;1H⎋[7;38;5;196mx⎋[?2026l")
        let none = DiffWriter(mode: .none)
        none.render(buffer)
        #expect(text(none.output) == "⎋[?2026h⎋[0m⎋[2J⎋[1;1H⎋[7mx⎋[?2026l")
    }

    @Test func resizeAndInvalidateRedrawEverything() {
        var buffer = Buffer(width: 2, height: 1)
        buffer.put("ab", x: 0, y: 0)
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        writer.invalidate()
        writer.render(buffer)
        #expect(text(writer.output) == "⎋[?2026h⎋[0m⎋[2J⎋[1;1Hab⎋[?2026l")
        buffer.resize(width: 3, height: 1)
        buffer.put("c", x: 2, y: 0)
        writer.render(buffer)
        #expect(text(writer.output) == "⎋[?2026h⎋[0m⎋[2J⎋[1;3Hc⎋[?2026l")
    }

    @Test func multiByteScalarsAreUTF8() {
        var buffer = Buffer(width: 3, height: 1)
        buffer.put("é⣿😀", x: 0, y: 0)
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        #expect(text(writer.output) == "⎋[?2026h⎋[0m⎋[2J⎋[1;1Hé⣿😀⎋[?2026l")
    }

    /// Random frames applied through a virtual terminal must reproduce each buffer
    /// exactly (the reference: the buffer itself, cell by cell).
    @Test func randomFramesReproduceTheBufferOnAVirtualScreen() {
        var random = SeededRandom(seed: 42)
        let palette: [Color] = [.default, .indexed(1), .indexed(200), .rgb(10, 20, 30), .rgb(250, 0, 9)]
        let attributes: [CellAttributes] = [[], .bold, .dim, [.bold, .inverse], .inverse]
        let scalars: [Unicode.Scalar] = [" ", "a", "Z", "⣿", "▀", "é"]
        var buffer = Buffer(width: 9, height: 5)
        let writer = DiffWriter(mode: .trueColor)
        var screen = VirtualScreen(width: 9, height: 5)
        for frame in 0..<60 {
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let style = CellStyle(foreground: palette.randomElement(using: &random)!,
                                      background: palette.randomElement(using: &random)!,
                                      attributes: attributes.randomElement(using: &random)!)
                buffer.set(x: Int.random(in: 0..<9, using: &random), y: Int.random(in: 0..<5, using: &random),
                           Cell(scalars.randomElement(using: &random)!, style: style))
            }
            if frame == 30 { writer.invalidate() }
            writer.render(buffer)
            screen.apply(writer.output)
            #expect(screen.cells == buffer.cells, "frame \(frame)")
            #expect(screen.unexpected.isEmpty && !screen.synchronized)
        }
    }

    @Test func outputStorageIsReusedInSteadyState() {
        var buffer = Buffer(width: 80, height: 24)
        let writer = DiffWriter(mode: .trueColor)
        writer.render(buffer)
        let capacity = writer.output.capacity
        for frame in 0..<20 {
            buffer.fill(buffer.area, with: Cell("#", style: CellStyle(foreground: .rgb(UInt8(frame), 9, 9), background: .rgb(1, 2, UInt8(frame)))))
            writer.render(buffer)
        }
        #expect(writer.output.capacity == capacity)
    }
}
