import Foundation
import Testing
@testable import ECG

/// `RecordingClassifier`'s second look: when the model is unsure of a recording, its verdict is the mean
/// over the whole and three half-length parts, cut where Tools/make-ecg-crops cut the training crops.
@Suite struct RecordingClassifierTests {
    static func cinc(_ name: String) throws -> [Float] {
        try WFDBRecordReader.readRecording(path: Fixture.directory + "/cinc2017-validation/" + name).signals[0].millivolts
    }

    /// the model's probabilities for one stretch of signal, judged alone
    static func probabilities(_ samples: ArraySlice<Float>) throws -> [Double] {
        let model = try #require(RecordingClassifier.model)
        let analysis = RhythmAnalysis.analyze(Array(samples), sampleRate: 300, detector: RecordingClassifier.standardDetector,
                                              mains: 50)
        return model.probabilities(RecordingFeatures(analysis).values)
    }

    /// A00234 (labelled normal; fixtures README): the model is unsure of the whole, so the parts at samples
    /// 0, 2250 and 4500 (4500 long: make-ecg-crops' crops 0, 2 and 4 of five of a 9000-sample recording)
    /// are judged too, and the verdict's probabilities are the four's mean.
    @Test func anUnsureRecordingIsJudgedWithItsParts() throws {
        let samples = try Self.cinc("A00234")
        #expect(samples.count == 9000)
        let assessment = RecordingClassifier.assess(samples, sampleRate: 300)
        #expect(assessment.partsJudged == 3)
        let model = try #require(RecordingClassifier.model)

        let whole = try Self.probabilities(samples[...])
        let sorted = whole.sorted()
        #expect(sorted[3] - sorted[2] < RecordingClassifier.secondLookMargin, "\(whole)")
        var mean = whole
        for start in [0, 2250, 4500] {
            let part = try Self.probabilities(samples[start..<(start + 4500)])
            for index in mean.indices { mean[index] += part[index] }
        }
        mean = mean.map { $0 / 4 }
        for (index, name) in model.classNames.enumerated() {
            let verdict = try #require(RecordingVerdict(label: name))
            #expect(assessment.probabilities[verdict] == mean[index], "\(name): \(assessment.probabilities) against \(mean)")
        }
        let best = try #require(mean.indices.max { mean[$0] < mean[$1] })
        #expect(assessment.verdict == RecordingVerdict(label: model.classNames[best]))
        #expect(assessment.reasons.last?.contains("3 half-length parts") == true, "\(assessment.reasons)")
    }

    /// A00001 (normal, sure) keeps the whole's verdict alone; a recording too short for 9 s parts is never
    /// given a second look, however unsure.
    @Test func aSureOrShortRecordingIsJudgedWhole() throws {
        let sure = RecordingClassifier.assess(try Self.cinc("A00001"), sampleRate: 300)
        #expect(sure.partsJudged == 0 && sure.verdict == .normal)
        #expect(!sure.reasons.contains { $0.contains("half-length parts") })

        let samples = try Self.cinc("A00234")
        let short = Array(samples[0..<5399])  // parts of 2699 samples: under 9 s at 300 Hz
        let model = try #require(RecordingClassifier.model)
        var probabilities = [0.4, 0.3, 0.2, 0.1]  // unsure: 0.1 apart
        let unsure = RecordingClassifier.secondLook(short, sampleRate: 300, detector: RecordingClassifier.standardDetector,
                                                    mains: 50, model: model, probabilities: &probabilities)
        #expect(unsure == 0)
        var forced = [0.4, 0.3, 0.2, 0.1]
        let judged = RecordingClassifier.secondLook(Array(samples[0..<5400]), sampleRate: 300,
                                                    detector: RecordingClassifier.standardDetector, mains: 50,
                                                    model: model, probabilities: &forced)
        #expect(judged == 3, "5400 samples: parts of exactly 9 s")
        #expect(abs(forced.reduce(0, +) - 1) < 1e-9)
    }
}
