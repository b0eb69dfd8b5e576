import Foundation
import Testing
@testable import ECG

/// QuantileNetwork against scikit-learn (the committed network's test vectors), the normal quantile
/// function against published values, a hand-built network worked out below, and malformed JSON; then
/// VerdictModel, the trees and the network together.
@Suite struct QuantileNetworkTests {
    // MARK: (a) the committed network reproduces scikit-learn

    @Test func verdictNetworkReproducesScikitLearn() throws {
        let network = try QuantileNetwork(json: VerdictNetworkData.json)
        #expect(network.classNames == ["normal", "af", "other", "noisy"])
        #expect(network.featureNames == RecordingFeatures.names)
        #expect(network.testVectors.count >= 25)
        // the trainer includes rows with missing values and rows beyond and on the quantiles
        #expect(network.testVectors.contains { $0.features.contains { $0.isNaN } })
        #expect(network.testVectors.contains { $0.source.contains("below its lowest quantile") })
        #expect(network.testVectors.contains { $0.source.contains("at its quantile 40") })
        for vector in network.testVectors {
            let inputs = network.inputs(vector.features)
            for (index, (swift, scikit)) in zip(inputs, vector.inputs).enumerated() {
                #expect(abs(swift - scikit) <= 1e-12, "\(vector.source): input \(index) \(swift) vs scikit-learn \(scikit)")
            }
            let probabilities = network.probabilities(vector.features)
            for (swift, scikit) in zip(probabilities, vector.probabilities) {
                #expect(abs(swift - scikit) <= 1e-12, "\(vector.source): \(probabilities) vs scikit-learn \(vector.probabilities)")
            }
        }
        // the edges reach the clipping: every input of the row below the quantiles is the lowest normal
        let below = try #require(network.testVectors.first { $0.source.contains("below its lowest quantile") })
        #expect(network.inputs(below.features).prefix(network.featureCount).allSatisfy { $0 == QuantileNetwork.lowestNormal })
    }

    // MARK: (b) the normal quantile function

    /// Φ⁻¹ against tabulated values (Abramowitz & Stegun 26.2; the 1e-10 and clipping points as
    /// scipy.stats.norm.ppf gives them), and its edges.
    @Test func normalQuantileMatchesPublishedValues() {
        let cases: [(Double, Double)] = [
            (0.975, 1.959963984540054), (0.025, -1.959963984540054), (0.125, -1.150349380376008),
            (0.3, -0.5244005127080409), (0.999999, 4.753424308817087), (1e-10, -6.361340902404056),
            (1e-300, -37.0470962993612),
        ]
        for (p, expected) in cases {
            let value = QuantileNetwork.normalQuantile(p)
            #expect(abs(value - expected) <= 1e-13 * max(1, abs(expected)), "Φ⁻¹(\(p)) = \(value), expected \(expected)")
        }
        #expect(QuantileNetwork.normalQuantile(0.5) == 0)
        #expect(QuantileNetwork.normalQuantile(0) == -.infinity)
        #expect(QuantileNetwork.normalQuantile(1) == .infinity)
        #expect(QuantileNetwork.normalQuantile(-0.1).isNaN && QuantileNetwork.normalQuantile(1.1).isNaN)
        // scikit-learn's clipping bounds, as scipy computes them
        #expect(abs(QuantileNetwork.lowestNormal - -5.199337582605575) <= 1e-12)
        #expect(abs(QuantileNetwork.highestNormal - 5.19933758270342) <= 1e-12)
    }

    // MARK: (c) a hand-built network

    /// Two features. Feature 0's quantiles 0, 1, 1, 1, 2 at references 0, ¼, ½, ¾, 1: 1 is a run of
    /// three equal quantiles, so it maps to the run's middle, ½; 0.5 maps to ⅛ (⅛ up through 0…1, and the
    /// same down); 1.5 to ⅞. Feature 1's quantiles are 10, 20, 30, 40, 50; it gets a missing indicator.
    static let handBuilt = """
        {"format":"tscope-quantile-network/1","featureNames":["a","b"],"classNames":["x","y"],
         "medians":[1.0,25.0],"references":[0,0.25,0.5,0.75,1],
         "quantiles":[[0,1,1,1,2],[10,20,30,40,50]],"missingIndicators":[1],
         "hidden":{"biases":[0.5,-1.0],"weights":[[1.0,0.0],[0.0,2.0],[0.0,3.0]]},
         "output":{"biases":[0.0,0.25],"weights":[[1.0,-1.0],[0.5,0.0]]}}
        """

    @Test func handBuiltQuantileMap() throws {
        let network = try QuantileNetwork(json: Self.handBuilt)
        #expect(network.inputCount == 3 && network.hiddenUnitCount == 2)
        func input(_ a: Double, _ b: Double) -> [Double] { network.inputs([a, b]) }
        #expect(input(1, 30)[0] == 0)  // middle of the tie: ½ → 0
        #expect(abs(input(0.5, 30)[0] - QuantileNetwork.normalQuantile(0.125)) < 1e-15)
        #expect(abs(input(1.5, 30)[0] - QuantileNetwork.normalQuantile(0.875)) < 1e-15)
        #expect(input(-3, 30)[0] == QuantileNetwork.lowestNormal)
        #expect(input(0.00000005, 30)[0] == QuantileNetwork.lowestNormal, "within 1e-7 of the lowest quantile")
        #expect(input(7, 30)[0] == QuantileNetwork.highestNormal)
        #expect(input(1.99999995, 30)[0] == QuantileNetwork.highestNormal, "within 1e-7 of the highest quantile")
        // feature 1: 25 is ⅜ of the way; 30 exactly on a quantile is ½; missing: the median 25, indicator 1
        #expect(abs(input(1, 25)[1] - QuantileNetwork.normalQuantile(0.375)) < 1e-15)
        #expect(input(1, 30)[1] == 0 && input(1, 30)[2] == 0)
        let missing = input(1, .nan)
        #expect(abs(missing[1] - QuantileNetwork.normalQuantile(0.375)) < 1e-15 && missing[2] == 1)
        // a missing feature 0 becomes its median 1, the middle of its tie; it has no indicator
        #expect(network.inputs([.nan, 30]) == [0, 0, 0])
    }

