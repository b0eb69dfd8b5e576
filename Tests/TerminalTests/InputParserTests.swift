import Testing
@testable import Terminal

@Suite struct InputParserTests {
    private func parse(_ text: String) -> ParseResult { InputParser.parse(Array(text.utf8)) }
    private func key(_ code: KeyCode, _ consumed: Int) -> ParseResult { key(code, [], consumed) }
    private func key(_ code: KeyCode, _ modifiers: KeyModifiers, _ consumed: Int) -> ParseResult {
        .event(.key(KeyEvent(code, modifiers: modifiers)), consumed: consumed)
    }
    private func mouse(_ action: MouseAction, _ x: Int, _ y: Int, _ modifiers: KeyModifiers = [], _ consumed: Int) -> ParseResult {
        .event(.mouse(MouseEvent(action, x: x, y: y, modifiers: modifiers)), consumed: consumed)
    }

    @Test func arrowsInCSIAndSS3Form() {
        #expect(parse("\u{1B}[A") == key(.up, 3))
        #expect(parse("\u{1B}[B") == key(.down, 3))
        #expect(parse("\u{1B}[C") == key(.right, 3))
        #expect(parse("\u{1B}[Dxyz") == key(.left, 3))
        #expect(parse("\u{1B}OA") == key(.up, 3))
        #expect(parse("\u{1B}OD") == key(.left, 3))
    }

    @Test func modifierParameters() {
        #expect(parse("\u{1B}[1;5C") == key(.right, .ctrl, 6))
        #expect(parse("\u{1B}[1;2A") == key(.up, .shift, 6))
        #expect(parse("\u{1B}[1;3D") == key(.left, .alt, 6))
        #expect(parse("\u{1B}[1;8H") == key(.home, [.shift, .alt, .ctrl], 6))
        #expect(parse("\u{1B}[5;5~") == key(.pageUp, .ctrl, 6))
    }

    @Test func editingAndFunctionKeys() {
        #expect(parse("\u{1B}[5~") == key(.pageUp, 4))
        #expect(parse("\u{1B}[6~") == key(.pageDown, 4))
        #expect(parse("\u{1B}[H") == key(.home, 3))
        #expect(parse("\u{1B}[1~") == key(.home, 4))
        #expect(parse("\u{1B}[7~") == key(.home, 4))
        #expect(parse("\u{1B}OH") == key(.home, 3))
        #expect(parse("\u{1B}[F") == key(.end, 3))
        #expect(parse("\u{1B}[4~") == key(.end, 4))
        #expect(parse("\u{1B}[2~") == key(.insert, 4))
        #expect(parse("\u{1B}[3~") == key(.delete, 4))
        #expect(parse("\u{1B}OP") == key(.function(1), 3))
        #expect(parse("\u{1B}OS") == key(.function(4), 3))
        #expect(parse("\u{1B}[15~") == key(.function(5), 5))
        #expect(parse("\u{1B}[17~") == key(.function(6), 5))
        #expect(parse("\u{1B}[21~") == key(.function(10), 5))
        #expect(parse("\u{1B}[24~") == key(.function(12), 5))
        #expect(parse("\u{1B}[1;5P") == key(.function(1), .ctrl, 6))
        #expect(parse("\u{1B}[[B") == key(.function(2), 4))
        #expect(parse("\u{1B}[Z") == key(.backtab, 3))
    }

    @Test func controlBytes() {
        #expect(parse("\r") == key(.enter, 1))
        #expect(parse("\t") == key(.tab, 1))
        #expect(InputParser.parse([0x7F]) == key(.backspace, 1))
        #expect(InputParser.parse([0x01]) == key(.character("a"), .ctrl, 1))
        #expect(InputParser.parse([0x03]) == key(.character("c"), .ctrl, 1))
        #expect(InputParser.parse([0x1A]) == key(.character("z"), .ctrl, 1))
        #expect(parse("\u{1B}x") == key(.character("x"), .alt, 2))
        #expect(parse("\u{1B}\u{1B}") == key(.escape, 1))
        #expect(parse("q") == key(.character("q"), 1))
    }

    @Test func sgrMouse() {
        #expect(parse("\u{1B}[<0;10;5M") == mouse(.press(.left), 9, 4, [], 10))
        #expect(parse("\u{1B}[<0;10;5m") == mouse(.release(.left), 9, 4, [], 10))
        #expect(parse("\u{1B}[<2;1;1M") == mouse(.press(.right), 0, 0, [], 9))
        #expect(parse("\u{1B}[<1;3;4M") == mouse(.press(.middle), 2, 3, [], 9))
        #expect(parse("\u{1B}[<32;11;5M") == mouse(.drag(.left), 10, 4, [], 11))
        #expect(parse("\u{1B}[<35;200;100M") == mouse(.moved, 199, 99, [], 14))
        #expect(parse("\u{1B}[<64;7;2M") == mouse(.scrollUp, 6, 1, [], 10))
        #expect(parse("\u{1B}[<81;7;2M") == mouse(.scrollDown, 6, 1, .ctrl, 10))
        #expect(parse("\u{1B}[<66;7;2M") == mouse(.scrollLeft, 6, 1, [], 10))
        #expect(parse("\u{1B}[<67;7;2M") == mouse(.scrollRight, 6, 1, [], 10))
        #expect(parse("\u{1B}[<28;7;2M") == mouse(.press(.left), 6, 1, [.shift, .alt, .ctrl], 10))
        #expect(parse("\u{1B}[<0;0;5M") == .invalid(consumed: 9))
        #expect(parse("\u{1B}[<0;5M") == .invalid(consumed: 7))
    }

