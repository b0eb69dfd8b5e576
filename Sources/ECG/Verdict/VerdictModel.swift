/// Why the verdict model's parts do not fit together.
public struct VerdictModelError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { "verdict model: \(reason)" }
}

/// The per-recording verdict's probabilities: gradient-boosted trees (`VerdictModelData`), blended with a
/// small network (`VerdictNetworkData`) as `(1 − networkShare) · trees + networkShare · network`, the
/// blend Tools/train-ecg-verdict `--network-share` cross-validated (Docs/ecg.md, "A verdict per
/// recording"). With a share of 0 the trees decide alone.
public struct VerdictModel: Sendable {
    public let trees: GradientBoostedTrees
    /// nil when the trees decide alone
    public let network: QuantileNetwork?
    /// the network's share of the probabilities, 0…<1
    public let networkShare: Double

    public var featureNames: [String] { trees.featureNames }
    public var classNames: [String] { trees.classNames }

    public init(trees: GradientBoostedTrees, network: QuantileNetwork?, networkShare: Double) throws(VerdictModelError) {
        guard networkShare >= 0, networkShare < 1 else {
            throw VerdictModelError(reason: "network share \(networkShare) is not 0…<1")
        }
        if let network {
            guard network.featureNames == trees.featureNames, network.classNames == trees.classNames else {
                throw VerdictModelError(reason: "the network's features or classes differ from the trees'")
            }
        } else if networkShare > 0 {
            throw VerdictModelError(reason: "a network share of \(networkShare) without a network")
        }
        self.trees = trees
        self.network = networkShare > 0 ? network : nil
        self.networkShare = networkShare
    }

    /// The committed model: the trees, and the network when the trainer gave it a share, which must come from
    /// the same training run as the trees.
    public static func committed() throws(VerdictModelError) -> VerdictModel {
        let trees: GradientBoostedTrees
        do {
            trees = try GradientBoostedTrees(json: VerdictModelData.json)
        } catch {
            throw VerdictModelError(reason: "VerdictModelData: \(error)")
        }
        guard VerdictModelData.networkShare > 0 else {
            return try VerdictModel(trees: trees, network: nil, networkShare: 0)
        }
        guard VerdictNetworkData.trainingRun == VerdictModelData.trainingRun else {
            throw VerdictModelError(reason: "VerdictNetworkData is from training run \(VerdictNetworkData.trainingRun), "
                                    + "the trees from \(VerdictModelData.trainingRun): retrain both together")
        }
        let network: QuantileNetwork
        do {
            network = try QuantileNetwork(json: VerdictNetworkData.json)
        } catch {
            throw VerdictModelError(reason: "VerdictNetworkData: \(error)")
        }
        return try VerdictModel(trees: trees, network: network, networkShare: VerdictModelData.networkShare)
    }

    /// The probability of each class (`classNames`) for one row of `featureNames.count` values, NaN meaning missing.
    public func probabilities(_ features: [Double]) -> [Double] {
        var probabilities = trees.probabilities(features)
        guard let network else { return probabilities }
        let networkProbabilities = network.probabilities(features)
        // in the trainer's order of operations: (1 − w) · trees + w · network
        for index in probabilities.indices {
            probabilities[index] = (1 - networkShare) * probabilities[index] + networkShare * networkProbabilities[index]
        }
        return probabilities
    }
}