    @Test func handBuiltLayers() throws {
        let network = try QuantileNetwork(json: Self.handBuilt)
        // inputs (0, 0, 0): hidden = ReLU(0.5, −1) = (0.5, 0); output = (0.5, 0.25 − 0.5) = (0.5, −0.25)
        func softmax(_ scores: [Double]) -> [Double] {
            let total = scores.map { exp($0) }.reduce(0, +)
            return scores.map { exp($0) / total }
        }
        let centred = network.probabilities([1, 30])
        for (value, expected) in zip(centred, softmax([0.5, -0.25])) { #expect(abs(value - expected) < 1e-15) }
        // feature 1 missing: inputs (0, z, 1) with z = Φ⁻¹(⅜) < 0: hidden = (0.5, ReLU(−1 + 2z + 3))
        let z = QuantileNetwork.normalQuantile(0.375)
        let second = max(-1 + 2 * z + 3, 0)
        let expected = softmax([0.5 + 0.5 * second, 0.25 - 0.5])
        let missing = network.probabilities([1, .nan])
        for (value, wanted) in zip(missing, expected) { #expect(abs(value - wanted) < 1e-15, "\(missing) vs \(expected)") }
        #expect(abs(missing.reduce(0, +) - 1) < 1e-15)
    }

    // MARK: (d) malformed networks are refused with a reason

    @Test func malformedNetworksAreRefused() {
        func refusal(_ json: String) -> QuantileNetworkError? {
            do {
                _ = try QuantileNetwork(json: json)
                return nil
            } catch {
                return error
            }
        }
        func altered(_ from: String, _ to: String) -> String {
            precondition(Self.handBuilt.contains(from))
            return Self.handBuilt.replacingOccurrences(of: from, with: to)
        }
        let cases: [(String, String)] = [
            (altered("tscope-quantile-network/1", "tscope-quantile-network/2"), "format"),
            (altered("[0,1,1,1,2]", "[0,1,0.5,1,2]"), "never fall"),
            (altered("[0,1,1,1,2]", "[0,1,1,2]"), "4 quantiles for 5 references"),
            (altered("[0,0.25,0.5,0.75,1]", "[0,0.5,0.25,0.75,1]"), "references must rise"),
            (altered("\"missingIndicators\":[1]", "\"missingIndicators\":[2]"), "missing indicators"),
            (altered("[[1.0,0.0],[0.0,2.0],[0.0,3.0]]", "[[1.0,0.0],[0.0,2.0]]"), "hidden weights"),
            (altered("\"biases\":[0.0,0.25]", "\"biases\":[0.0]"), "output weights"),
            (altered("\"medians\":[1.0,25.0]", "\"medians\":[1.0]"), "medians"),
            (altered("\"classNames\":[\"x\",\"y\"]", "\"classNames\":[\"x\"]"), "softmax needs at least 2"),
            (altered("\"medians\"", "\"middles\""), "key \"medians\" missing"),
            ("{\"format\":", "unreadable JSON"),
        ]
        for (json, expected) in cases {
            let error = refusal(json)
            #expect(error != nil, "accepted: \(expected)")
            #expect(error.map { "\($0)".contains(expected) } == true, "\(String(describing: error)) lacks \(expected)")
        }
    }

    // MARK: (e) the verdict model: trees and network blended

    @Test func committedVerdictModelBlendsTreesAndNetwork() throws {
        let model = try VerdictModel.committed()
        #expect(VerdictModelData.trainingRun == VerdictNetworkData.trainingRun)
        #expect(model.networkShare == VerdictModelData.networkShare)
        let network = try #require(model.network, "the committed model has a network (share \(VerdictModelData.networkShare))")
        #expect(model.featureNames == RecordingFeatures.names)
        #expect(RecordingClassifier.model != nil)
        for vector in network.testVectors {
            let trees = model.trees.probabilities(vector.features)
            let blended = model.probabilities(vector.features)
            for index in blended.indices {
                let expected = (1 - model.networkShare) * trees[index] + model.networkShare * vector.probabilities[index]
                #expect(abs(blended[index] - expected) <= 1e-9, "\(vector.source): \(blended) vs \(expected)")
            }
        }
    }

    @Test func verdictModelRefusesPartsThatDoNotFit() throws {
        let trees = try GradientBoostedTrees(json: VerdictModelData.json)
        let other = try QuantileNetwork(json: Self.handBuilt)
        #expect(throws: VerdictModelError.self) { try VerdictModel(trees: trees, network: other, networkShare: 0.2) }
        #expect(throws: VerdictModelError.self) { try VerdictModel(trees: trees, network: nil, networkShare: 0.2) }
        let network = try QuantileNetwork(json: VerdictNetworkData.json)
        #expect(throws: VerdictModelError.self) { try VerdictModel(trees: trees, network: network, networkShare: 1) }
        // share 0: the trees alone, the network dropped
        let alone = try VerdictModel(trees: trees, network: network, networkShare: 0)
        #expect(alone.network == nil)
        let features = try #require(trees.testVectors.first).features
        #expect(alone.probabilities(features) == trees.probabilities(features))
    }
}
