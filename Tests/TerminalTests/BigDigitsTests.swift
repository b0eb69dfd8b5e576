import Testing
@testable import Terminal

@Suite struct BigDigitsTests {
    @Test func readoutIsFiveRowsOfBlocks() {
        var buffer = Buffer(width: 16, height: 5)
        let end = BigDigits.draw("-4.5", x: 0, y: 0, style: .plain, into: &buffer)
        #expect(end == 13)  // 3 + 1 + 3 + 1 + 1 + 1 + 3
        #expect(BigDigits.width(of: "-4.5") == 13)
        #expect(buffer.lines == [
            "    █ █   ███   ",
            "    █ █   █     ",
            "███ ███   ███   ",
            "      █     █   ",
            "      █ █ ███   ",
        ])
    }

    @Test func scaledDigitsUseHalfBlocksAndScaleBothWays() {
        // scale 1: five half-cell rows in three cells
        var small = Buffer(width: 3, height: 3)
        #expect(BigDigits.draw("7", x: 0, y: 0, scale: 1, style: .plain, into: &small) == 3)
        #expect(small.lines == ["▀▀█", "  █", "  ▀"])
        // scale 2: each pixel 2 cells wide and one cell tall
        var buffer = Buffer(width: 14, height: 5)
        let end = BigDigits.draw("-1", x: 0, y: 0, scale: 2, style: .plain, into: &buffer)
        #expect(end == 2 * BigDigits.width(of: "-1"))
        #expect(BigDigits.height(scale: 2) == 5)
        #expect(buffer.lines == [
            "          ██  ",
            "        ████  ",
            "██████    ██  ",
            "          ██  ",
            "        ██████",
        ])
    }

    @Test func unknownCharactersAreSkippedAndClipped() {
        var buffer = Buffer(width: 4, height: 3)
        BigDigits.draw("x8", x: 2, y: 1, style: .plain, into: &buffer)
        #expect(buffer.lines == ["    ", "  ██", "  █ "])
    }
}

@Suite struct MouseModifierTests {
    private func mouse(_ text: String) -> MouseEvent? {
        guard case .event(.mouse(let event), _) = InputParser.parse(Array(text.utf8)) else { return nil }
        return event
    }

    @Test func wheelWithModifiersFromByteLiterals() {
        // ESC [ < 68 ; 12 ; 3 M  = wheel up (64) + shift (4)
        #expect(mouse("\u{1B}[<68;12;3M") == MouseEvent(.scrollUp, x: 11, y: 2, modifiers: .shift))
        // ESC [ < 81 ; 1 ; 1 M  = wheel down (65) + ctrl (16)
        #expect(mouse("\u{1B}[<81;1;1M") == MouseEvent(.scrollDown, x: 0, y: 0, modifiers: .ctrl))
        // ESC [ < 48 ; 5 ; 6 M  = left drag (32) + ctrl (16)
        #expect(mouse("\u{1B}[<48;5;6M") == MouseEvent(.drag(.left), x: 4, y: 5, modifiers: .ctrl))
        // the same bytes as raw values: ESC [ < 6 4 ; 2 ; 2 M
        let bytes: [UInt8] = [0x1B, 0x5B, 0x3C, 0x36, 0x34, 0x3B, 0x32, 0x3B, 0x32, 0x4D]
        #expect(InputParser.parse(bytes) == .event(.mouse(MouseEvent(.scrollUp, x: 1, y: 1)), consumed: 10))
    }
}
