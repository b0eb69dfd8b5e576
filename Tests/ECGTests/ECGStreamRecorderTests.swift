import Foundation
import Testing
@testable import ECG

/// `ECGStreamRecorder` (`--record`): the files read while they are written,
/// and after `finish`, in both formats, two leads, a gap marked.
@Suite struct ECGStreamRecorderTests {
    /// 2.5 s of two leads at 250 Hz: a ramp in mV and its negative.
    static func chunk(from start: Int, count: Int) -> [[Float]] {
        let first = (start..<start + count).map { Float($0 % 1000) / 500 }
        return [first, first.map { -$0 }]
    }

    @Test func edfReadsWhileWrittenAndAfterFinish() throws {
        let path = try Fixture.temporaryDirectory() + "/live.edf"
        let recorder = try ECGStreamRecorder(path: path, sampleRate: 250, leadNames: ["I", "II"])
        try recorder.append(Self.chunk(from: 0, count: 400), count: 400)
        try recorder.markGap(seconds: 4.2)
        try recorder.append(Self.chunk(from: 400, count: 225), count: 225)
        // while writing: the header says −1 records, the 2 complete ones read
        let live = try EDFReader.read(path: path)
        #expect(live.signals.map { $0.digital.count } == [500, 500])
        let gap = live.annotations.first { $0.text == "link lost 4.2 s" }
        #expect(gap.map { abs($0.onset - 1.6) < 1e-9 && $0.duration == 4.2 } == true, "\(live.annotations)")
        try recorder.finish()
        let done = try EDFReader.read(path: path)
        #expect(done.notes.isEmpty, "\(done.notes)")
        #expect(done.labels == ["I", "II"] && done.signals.map { $0.digital.count } == [625, 625])
        let expected = Self.chunk(from: 0, count: 625)
        for (signal, values) in zip(done.signals, expected) {
            for (index, value) in values.enumerated() {
                #expect(abs((Double(signal.digital[index]) - signal.baseline) / signal.gain - Double(value)) < 0.0011)
            }
        }
    }

    @Test func wfdbReadsWhileWrittenAndAfterFinish() throws {
        let path = try Fixture.temporaryDirectory() + "/live.hea"
        let recorder = try ECGStreamRecorder(path: path, sampleRate: 250, leadNames: ["I", "II"])
        try recorder.append(Self.chunk(from: 0, count: 300), count: 300)
        try recorder.markGap(seconds: 1.5)
        let live = try WFDBRecordReader.readRecording(path: path)
        #expect(live.signals.map { $0.digital.count } == [300, 300])
        let gap = live.annotations.first { $0.text == "link lost 1.5 s" }
        #expect(gap.map { abs($0.onset - 1.2) < 1e-9 } == true, "\(live.annotations)")
        try recorder.append(Self.chunk(from: 300, count: 325), count: 325)
        try recorder.finish()
        let header = try String(contentsOfFile: path, encoding: .utf8)
        #expect(header.hasPrefix("live 2 250 625\n") && header.contains("# link lost 1.5 s at 1.200 s"), "\(header)")
        let done = try WFDBRecordReader.readRecording(path: path, strict: true)
        #expect(done.labels == ["I", "II"] && done.signals.map { $0.digital.count } == [625, 625])
        #expect(done.signals[0].digital[374] == 748 && done.signals[1].digital[374] == -748)
    }

    @Test func aPathThatCannotBeWrittenOrAnUnknownExtensionFailsAtOnce() throws {
        let directory = try Fixture.temporaryDirectory()
        #expect(throws: ECGError.self) { try ECGStreamRecorder.checkWritable(directory + "/no/x.edf") }
        #expect(throws: ECGError.self) { try ECGStreamRecorder.checkWritable(directory + "/x.csv") }
        #expect(ECGStreamRecorder.format(of: "a.EDF") == .edf && ECGStreamRecorder.format(of: "a.dat") == .wfdb)
    }
}
