import Foundation
import Testing
@testable import ECG

/// Annotations and beats as PhysioNet's text tools print them: `rdann` (reference rhythm notes) and
/// `ann2rr -i s -v -V` (`start interval end`), on MIT-BIH AF Database record 04015 (Fixtures/afdb-text;
/// provenance in Fixtures/README.md).
@Suite struct AnnotationTextTests {
    static let directory = Fixture.directory + "/afdb-text/"

    /// Every rhythm change of rdann's dump, its sample number agreeing with rdann's own elapsed-time
    /// column at AFDB's 250 Hz (read apart here from the file's text).
    @Test func rdannRhythmNotesAgreeWithTheirElapsedTimes() throws {
        let path = Self.directory + "atr04015.txt"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(WFDBAnnotationText.isText(bytes))
        let annotations = try WFDBAnnotationReader.read(contents: bytes, file: path)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(annotations.count == 15 && lines.count == 15)
        for (annotation, line) in zip(annotations, lines) {
            #expect(annotation.code == WFDBAnnotation.rhythmCode)
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            #expect(annotation.aux == String(fields.last!))
            // h:mm:ss.sss or m:ss.sss
            let seconds = fields[0].split(separator: ":").reduce(0.0) { $0 * 60 + Double($1)! }
            #expect(abs(Double(annotation.sample) / 250 - seconds) < 0.002, "\(line)")
        }
        #expect(annotations.map(\.aux) .filter { $0 == "(AFIB" }.count == 7)
        // rdann's (AFIB notes read as the binary file's would: AF from 102,584 to 119,604 samples first
        let af = AFRhythmScore.referenceAF(annotations, sampleRate: 250, end: 1800)
        #expect(abs(af[0].lowerBound - 410.336) < 1e-9 && abs(af[0].upperBound - 478.416) < 1e-9)
    }

    @Test func rdannBeatLinesAndAbsoluteTimes() throws {
        let text = """
                  Time   Sample #  Type  Sub Chan  Num\tAux
            [12:00:00.100 01/02/2003]       36     N    0    0    0
            [12:00:00.900 01/02/2003]      324     V    0    1    0
            [12:00:01.500 01/02/2003]      540     "    0    0    0\tnoise in lead 2

            """
        let annotations = try WFDBAnnotationText.parse(Array(text.utf8), file: "x.txt")
        #expect(annotations == [WFDBAnnotation(sample: 36, code: 1), WFDBAnnotation(sample: 324, code: 5, channel: 1),
                                WFDBAnnotation(sample: 540, code: WFDBAnnotation.noteCode, aux: "noise in lead 2")])
    }

    /// A reference named .txt is rdann's text when it reads as such, else a table of beats.
    @Test func aTxtReferenceIsRdannTextOrATable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rdann-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rdann = directory.appendingPathComponent("ref.txt").path
        try "      Time   Sample #  Type  Sub Chan  Num\tAux\n    0:00.100       36     N    0    0    0\n    0:00.500      180     +    0    0    0\t(AFIB\n    0:00.900      324     V    0    0    0\n"
            .write(toFile: rdann, atomically: true, encoding: .utf8)
        #expect(try BeatReference.read(path: rdann, sampleRate: 360) == [36, 324])
        let table = directory.appendingPathComponent("beats.txt").path
        try "sample\n36\n324\n".write(toFile: table, atomically: true, encoding: .utf8)
        #expect(try BeatReference.read(path: table, sampleRate: 360) == [36, 324])
    }

    @Test func rdannDamageNamesTheLine() throws {
        let text = "Elapsed time  Sample #  Type  Sub Chan  Num\tAux\n    0:00.120       30     N    0    0    0\n    0:00.900      200     Z    0    0    0\n"
        #expect(throws: ECGError(file: "x.txt", location: .line(3), "expected an annotation mnemonic (N, V, A, +, …), found \"Z\"")) {
            try WFDBAnnotationText.parse(Array(text.utf8), file: "x.txt")
        }
        let backwards = "    0:00.900      200     N    0    0    0\n    0:00.120       30     N    0    0    0\n"
        #expect(throws: ECGError(file: "x.txt", location: .line(2), "sample 30 comes after 200: expected times in order")) {
            try WFDBAnnotationText.parse(Array(backwards.utf8), file: "x.txt")
        }
    }

    /// A binary annotation file is not mistaken for text.
    @Test func binaryAnnotationsAreNotText() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.directory + "/mitdb-100/100.atr")))
        #expect(!WFDBAnnotationText.isText(bytes))
        #expect(try WFDBAnnotationReader.read(contents: bytes, file: "100.atr").filter(\.isBeat).count == 2273)
    }

    /// ann2rr's lines keep the record's clock: beats at the printed sample numbers, the rate (250 Hz)
    /// from interval and samples.
    @Test func ann2rrStartIntervalEndKeepsTheRecordClock() throws {
        let path = Self.directory + "qrs04015-15min.txt"
        let rows = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t") }
        let list = try BeatListFile.readIntervals(path: path)
        #expect(list.sampleRate == 250)
        #expect(list.samples.count == rows.count + 1)
        #expect(list.samples.first == Int(rows[0][0]) && list.samples.last == Int(rows.last![2]))
        for (index, row) in rows.enumerated() { #expect(list.samples[index + 1] == Int(row[2])) }
    }

    @Test func ann2rrWithADisagreeingLineNamesIt() throws {
        let text = "0\t0.244\t61\n61\t0.556\t200\n200\t0.632\t400\n"
        #expect(throws: ECGError(file: "x.txt", location: .line(3), "interval 0.632 s does not match samples 200 to 400 at the file's 250 Hz")) {
            try BeatListFile.parseIntervals(text, file: "x.txt")
        }
    }

    /// Three intervals per line that are not ann2rr's layout stay a row of intervals.
    @Test func threeIntervalsPerLineAreStillIntervals() throws {
        let list = try BeatListFile.parseIntervals("800 810 790\n805 795 800\n", file: "x.txt")
        #expect(list.sampleRate == 1000 && list.samples == [0, 800, 1610, 2400, 3205, 4000, 4800])
    }
}