    @Test func splitInputNeedsMoreThenParses() {
        let whole = Array("\u{1B}[<0;10;5M".utf8)
        for cut in 1..<whole.count {
            #expect(InputParser.parse(whole[0..<cut]) == .needMore, "cut at \(cut)")
        }
        #expect(InputParser.parse(whole) == mouse(.press(.left), 9, 4, [], 10))
        #expect(parse("\u{1B}[1;") == .needMore)
        #expect(parse("\u{1B}O") == .needMore)
    }

    @Test func garbageIsInvalidAndConsumed() {
        #expect(parse("\u{1B}[99~") == .invalid(consumed: 5))
        #expect(parse("\u{1B}[1;5q") == .invalid(consumed: 6))
        #expect(parse("\u{1B}[12\u{01}") == .invalid(consumed: 4))
        #expect(parse("\u{1B}OZ") == .invalid(consumed: 3))
        #expect(parse("\u{1B}[I") == .invalid(consumed: 3)) // focus in: ignored
        #expect(parse("\u{1B}[O") == .invalid(consumed: 3)) // focus out
        #expect(InputParser.parse([0xFF, 0x41]) == .invalid(consumed: 1))
        #expect(InputParser.parse([0xC0, 0x80]) == .invalid(consumed: 1)) // overlong
        #expect(InputParser.parse([0xED, 0xA0, 0x80]) == .invalid(consumed: 1)) // surrogate
        let runaway = [0x1B, 0x5B] + [UInt8](repeating: 0x31, count: 40)
        #expect(InputParser.parse(runaway) == .invalid(consumed: InputParser.maximumSequenceLength))
        #expect(parse("\u{1B}[99999999999999999999999;5C") == key(.right, .ctrl, 28))
    }

    @Test func loneEscapeNeedsMore() {
        #expect(InputParser.parse([0x1B]) == .needMore)
        #expect(InputParser.parse([UInt8]()) == .needMore)
    }

    @Test func utf8Characters() {
        #expect(parse("é") == key(.character("é"), 2))
        #expect(parse("€x") == key(.character("€"), 3))
        #expect(parse("😀") == key(.character("😀"), 4))
        #expect(InputParser.parse([0xE2, 0x82]) == .needMore)
        #expect(parse("\u{1B}é") == key(.character("é"), .alt, 3))
    }
}

@Suite struct InputDecoderTests {
    @Test func eventsAcrossReads() {
        var decoder = InputDecoder()
        decoder.feed(Array("a\u{1B}[".utf8))
        #expect(decoder.next() == .key(KeyEvent(.character("a"))))
        #expect(decoder.next() == nil)
        #expect(decoder.hasPendingEscape)
        decoder.feed(Array("1;5Cb".utf8))
        #expect(decoder.next() == .key(KeyEvent(.right, modifiers: .ctrl)))
        #expect(decoder.next() == .key(KeyEvent(.character("b"))))
        #expect(decoder.next() == nil)
        #expect(!decoder.hasPendingEscape)
    }

    @Test func invalidBytesAreSkipped() {
        var decoder = InputDecoder()
        decoder.feed([0xFF] + Array("\u{1B}[I\u{1B}[Aq".utf8))
        #expect(decoder.next() == .key(KeyEvent(.up)))
        #expect(decoder.next() == .key(KeyEvent(.character("q"))))
    }

    @Test func flushEscapeResolvesTimedOutSequences() {
        var decoder = InputDecoder()
        decoder.feed([0x1B])
        #expect(decoder.next() == nil)
        #expect(decoder.flushEscape() == .key(KeyEvent(.escape)))
        #expect(!decoder.hasPendingEscape)
        decoder.feed(Array("\u{1B}[".utf8))
        #expect(decoder.flushEscape() == .key(KeyEvent(.character("["), modifiers: .alt)))
        decoder.feed(Array("\u{1B}[12".utf8))
        #expect(decoder.flushEscape() == nil)
        decoder.feed(Array("x".utf8))
        #expect(decoder.next() == .key(KeyEvent(.character("x"))))
        #expect(decoder.flushEscape() == nil)
    }
}
