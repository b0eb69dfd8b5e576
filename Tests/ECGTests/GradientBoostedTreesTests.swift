import Foundation
import Testing
@testable import ECG

/// GradientBoostedTrees against LightGBM (the committed model's test vectors), against a hand-built
/// model whose every path is worked out below, and against malformed JSON.
@Suite struct GradientBoostedTreesTests {
    // MARK: (a) the committed verdict model reproduces LightGBM

    @Test func verdictModelReproducesLightGBMProbabilities() throws {
        let model = try GradientBoostedTrees(json: VerdictModelData.json)
        #expect(model.classNames == ["normal", "af", "other", "noisy"])
        #expect(model.treeCount % 4 == 0)
        #expect(model.testVectors.count >= 20)
        // the trainer includes rows with missing values
        #expect(model.testVectors.contains { $0.features.contains { $0.isNaN } })
        var probabilities: [Double] = []
        for vector in model.testVectors {
            model.probabilities(vector.features, into: &probabilities)
            for (swift, lightGBM) in zip(probabilities, vector.probabilities) {
                #expect(abs(swift - lightGBM) <= 1e-6, "\(vector.source): \(probabilities) vs LightGBM \(vector.probabilities)")
            }
        }
    }

    @Test func ventricularBeatModelReproducesLightGBMProbabilities() throws {
        let model = try GradientBoostedTrees(json: VentricularBeatModelData.json)
        #expect(model.classNames == ["ventricular"])
        #expect(model.featureNames == VentricularBeatModel.modelFeatureNames)
        #expect(VentricularBeatModel.committed != nil)
        #expect(model.testVectors.count >= 15)
        #expect(model.testVectors.contains { $0.features.allSatisfy(\.isNaN) })
        var probability: [Double] = []
        for vector in model.testVectors {
            model.probabilities(vector.features, into: &probability)
            #expect(probability.count == 1)
            #expect(abs(probability[0] - vector.probabilities[0]) <= 1e-9,
                    "\(vector.source): \(probability[0]) vs LightGBM \(vector.probabilities[0])")
        }
        // the threshold it was cross-validated at separates some test rows (not all on one side)
        let above = model.testVectors.filter { model.probabilities($0.features)[0] > VentricularBeatModelData.threshold }
        #expect(!above.isEmpty && above.count < model.testVectors.count)
    }

    /// One class name: a binary model, its one sum through the logistic function (LightGBM's
    /// `binary` objective with sigmoid 1): leaves 0.5 and -2.0 give 1/(1+e^-0.5) and 1/(1+e^2).
    @Test func binaryModelIsTheLogisticOfItsScore() throws {
        let json = """
            {"format":"tscope-gradient-boosted-trees/1","featureNames":["x"],"classNames":["yes"],"trees":[
             {"feature":[0],"threshold":[1.0],"defaultLeft":[0],"missingType":[2],"left":[-1],"right":[-2],"leaf":[0.5,-2.0]}]}
            """
        let model = try GradientBoostedTrees(json: json)
        #expect(abs(model.probabilities([0.3])[0] - 1 / (1 + exp(-0.5))) < 1e-15)
        #expect(abs(model.probabilities([4])[0] - 1 / (1 + exp(2.0))) < 1e-15)
        // NaN at a NaN split with default right
        #expect(abs(model.probabilities([.nan])[0] - 1 / (1 + exp(2.0))) < 1e-15)
    }

    // MARK: (b) a hand-built two-tree model

    /// Two classes, one tree each, features x0 and x1. The expected raw scores below were confirmed
    /// with LightGBM 4.7.0 itself: the same trees as a LightGBM model text, `predict(raw_score=True)`.
    ///
    ///     tree 0 (class 0): split 0: x0 <= 1.5, missing NaN, default left → split 1 | leaf 2 (3.0)
    ///                       split 1: x1 <= 0.25, missing Zero, default left if zeroDefaultLeft
    ///                                → leaf 0 (-1.0) | leaf 1 (2.0)
    ///     tree 1 (class 1): split 0: x1 <= -0.5, missing None (default left, unused) → leaf 0 (0.5) | split 1
    ///                       split 1: x0 <= 10, missing NaN, default right → leaf 1 (1.25) | leaf 2 (-0.75)
    static func tinyModelJSON(zeroDefaultLeft: Bool = false) -> String {
        """
        {"format":"tscope-gradient-boosted-trees/1","featureNames":["x0","x1"],"classNames":["first","second"],
         "trees":[
          {"feature":[0,1],"threshold":[1.5,0.25],"defaultLeft":[1,\(zeroDefaultLeft ? 1 : 0)],"missingType":[2,1],
           "left":[1,-1],"right":[-3,-2],"leaf":[-1.0,2.0,3.0]},
          {"feature":[1,0],"threshold":[-0.5,10],"defaultLeft":[1,0],"missingType":[0,2],
           "left":[-1,-2],"right":[1,-3],"leaf":[0.5,1.25,-0.75]}
         ]}
        """
    }

    struct TinyCase: Sendable, CustomTestStringConvertible {
        var features: [Double]
        var rawScores: [Double]
        var why: String
        var testDescription: String { why }
    }

    static let tinyCases: [TinyCase] = [
        TinyCase(features: [1.0, 1.0], rawScores: [2.0, 1.25], why: "no missing values: plain <= comparisons"),
        TinyCase(features: [1.5, 0.25], rawScores: [-1.0, 1.25], why: "equal to the thresholds goes left"),
        TinyCase(features: [-3.0, -1.0], rawScores: [-1.0, 0.5], why: "below both thresholds"),
        TinyCase(features: [.nan, 0.0], rawScores: [2.0, -0.75],
                 why: "NaN at NaN splits goes default (left in tree 0, right in tree 1); 0 at the Zero split default right"),
        TinyCase(features: [1.0, .nan], rawScores: [2.0, 1.25],
                 why: "NaN at the Zero split is zero, so default right; NaN at the None split compares as 0 (right, not default left)"),
        TinyCase(features: [2.0, .nan], rawScores: [3.0, 1.25], why: "NaN at the None split compares as 0 > -0.5"),
        TinyCase(features: [11.0, 1e-40], rawScores: [3.0, -0.75], why: "above the thresholds; 1e-40 is 0 to LightGBM"),
        TinyCase(features: [0.0, 1e-40], rawScores: [2.0, 1.25], why: "1e-40 at the Zero split is zero: default right, though 1e-40 <= 0.25"),
        TinyCase(features: [0.0, -1e-40], rawScores: [2.0, 1.25], why: "-1e-40 too"),
        TinyCase(features: [0.0, 2e-35], rawScores: [-1.0, 1.25], why: "2e-35 is above LightGBM's zero threshold (1e-35): compared, left"),
    ]

    @Test(arguments: tinyCases)
    func tinyModelFollowsLightGBMDecisionRules(_ tinyCase: TinyCase) throws {
        let model = try GradientBoostedTrees(json: Self.tinyModelJSON())
        var scores: [Double] = []
        model.rawScores(tinyCase.features, into: &scores)
        #expect(scores == tinyCase.rawScores)
        let expected = Self.softmax(tinyCase.rawScores)
        let probabilities = model.probabilities(tinyCase.features)
        for (actual, wanted) in zip(probabilities, expected) {
            #expect(abs(actual - wanted) <= 1e-15)
        }
        #expect(abs(probabilities.reduce(0, +) - 1) <= 1e-15)
    }

    @Test func zeroSplitWithDefaultLeftSendsZeroAndNaNLeft() throws {
        let model = try GradientBoostedTrees(json: Self.tinyModelJSON(zeroDefaultLeft: true))
        var scores: [Double] = []
        for x1 in [0.0, .nan, 1e-40] {
            model.rawScores([1.0, x1], into: &scores)
            #expect(scores[0] == -1.0, "x1 = \(x1)")
        }
        model.rawScores([1.0, 1.0], into: &scores)
        #expect(scores[0] == 2.0, "a present non-zero value is compared: 1 > 0.25")
    }

    @Test func singleLeafTreesAddTheirValue() throws {
        let json = """
            {"format":"tscope-gradient-boosted-trees/1","featureNames":["x"],"classNames":["a","b"],"trees":[
             {"feature":[],"threshold":[],"defaultLeft":[],"missingType":[],"left":[],"right":[],"leaf":[0.25]},
             {"feature":[0],"threshold":[0],"defaultLeft":[0],"missingType":[2],"left":[-1],"right":[-2],"leaf":[1,2]},
             {"feature":[],"threshold":[],"defaultLeft":[],"missingType":[],"left":[],"right":[],"leaf":[-0.5]},
             {"feature":[],"threshold":[],"defaultLeft":[],"missingType":[],"left":[],"right":[],"leaf":[0.125]}]}
            """
        let model = try GradientBoostedTrees(json: json)
        var scores: [Double] = []
        model.rawScores([-1], into: &scores)
        #expect(scores == [0.25 - 0.5, 1 + 0.125])
        model.rawScores([.nan], into: &scores)
        #expect(scores == [0.25 - 0.5, 2 + 0.125])
    }

    static func softmax(_ scores: [Double]) -> [Double] {
        let largest = scores.max() ?? 0
        let exponentials = scores.map { exp($0 - largest) }
        let total = exponentials.reduce(0, +)
        return exponentials.map { $0 / total }
    }

    // MARK: (c) malformed JSON throws, never crashes

    static let validTree = #"{"feature":[0],"threshold":[0.5],"defaultLeft":[1],"missingType":[2],"left":[-1],"right":[-2],"leaf":[1,2]}"#

    static func model(trees: [String], features: String = #"["x"]"#, format: String = "tscope-gradient-boosted-trees/1") -> String {
        #"{"format":"\#(format)","featureNames":\#(features),"classNames":["a","b"],"trees":[\#(trees.joined(separator: ","))]}"#
    }

    static let malformed: [(json: String, mentions: String)] = [
        ("", "unreadable JSON"),
        ("not json", "unreadable JSON"),
        ("[1, 2, 3]", "unreadable JSON"),
        ("{}", "format"),
        (#"{"format":"tscope-gradient-boosted-trees/1","featureNames":["x"],"classNames":["a","b"]}"#, "trees"),
        (model(trees: [validTree, validTree]).replacingOccurrences(of: #""threshold":[0.5]"#, with: #""threshold":["high"]"#),
         "threshold"),
        (model(trees: [validTree, validTree]).replacingOccurrences(of: "]}]}", with: "]}"), "unreadable JSON"),
        (model(trees: [validTree, validTree], format: "lightgbm"), "format"),
        (model(trees: [validTree]), "multiple"),
        (model(trees: []), "multiple"),
        (model(trees: [validTree, validTree], features: "[]"), "no feature names"),
        (model(trees: [validTree]).replacingOccurrences(of: #""classNames":["a","b"]"#, with: #""classNames":[]"#),
         "no class names"),
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""feature":[0]"#, with: #""feature":[3]"#)]),
         "feature 3"),
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""feature":[0]"#, with: #""feature":[-1]"#)]),
         "feature -1"),
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""missingType":[2]"#, with: #""missingType":[7]"#)]),
         "missingType"),
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""defaultLeft":[1]"#, with: #""defaultLeft":[2]"#)]),
         "defaultLeft"),
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""leaf":[1,2]"#, with: #""leaf":[1]"#)]),
         "leaves"),
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""left":[-1]"#, with: #""left":[-2]"#)]),
         "reached twice"),
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""left":[-1]"#, with: #""left":[-5]"#)]),
         "leaf 4"),
        // a split that is its own child would never end: refused
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""left":[-1]"#, with: #""left":[0]"#)]),
         "after their parent"),
        (model(trees: [validTree, validTree.replacingOccurrences(of: #""right":[-2]"#, with: #""right":[-2,-1]"#)]),
         "differ in length"),
        (String(model(trees: [validTree, validTree]).dropLast())
            + #","testVectors":[{"source":"s","features":[1,2],"probabilities":[0.5,0.5]}]}"#,
         "test vector"),
    ]

    @Test func malformedJSONThrowsAClearError() throws {
        // the cases' base model itself is valid
        _ = try GradientBoostedTrees(json: Self.model(trees: [Self.validTree, Self.validTree]))
        for (json, mentions) in Self.malformed {
            do {
                _ = try GradientBoostedTrees(json: json)
                Issue.record("accepted: \(json)")
            } catch {
                let message = String(describing: error)
                #expect(message.contains(mentions), "\(message) should mention \(mentions)")
            }
        }
    }
}
