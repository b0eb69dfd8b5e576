import Foundation
import Testing
@testable import ECG

/// The learnt V decision's bookkeeping with a hand-built model: which row it reads for a beat's
/// neighbours, what it does to the rules' classes, and that Q beats keep their place in time.
@Suite struct VentricularBeatModelTests {
    /// One tree over the 36 model features: `split` (a feature's index) ≤ 0.5 gives P(V) =
    /// 1/(1+e^-5) ≈ 0.993, above it 1/(1+e^5) ≈ 0.007.
    static func model(splittingOn split: Int) throws -> GradientBoostedTrees {
        let names = VentricularBeatModel.modelFeatureNames.map { "\"\($0)\"" }.joined(separator: ",")
        return try GradientBoostedTrees(json: """
            {"format":"tscope-gradient-boosted-trees/1","featureNames":[\(names)],"classNames":["ventricular"],
             "trees":[{"feature":[\(split)],"threshold":[0.5],"defaultLeft":[0],"missingType":[2],
                       "left":[-1],"right":[-2],"leaf":[5.0,-5.0]}]}
            """)
    }

    /// a row whose correlation (feature 0) is `correlation`, every other measure 1
    static func row(correlation: Double) -> [Double] {
        var row = [Double](repeating: 1, count: BeatClassifier.featureNames.count)
        row[0] = correlation
        return row
    }

    @Test func ownRowDecidesAndTheRulesClassOtherwiseStands() throws {
        let labeller = try #require(VentricularBeatModel(trees: Self.model(splittingOn: 0), threshold: 0.5))
        var decided: [ClassifiedBeat] = []
        let input: [(BeatClass, Double)] = [(.normal, 0.95), (.normal, 0.2), (.ventricular, 0.9),
                                            (.supraventricular, 0.9), (.supraventricular, 0.1)]
        for (index, (rule, correlation)) in input.enumerated() {
            labeller.add(ClassifiedBeat(sample: 100 * index, beatClass: rule), row: Self.row(correlation: correlation),
                         decided: &decided)
            // a beat waits for the next classifiable one
            #expect(decided.count == index)
        }
        labeller.finish(decided: &decided)
        #expect(decided.map(\.beatClass) == [.normal, .ventricular, .normal, .supraventricular, .ventricular])
        #expect(decided.map(\.sample) == [0, 100, 200, 300, 400])
    }

    @Test func neighboursAreThePreviousAndNextClassifiableBeats() throws {
        // split on prev_correlation: a beat is V when the classifiable beat before it had correlation ≤ 0.5
        let previous = try #require(VentricularBeatModel.modelFeatureNames.firstIndex(of: "prev_correlation"))
        let labeller = try #require(VentricularBeatModel(trees: Self.model(splittingOn: previous), threshold: 0.5))
        var decided: [ClassifiedBeat] = []
        labeller.add(ClassifiedBeat(sample: 0, beatClass: .normal), row: Self.row(correlation: 0.1), decided: &decided)
        // a Q beat between: no row, passed over by the neighbours, kept in its place
        labeller.add(ClassifiedBeat(sample: 100, beatClass: .unclassifiable), row: nil, decided: &decided)
        labeller.add(ClassifiedBeat(sample: 200, beatClass: .normal), row: Self.row(correlation: 0.9), decided: &decided)
        labeller.add(ClassifiedBeat(sample: 300, beatClass: .normal), row: Self.row(correlation: 0.9), decided: &decided)
        labeller.finish(decided: &decided)
        #expect(decided.map(\.sample) == [0, 100, 200, 300])
        // beat 0 has no previous (NaN goes right: not V); beat 200's previous classifiable beat is 0
        #expect(decided.map(\.beatClass) == [.normal, .unclassifiable, .ventricular, .normal])

        let next = try #require(VentricularBeatModel.modelFeatureNames.firstIndex(of: "next_correlation"))
        let ahead = try #require(VentricularBeatModel(trees: Self.model(splittingOn: next), threshold: 0.5))
        decided.removeAll()
        ahead.add(ClassifiedBeat(sample: 0, beatClass: .unclassifiable), row: nil, decided: &decided)
        // a Q beat before any classifiable one goes straight out
        #expect(decided.map(\.sample) == [0])
        ahead.add(ClassifiedBeat(sample: 100, beatClass: .normal), row: Self.row(correlation: 0.9), decided: &decided)
        ahead.add(ClassifiedBeat(sample: 200, beatClass: .unclassifiable), row: nil, decided: &decided)
        ahead.add(ClassifiedBeat(sample: 300, beatClass: .normal), row: Self.row(correlation: 0.2), decided: &decided)
        #expect(decided.map(\.sample) == [0, 100, 200])
        ahead.finish(decided: &decided)
        #expect(decided.map(\.beatClass) == [.unclassifiable, .ventricular, .unclassifiable, .normal])
    }

    @Test func aModelForOtherFeaturesIsNotTaken() throws {
        let other = try GradientBoostedTrees(json: """
            {"format":"tscope-gradient-boosted-trees/1","featureNames":["x"],"classNames":["ventricular"],
             "trees":[{"feature":[],"threshold":[],"defaultLeft":[],"missingType":[],"left":[],"right":[],"leaf":[1.0]}]}
            """)
        #expect(VentricularBeatModel(trees: other) == nil)
    }

    /// The whole classifier on a real record with and without the learnt decision: the learnt one
    /// labels two beats late, so the same beats come out in the same order.
    @Test func learntAndRulesLabelTheSameBeatsOfRecord119() throws {
        let record = try WFDBRecordReader.read(path: Fixture.directory + "/mitdb-119/119")
        var filtered = Array(record.samples[0].prefix(Int(120 * record.sampleRate)))
        let beats = QRSDetector.detect(filtered, sampleRate: record.sampleRate)
        let chain = ECGFilterChain.standard(sampleRate: record.sampleRate, mains: nil)
        filtered.withUnsafeMutableBufferPointer { chain.process($0) }
        let learnt = BeatClassifier.classify(filtered, beats: beats, sampleRate: record.sampleRate)
        let rules = BeatClassifier.classify(filtered, beats: beats, sampleRate: record.sampleRate,
                                            beatModel: .rulesAlone)
        #expect(learnt.map(\.sample) == rules.map(\.sample))
        #expect(learnt.count == beats.count)
        // uniform PVCs: both find the reference's V beats of these two minutes
        let reference = try BeatClassAndAFOnRealRecordsTests.reference(Fixture.directory + "/mitdb-119/119")
            .filter { $0.sample < filtered.count }
        for (name, classes) in [("learnt", learnt), ("rules", rules)] {
            let score = BeatClassScore(target: .ventricular, reference: reference, detections: classes,
                                       window: Int(0.15 * record.sampleRate))
            #expect(score.truePositives >= 20 && score.sensitivity >= 0.95 && score.positivePredictivity >= 0.95,
                    "\(name): \(score)")
        }
    }
}
