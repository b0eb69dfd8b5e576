import Testing
@testable import ECG

@Suite struct BeatFilesTests {
    /// Increments over 1023 samples go through a SKIP; the reader gives back every beat.
    @Test func wfdbAnnotationsRoundTripWithLongIntervals() throws {
        let beats = [0, 5, 1023, 1024, 3000, 70_000, 70_001, 5_000_000]
        let bytes = BeatAnnotationWriter.wfdb(beats: beats)
        let read = try bytes.withUnsafeBytes { try WFDBAnnotationReader.read($0, file: "x.qrs") }
        #expect(read.map(\.sample) == beats)
        #expect(read.allSatisfy { $0.code == 1 && $0.isBeat })
        #expect(bytes.suffix(2) == [0, 0])
    }

    @Test func csvReferencesBySampleTimeOrBareColumn() throws {
        #expect(try BeatReference.parseCSV("sample,time,type\n10,0.0278,N\n20,0.0556,+\n30,0.0833,V\n", file: "r.csv", sampleRate: 360) == [10, 30])
        #expect(try BeatReference.parseCSV("time_ms\n1000\n2000.5\n", file: "r.csv", sampleRate: 250) == [250, 500])
        #expect(try BeatReference.parseCSV("720\n360\n", file: "r.csv", sampleRate: 360) == [360, 720])
        #expect(try BeatReference.parseCSV("1.0\n2.5\n", file: "r.csv", sampleRate: 100) == [100, 250])
    }

    @Test(arguments: [
        ("sample\n10\nx\n", "r.csv:3: expected a sample index or a time in column 1, found \"x\""),
        ("beat,label\n1,N\n", "r.csv:1: expected a `sample` or a `time` column in the header, found beat,label"),
        ("# nothing\n", "r.csv: no reference beats in the file"),
        ("-5\n", "r.csv:1: beat at -5.0 is outside the record"),
    ])
    func badReferencesAreOneLine(text: String, message: String) {
        do {
            _ = try BeatReference.parseCSV(text, file: "r.csv", sampleRate: 100)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)" == message)
        }
    }
}
