import Foundation
import Testing
@testable import ECG

/// RRAFDetector and RRRhythmFeatures against Tools/train-af-rr's Python reference on real beats
/// (Fixtures/rr-af/rr-af.json: an AFDB excerpt around an AF onset and an LTAFDB excerpt with dropped
/// beats; see its PROVENANCE.md), and the committed model against LightGBM's own predictions.
@Suite struct RRAFDetectorTests {
    struct FixtureFile: Decodable {
        struct Decision: Decodable {
            let smoothingSeconds: Int
            let on: Double
            let off: Double
        }

        struct Excerpt: Decodable {
            let source: String
            let sampleRate: Double
            let beats: [Int]
            let seconds: [Int]
            let features: [[Double]?]
            let probabilities: [Double?]
            let codes: [String]
            let heartRates: [Double?]
            let episodeOnsets: [Int?]
        }

        let format: String
        let featureNames: [String]
        let windowIntervals: Int
        let decision: Decision
        let excerpts: [Excerpt]
    }

    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/rr-af/rr-af.json").path

    static func readFixture() throws -> FixtureFile {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixturePath))
        return try JSONDecoder().decode(FixtureFile.self, from: data)
    }

    static func close(_ swift: Double, _ python: Double, relative: Double = 1e-9) -> Bool {
        swift == python || abs(swift - python) <= relative * max(abs(python), 1e-300)
    }

    @Test func committedModelMatchesTheCodeAndLightGBM() throws {
        #expect(RRAFDetector.committed != nil)
        let model = try GradientBoostedTrees(json: RRAFModelData.json)
        #expect(model.classNames == ["af"])
        #expect(model.featureNames == RRRhythmFeatures.featureNames)
        #expect(model.treeCount <= 150)
        #expect(model.testVectors.count >= 4)
        #expect(model.testVectors.contains { $0.features.contains { $0.isNaN } })
        var probability: [Double] = []
        for vector in model.testVectors {
            model.probabilities(vector.features, into: &probability)
            #expect(abs(probability[0] - vector.probabilities[0]) <= 1e-9,
                    "\(vector.source): \(probability[0]) vs LightGBM \(vector.probabilities[0])")
        }
    }

    @Test func fixtureWasMadeWithTheCommittedSettings() throws {
        let fixture = try Self.readFixture()
        #expect(fixture.format == "tscope-rr-af-fixture/1")
        #expect(fixture.featureNames == RRRhythmFeatures.featureNames)
        #expect(fixture.windowIntervals == RRAFModelData.windowIntervals)
        #expect(fixture.decision.smoothingSeconds == RRAFModelData.smoothingSeconds)
        #expect(fixture.decision.on == RRAFModelData.onThreshold)
        #expect(fixture.decision.off == RRAFModelData.offThreshold)
        #expect(fixture.excerpts.count == 2)
    }

    @Test func featuresProbabilitiesAndCodesEqualPython() throws {
        let fixture = try Self.readFixture()
        for excerpt in fixture.excerpts {
            let detector = RRAFDetector(sampleRate: excerpt.sampleRate)
            var next = 0
            var codes: [String] = []
            for (index, sample) in excerpt.seconds.enumerated() {
                while next < excerpt.beats.count && excerpt.beats[next] <= sample {
                    detector.addBeat(at: excerpt.beats[next])
                    next += 1
                }
                let second = detector.endOfSecond(at: sample)
                codes.append(second.code.rawValue)
                #expect(second.sample == sample)
                let where_ = "\(excerpt.source), second ending at \(sample)"
                switch (detector.lastFeatureRow, excerpt.features[index]) {
                case (nil, nil): break
                case let (swift?, python?):
                    #expect(swift.count == python.count)
                    for (name, (s, p)) in zip(RRRhythmFeatures.featureNames, zip(swift, python)) {
                        #expect(Self.close(s, p), "\(where_): \(name) \(s) vs Python \(p)")
                    }
                default:
                    let python = String(describing: excerpt.features[index])
                    Issue.record("\(where_): feature row \(String(describing: detector.lastFeatureRow)) vs Python \(python)")
                }
                switch (second.probability, excerpt.probabilities[index]) {
                case (nil, nil): break
                case let (s?, p?): #expect(abs(s - p) <= 1e-9, "\(where_): P(AF) \(s) vs LightGBM \(p)")
                default:
                    let python = String(describing: excerpt.probabilities[index])
                    Issue.record("\(where_): P(AF) \(String(describing: second.probability)) vs Python \(python)")
                }
                switch (second.heartRate, excerpt.heartRates[index]) {
                case (nil, nil): break
                case let (s?, p?): #expect(Self.close(s, p), "\(where_): heart rate \(s) vs \(p)")
                default: Issue.record("\(where_): heart rate presence differs")
                }
                #expect(second.code.rawValue == excerpt.codes[index], "\(where_): code")
                #expect(second.episodeOnset == excerpt.episodeOnsets[index], "\(where_): episode onset")
            }
            #expect(codes == excerpt.codes, "\(excerpt.source): the codes differ")
        }
    }

    @Test func fixtureCoversEveryCode() throws {
        let fixture = try Self.readFixture()
        let codes = Set(fixture.excerpts.flatMap(\.codes))
        #expect(codes == ["af", "notAF", "unreadable"])
        // the dropped-beat excerpt is never AF where its window is implausible
        #expect(fixture.excerpts[1].codes.contains("unreadable"))
    }

    @Test func resetForgetsEverything() throws {
        let fixture = try Self.readFixture()
        let excerpt = fixture.excerpts[0]
        let detector = RRAFDetector(sampleRate: excerpt.sampleRate)
        for beat in excerpt.beats.prefix(100) { detector.addBeat(at: beat) }
        _ = detector.endOfSecond(at: excerpt.beats[99])
        detector.reset()
        #expect(detector.lastFeatureRow == nil)
        let second = detector.endOfSecond(at: excerpt.beats[99] + 10)
        #expect(second.code == .unreadable && second.probability == nil && second.heartRate == nil)
    }

    @Test func regularRhythmIsNotAFAndAGapIsUnreadable() {
        let detector = RRAFDetector(sampleRate: 250)
        var beat = 0
        var last: RRSecond?
        for second in 1...120 {
            while beat + 200 <= second * 250 {  // 75 beats/min, perfectly regular
                beat += 200
                detector.addBeat(at: beat)
            }
            last = detector.endOfSecond(at: second * 250)
        }
        #expect(last?.code == .notAF)
        #expect(abs((last?.heartRate ?? 0) - 75) < 1e-9)
        // five seconds without a beat
        let gap = detector.endOfSecond(at: beat + 5 * 250)
        #expect(gap.code == .unreadable && gap.probability == nil)
    }
}
