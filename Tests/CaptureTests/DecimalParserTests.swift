import Foundation
import Signals
import Testing
@testable import Capture

@Suite struct DecimalParserTests {
    private func fast(_ text: String) -> Float? {
        Array(text.utf8).withUnsafeBufferPointer { DecimalParser.float($0) }
    }

    private func fastDouble(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer { DecimalParser.double($0) }
    }

    @Test func everyTwoDecimalValueOfTheDecibelRangeMatchesTheReference() {
        // -300.00 … 300.00 in 0.01 steps: every value rtl_power/hackrf_sweep print for dB
        for hundredths in -30_000...30_000 {
            let text = String(format: "%.2f", Double(hundredths) / 100)
            let value = fast(text)
            #expect(value == Float(text), "\(text)")
            if value != Float(text) { return }
        }
    }

    @Test func randomDecimalsMatchStrtofAndStrtod() {
        var rng = SeededRandom(seed: 11)
        for _ in 0..<100_000 {
            let digits = Int.random(in: 0...9, using: &rng)
            let value = Double.random(in: -1e6...1e6, using: &rng)
            let text = String(format: "%.\(digits)f", value)
            #expect(fast(text) == Float(text), "\(text)")
            #expect(fastDouble(text) == Double(text), "\(text)")
        }
    }

    @Test func specialFormsGoThroughTheSlowPath() {
        #expect(fast("-inf") == -.infinity)
        #expect(fast("nan")?.isNaN == true)
        #expect(fast("1e3") == 1000)
        #expect(fast("-0.00")?.sign == .minus)
        #expect(fast("12345678901234567890") == Float("12345678901234567890"))
    }

    @Test func garbageIsRefused() {
        for text in ["", "-", ".", "1.2.3", "12a", " 1", "1 ", "--1", "0x10", String(repeating: "9", count: 80)] {
            #expect(fast(text) == nil, "'\(text)'")
        }
        #expect(Array("-12".utf8).withUnsafeBufferPointer { DecimalParser.integer($0) } == -12)
        #expect(Array("1.5".utf8).withUnsafeBufferPointer { DecimalParser.integer($0) } == nil)
    }

    @Test func fieldsAreSplitOnCommasAndTrimmed() {
        let fields: [String] = Array(" a, b ,c,\t d ,".utf8).withUnsafeBufferPointer { bytes in
            var cursor = FieldCursor(bytes)
            var out: [String] = []
            while let field = cursor.next() { out.append(String(decoding: field, as: UTF8.self)) }
            return out
        }
        #expect(fields == ["a", "b", "c", "d", ""])
    }

    @Test func wallClockTimesBecomeUnixTime() {
        var clock = WallClockParser(rule: .utcOffset(seconds: 0))
        let parse = { (date: String, time: String) -> Double? in
            Array(date.utf8).withUnsafeBufferPointer { d in
                Array(time.utf8).withUnsafeBufferPointer { t in clock.parse(date: d, time: t) }
            }
        }
        #expect(parse("2018-11-18", "12:31:45") == 1_542_544_305)
        #expect(parse("1970-01-01", "00:00:00.250000") == 0.25)
        #expect(parse("2000-02-29", "23:59:59") == 951_868_799)
        #expect(parse("2018-11-18", "12:31") == nil)
        #expect(parse("2018-11-18", "25:00:00") == nil)
        #expect(parse("18-11-2018", "12:00:00") == nil)
    }
}
