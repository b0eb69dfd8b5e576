import Testing
@testable import ECG

@Suite struct WFDBAnnotationTests {
    static func word(code: Int, value: Int) -> [UInt8] {
        let word = code << 10 | value
        return [UInt8(word & 0xFF), UInt8(word >> 8)]
    }

    @Test func readsTheReferenceBeatsOfRecord100() throws {
        let annotations = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100)
        let beats = annotations.filter(\.isBeat)
        #expect(beats.count == 2273)
        #expect(beats.filter { $0.code == 1 }.count == 2239)
        #expect(beats.filter { $0.code == 8 }.count == 33)
        #expect(beats.filter { $0.code == 5 }.count == 1)
        // the record opens with a rhythm annotation carrying "(N"
        #expect(annotations.first?.code == 28)
        #expect(annotations.first?.aux == "(N")
        #expect(beats.map(\.sample) == beats.map(\.sample).sorted())
    }

    @Test func handlesSkipNumSubChnAndPaddedAux() throws {
        var bytes: [UInt8] = []
        bytes += Self.word(code: 1, value: 100)            // N at 100
        bytes += Self.word(code: 61, value: 3)             // its subtype 3
        bytes += Self.word(code: 59, value: 0)             // SKIP 70000: high word, low word
        bytes += [0x01, 0x00, 0x70, 0x11]                   // 0x0001_1170 = 70000
        bytes += Self.word(code: 5, value: 10)             // V at 100 + 70000 + 10
        bytes += Self.word(code: 62, value: 1)             // channel 1
        bytes += Self.word(code: 60, value: 7)             // num 7
        bytes += Self.word(code: 63, value: 3) + Array("abc".utf8) + [0] // odd aux, padded
        bytes += Self.word(code: 8, value: 5)              // A keeps chan and num
        bytes += [0, 0]
        bytes += Self.word(code: 1, value: 1)              // after the end: ignored
        let annotations = try bytes.withUnsafeBytes { try WFDBAnnotationReader.read($0, file: "t.atr") }
        #expect(annotations == [
            WFDBAnnotation(sample: 100, code: 1, subtype: 3),
            WFDBAnnotation(sample: 70_110, code: 5, channel: 1, number: 7, aux: "abc"),
            WFDBAnnotation(sample: 70_115, code: 8, channel: 1, number: 7),
        ])
    }

    @Test func truncatedFilesNameTheOffset() {
        let odd: [UInt8] = Self.word(code: 1, value: 5) + [0x04]
        #expect(throws: ECGError(file: "t.atr", location: .byte(2), "annotation file ends inside a 16-bit word")) {
            try odd.withUnsafeBytes { try WFDBAnnotationReader.read($0, file: "t.atr") }
        }
        let longAux: [UInt8] = Self.word(code: 1, value: 5) + Self.word(code: 63, value: 40) + [65, 66]
        #expect(throws: ECGError(file: "t.atr", location: .byte(2), "auxiliary text of 40 bytes runs past the end of the file")) {
            try longAux.withUnsafeBytes { try WFDBAnnotationReader.read($0, file: "t.atr") }
        }
    }
}
