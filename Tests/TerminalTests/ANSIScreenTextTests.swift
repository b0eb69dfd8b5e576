import Testing
@testable import Terminal

@Suite struct ANSIScreenTextTests {
    @Test func sgrColoursAndAttributesLandOnTheirCells() {
        // "A" in 24-bit red on palette 17, "B" reset, newline, "C" bold system green on default, "▀" reversed
        let text = "\u{1B}[38;2;255;0;0;48;5;17mA\u{1B}[0mB\n\u{1B}[1;32mC\u{1B}[7m▀\u{1B}[27;39mD\u{1B}[?25l"
        let buffer = ANSIScreenText.parse(text, width: 4, height: 2)
        #expect(buffer.cell(x: 0, y: 0) == Cell("A", style: CellStyle(foreground: .rgb(255, 0, 0), background: .indexed(17))))
        #expect(buffer.cell(x: 1, y: 0) == Cell("B"))
        #expect(buffer.cell(x: 0, y: 1) == Cell("C", style: CellStyle(foreground: .indexed(2), attributes: [.bold])))
        #expect(buffer.cell(x: 1, y: 1) == Cell("▀", style: CellStyle(foreground: .indexed(2), attributes: [.bold, .inverse])))
        #expect(buffer.cell(x: 2, y: 1) == Cell("D", style: CellStyle(attributes: [.bold])))
        // a sequence that is not SGR, and text past the edges, change nothing
        #expect(buffer.cell(x: 3, y: 1) == .blank)
        let clipped = ANSIScreenText.parse("ABCDEF\n1\n2\n3", width: 3, height: 2)
        #expect(clipped.lines == ["ABC", "1  "])
    }

    @Test func paletteAndSystemColoursResolveToRGB() {
        #expect(Color.indexed(1).rgb(whenDefault: (9, 9, 9)) == (205, 0, 0))
        #expect(Color.indexed(16).rgb(whenDefault: (9, 9, 9)) == (0, 0, 0))
        #expect(Color.indexed(231).rgb(whenDefault: (9, 9, 9)) == (255, 255, 255))
        #expect(Color.indexed(232).rgb(whenDefault: (9, 9, 9)) == (8, 8, 8))
        #expect(Color.default.rgb(whenDefault: (9, 9, 9)) == (9, 9, 9))
        #expect(Color.rgb(1, 2, 3).rgb(whenDefault: (9, 9, 9)) == (1, 2, 3))
    }
}
