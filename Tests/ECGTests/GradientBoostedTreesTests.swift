import Foundation
import Testing
@testable import ECG
import Signals

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

    /// Trees are walked four at a time, each for as many steps as the group's deepest tree: a deep
    /// tree beside shallow ones and single leaves, and trees after the last whole group walked alone.
    /// One class (a binary model), six trees on x0 and x1:
    ///
    ///     tree 0: x0 <= 0 → 1 | (x1 <= 0 → 2 | (x0 <= 5 → 4 | 8))     (depth 3)
    ///     tree 1: the single leaf 16
    ///     tree 2: x1 <= 1 → 32 | 64                                   (depth 1)
    ///     tree 3: the single leaf 128
    ///     tree 4: x0 <= 2 → 256 | 512   (after the group)
    ///     tree 5: the single leaf 1024  (after the group)
    @Test func treesOfMixedDepthsAreWalkedToTheirLeaves() throws {
        let leaf = #"{"feature":[],"threshold":[],"defaultLeft":[],"missingType":[],"left":[],"right":[],"leaf":[%@]}"#
        let json = """
            {"format":"tscope-gradient-boosted-trees/1","featureNames":["x0","x1"],"classNames":["yes"],"trees":[
             {"feature":[0,1,0],"threshold":[0,0,5],"defaultLeft":[1,1,1],"missingType":[2,2,2],
              "left":[-1,-2,-3],"right":[1,2,-4],"leaf":[1,2,4,8]},
             \(leaf.replacingOccurrences(of: "%@", with: "16")),
             {"feature":[1],"threshold":[1],"defaultLeft":[1],"missingType":[2],"left":[-1],"right":[-2],"leaf":[32,64]},
             \(leaf.replacingOccurrences(of: "%@", with: "128")),
             {"feature":[0],"threshold":[2],"defaultLeft":[1],"missingType":[2],"left":[-1],"right":[-2],"leaf":[256,512]},
             \(leaf.replacingOccurrences(of: "%@", with: "1024"))]}
            """
        let model = try GradientBoostedTrees(json: json)
        var scores: [Double] = []
        // (x0, x1) → tree 0's leaf, tree 2's, tree 4's; the single leaves always add 16 + 128 + 1024
        let cases: [(x0: Double, x1: Double, expected: Double)] = [
            (-1, 0, 1 + 32 + 256), (1, 0, 2 + 32 + 256), (3, 2, 4 + 64 + 512), (9, 2, 8 + 64 + 512),
            (.nan, .nan, 1 + 32 + 256),
        ]
        for (x0, x1, expected) in cases {
            model.rawScores([x0, x1], into: &scores)
            #expect(scores == [expected + 16 + 128 + 1024], "x0 \(x0), x1 \(x1)")
        }
    }

    /// The beat model's yes-or-no question, which stops once the trees left cannot change the
    /// answer, gives what the probability gives: on LightGBM's test rows, on rows altered from them
    /// (values scaled, some missing) and at thresholds on either side of each row's own probability.
    @Test func probabilityExceedsAnswersAsTheProbabilityDoes() throws {
        let model = try GradientBoostedTrees(json: VentricularBeatModelData.json)
        var random = SeededRandom(seed: 42)
        var rows = model.testVectors.map(\.features)
        for vector in model.testVectors {
            for _ in 0..<40 {
                rows.append(vector.features.map { value in
                    let draw = random.unit()
                    return draw < 0.05 ? .nan : value * (0.5 + 1.5 * random.unit())
                })
            }
        }
        var answeredYes = 0, treesWalked = 0, questions = 0
        for row in rows {
            let probability = model.probabilities(row)[0]
            let thresholds = [0.01, 0.1, VentricularBeatModelData.threshold, 0.5, 0.9, 0.99,
                              probability, probability.nextUp, probability.nextDown, 0, 1]
            for threshold in thresholds {
                let (answer, walked) = model.probabilityExceedsCountingTrees(threshold, for: row)
                #expect(answer == (probability > threshold), "p \(probability), threshold \(threshold)")
                #expect(answer == model.probabilityExceeds(threshold, for: row))
                if answer { answeredYes += 1 }
                // at the row's own probability every tree counts
                if threshold == probability { #expect(walked == model.treeCount) }
                treesWalked += walked
                questions += 1
            }
        }
        #expect(rows.count > 500 && answeredYes > 0)
        // and far from it most questions are answered before the last tree
        #expect(Double(treesWalked) < 0.9 * Double(questions * model.treeCount), "\(treesWalked) trees for \(questions) questions")
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
