import Foundation
import Testing
@testable import ECG

/// Records whose signals have several samples per frame (`212x4`) and
/// annotation files with their own time resolution, on the real MIMIC record.
@Suite struct WFDBMultiRateTests {
    static let mimic = Fixture.directory + "/mimicdb-03700181/03700181"

    @Test func headerReadsSamplesPerFrameAndSkew() throws {
        let text = try String(contentsOfFile: Self.mimic + ".hea", encoding: .utf8)
        let header = try WFDBHeader.parse(text, file: "03700181.hea")
        #expect(header.sampleRate == 125)
        #expect(header.sampleCount == 75_000)
        #expect(header.signals.map(\.samplesPerFrame) == [4, 1, 1])
        #expect(header.signals.map(\.skew) == [0, 0, 4])
        #expect(header.signals.map { $0.sampleRate(frameRate: header.sampleRate) } == [500, 125, 125])
    }

    @Test func badSamplesPerFrameNameTheLine() {
        #expect(throws: ECGError(file: "r.hea", location: .line(2),
                                 "expected 1 to 4096 samples per frame after \"x\" in \"212x0\"")) {
            try WFDBHeader.parse("r 1 125\nr.dat 212x0 200\n", file: "r.hea")
        }
        #expect(throws: ECGError.self) { try WFDBHeader.parse("r 1 125\nr.dat 16x 200\n", file: "r.hea") }
    }

    @Test func everySignalKeepsItsOwnRate() throws {
        let recording = try WFDBRecordReader.readRecording(path: Self.mimic)
        #expect(recording.labels == ["MCL1", "ABP", "RESP"])
        #expect(recording.signals.map(\.sampleRate) == [500, 125, 125])
        #expect(recording.signals.map(\.digital.count) == [300_000, 75_000, 75_000])
        // the header's initial values are the first stored samples of MCL1 and ABP
        #expect(recording.signals[0].digital[0] == 67)
        #expect(recording.signals[1].digital[0] == -943)
        // ABP: raw −1386…−781 with baseline −1605 at 12.84 adu/mmHg is 17–64 mmHg (shared/data/README)
        let abp = recording.signals[1].digital.filter { $0 != recording.signals[1].missingValue }
        #expect(abp.min() == -1386 && abp.max() == -781)
        let pressure = recording.signals[1].millivolts.filter(\.isFinite)
        #expect(abs(Double(pressure.min()!) - 17.06) < 0.01 && abs(Double(pressure.max()!) - 64.17) < 0.01)
        // RESP is skewed by 4 frames: its first stored value (the header's −304) was 4 frames early
        #expect(recording.signals[2].digital.suffix(4).allSatisfy { $0 == recording.signals[2].missingValue })
    }

    @Test func theChosenLeadPlaysAtItsOwnRate() throws {
        let recording = try WFDBRecordReader.readRecording(path: Self.mimic)
        let ecg = try recording.record(lead: nil, file: "m")
        #expect(ecg.record.sampleRate == 500 && ecg.record.leadNames == ["MCL1"] && ecg.lead == 0)
        #expect(ecg.record.frameCount == 300_000)
        #expect(ecg.otherRates == ["ABP (125 Hz)", "RESP (125 Hz)"])
        // 67 adu / 2963.77 adu/mV
        #expect(abs(Double(ecg.record.samples[0][0]) - 67 / 2963.77) < 1e-6)
        let pressure = try recording.record(lead: LeadSelector("ABP"), file: "m")
        #expect(pressure.record.sampleRate == 125 && pressure.record.leadNames == ["ABP", "RESP"] && pressure.lead == 0)
        let resp = try recording.record(lead: LeadSelector("2"), file: "m")
        #expect(resp.lead == 1 && resp.record.leadNames[resp.lead] == "RESP")
        #expect(throws: ECGError(file: "m", "no lead \"abp\": the leads are 0 \"MCL1\", 1 \"ABP\", 2 \"RESP\"")) {
            try recording.record(lead: LeadSelector("abp"), file: "m")
        }
    }

    @Test func annotationTimeResolutionsAgreeInSeconds() throws {
        // three detectors in three time bases: 500 Hz (note), 125 Hz frames (no note), 250 Hz (note)
        let high = try WFDBRecordReader.readAnnotationTimes(recordPath: Self.mimic, annotator: "gqrsh")
        let frames = try WFDBRecordReader.readAnnotationTimes(recordPath: Self.mimic, annotator: "gqrsl")
        let sqrs = try WFDBRecordReader.readAnnotationTimes(recordPath: Self.mimic, annotator: "sqrs")
        #expect(high.filter(\.isBeat).count == 1150)
        #expect(frames.filter(\.isBeat).count == 1117)
        #expect(sqrs.filter(\.isBeat).count == 1195)
        #expect(!high.contains { $0.text.hasPrefix("## time resolution") }, "the note is file metadata")
        // all end inside the 600 s record
        for list in [high, frames, sqrs] { #expect(list.last!.onset > 590 && list.last!.onset < 600) }
        // the same beats, found by different detectors, lie within 100 ms of each other
        // (read in the wrong time base, almost none would)
        let rate = 500.0, window = Int(0.1 * rate)
        let beats = { (list: [ECGAnnotation]) in list.filter(\.isBeat).map { Int(($0.onset * rate).rounded()) } }
        for other in [frames, sqrs] {
            let score = BeatScore(reference: beats(high), detections: beats(other), window: window)
            #expect(score.sensitivity > 0.9, "\(score)")
        }
    }

    @Test func theDetectorOnTheFiveHundredHertzLeadMatchesGqrs() throws {
        let recording = try WFDBRecordReader.readRecording(path: Self.mimic, annotator: "gqrsh")
        let (record, lead, _) = try recording.record(lead: LeadSelector("MCL1"), file: "m")
        let detections = QRSDetector.detect(record.samples[lead], sampleRate: record.sampleRate)
        let score = BeatScore(reference: recording.beatSamples(atRate: record.sampleRate), detections: detections,
                              window: Int(0.15 * record.sampleRate))
        #expect(score.sensitivity > 0.99, "\(score)")
    }

    @Test func decoderInterleavesSeveralSamplesPerFrame() throws {
        // frame = a0 a1 a2 b0: signal a at 3× the frame rate, b at 1×
        let values: [Int16] = [1, 2, 3, -1, 4, 5, 6, -2]
        let bytes = WFDBSignalTests.encode16(values)
        let decoded = try bytes.withUnsafeBytes {
            try WFDBSignalDecoder.decode($0, format: 16, samplesPerFrame: [3, 1], byteOffset: 0, frameCount: 2, file: "t.dat")
        }
        #expect(decoded == [[1, 2, 3, 4, 5, 6], [-1, -2]])
        let packed = WFDBSignalTests.encode212(values)
        let decoded212 = try packed.withUnsafeBytes {
            try WFDBSignalDecoder.decode($0, format: 212, samplesPerFrame: [3, 1], byteOffset: 0, frameCount: nil, file: "t.dat")
        }
        #expect(decoded212 == decoded)
        #expect(throws: ECGError(file: "t.dat", location: .byte(16), "data ends after 2 of the 3 frames the header declares")) {
            try bytes.withUnsafeBytes {
                try WFDBSignalDecoder.decode($0, format: 16, samplesPerFrame: [3, 1], byteOffset: 0, frameCount: 3, file: "t.dat")
            }
        }
    }
}
