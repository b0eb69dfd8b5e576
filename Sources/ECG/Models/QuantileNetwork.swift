import Foundation

/// Why a quantile network could not be read.
public enum QuantileNetworkError: Error, Equatable, CustomStringConvertible {
    /// The text is not JSON of the network's shape (a key missing, a value of the wrong type, not JSON at all).
    case unreadableJSON(String)
    /// The JSON has the right shape but does not describe a usable network (sizes that disagree, a number out of range).
    case invalidModel(String)

    public var description: String {
        switch self {
        case .unreadableJSON(let reason): "quantile network: unreadable JSON: \(reason)"
        case .invalidModel(let reason): "quantile network: invalid model: \(reason)"
        }
    }
}

/// A small neural-network classifier trained by scikit-learn (Tools/train-ecg-verdict `--network-share`)
/// and evaluated here in pure Swift: one hidden layer of ReLU units and a softmax output, over the
/// features mapped to a standard normal by their training quantiles, with 0/1 "was missing" inputs.
///
/// The inputs of a row of features (NaN = missing), as scikit-learn's pipeline makes them:
/// 1. a missing value becomes its feature's training median;
/// 2. each value goes through its feature's quantile map (`QuantileTransformer` with a normal output,
///    scikit-learn 1.9): within 1e-7 of the lowest quantile or below it is 0, within 1e-7 of the highest
///    or above it 1; between, the mean of `np.interp` upward through the quantiles and downward (so a
///    value on a run of equal quantiles lands in the middle of the run); then the standard normal's
///    quantile function, clipped to ±5.1993 (its values at 1e-7 − ε and 1 − (1e-7 − ε));
/// 3. then, for each feature in `missingIndicators`, 1 if it was missing, else 0.
///
/// The JSON (format `tscope-quantile-network/1`):
///
///     {"format": "tscope-quantile-network/1", "featureNames": [String], "classNames": [String],
///      "medians": [Double], "references": [Double], "quantiles": [[Double]],
///      "missingIndicators": [Int],
///      "hidden": {"biases": [Double], "weights": [[Double]]},
///      "output": {"biases": [Double], "weights": [[Double]]},
///      "testVectors": [{"source": String, "features": [Double|null], "inputs": [Double],
///                       "probabilities": [Double]}]}
///
/// `references` are the quantiles' probabilities (0 to 1, rising); `quantiles` has one row per feature,
/// one value per reference. Each layer's `weights` has a row per input to the layer and a column per
/// unit (scikit-learn's `coefs_`). `testVectors` (optional) hold scikit-learn's own inputs and
/// probabilities for feature rows.
public struct QuantileNetwork: Sendable {
    public static let formatName = "tscope-quantile-network/1"

    /// A feature row with scikit-learn's network inputs and probabilities for it.
    public struct TestVector: Sendable {
        public let source: String
        /// one value per feature, NaN for missing
        public let features: [Double]
        /// scikit-learn's inputs to the network for the row (the quantile map's, then the missing indicators)
        public let inputs: [Double]
        /// scikit-learn's `predict_proba`, one per class
        public let probabilities: [Double]
    }

    public let featureNames: [String]
    public let classNames: [String]
    public let testVectors: [TestVector]
    /// per feature: what a missing value becomes
    let medians: [Double]
    /// the quantiles' probabilities, rising from 0 to 1
    let references: [Double]
    /// feature after feature, `references.count` quantiles each, never falling
    let quantiles: [Double]
    /// the features that get a 0/1 input saying they were missing, in input order
    let missingIndicators: [Int]
    let hiddenBiases: [Double]
    /// input after input, `hiddenBiases.count` weights each
    let hiddenWeights: [Double]
    let outputBiases: [Double]
    /// hidden unit after hidden unit, `classCount` weights each
    let outputWeights: [Double]

    /// scikit-learn's BOUNDS_THRESHOLD: a value this close to the lowest or highest quantile maps to 0 or 1
    static let boundsThreshold = 1e-7
    /// where the normal quantiles are clipped: Φ⁻¹(1e-7 − ε) and Φ⁻¹(1 − (1e-7 − ε)), ε = 2⁻⁵², as
    /// scikit-learn clips them (so 0 and 1 map to finite values)
    static let lowestNormal = normalQuantile(boundsThreshold - Double.ulpOfOne)
    static let highestNormal = normalQuantile(1 - (boundsThreshold - Double.ulpOfOne))

    public var featureCount: Int { featureNames.count }
    public var classCount: Int { classNames.count }
    /// inputs to the network: one per feature, then one per missing indicator
    public var inputCount: Int { featureCount + missingIndicators.count }
    public var hiddenUnitCount: Int { hiddenBiases.count }

    /// The network a JSON document describes: read by `ModelJSONReader`, or by `JSONDecoder` when that
    /// reader gives up (as `GradientBoostedTrees(json:)`).
    public init(json: String) throws(QuantileNetworkError) {
        if let file = ModelJSONReader.read(json, ModelFile.read) {
            try self.init(file: file)
        } else {
            try self.init(file: Self.decodeWithFoundation(Data(json.utf8)))
        }
    }

    public init(jsonData: Data) throws(QuantileNetworkError) {
        if let file = jsonData.withUnsafeBytes({ ModelJSONReader.read($0.assumingMemoryBound(to: UInt8.self), ModelFile.read) }) {
            try self.init(file: file)
        } else {
            try self.init(file: Self.decodeWithFoundation(jsonData))
        }
    }

    /// The document decoded by Foundation's `JSONDecoder` (the reference `ModelJSONReader` is tested against).
    static func decodeWithFoundation(_ jsonData: Data) throws(QuantileNetworkError) -> ModelFile {
        do {
            return try JSONDecoder().decode(ModelFile.self, from: jsonData)
        } catch let error as DecodingError {
            throw .unreadableJSON(GradientBoostedTrees.explanation(of: error))
        } catch {
            throw .unreadableJSON(String(describing: error))
        }
    }

    // MARK: Evaluation

    /// The network's inputs for one row of `featureCount` values, NaN meaning missing.
    public func inputs(_ features: [Double]) -> [Double] {
        precondition(features.count == featureCount,
                     "QuantileNetwork: \(features.count) feature values for a model of \(featureCount) features")
        var inputs = [Double](repeating: 0, count: inputCount)
        let count = references.count
        for feature in 0..<featureCount {
            let value = features[feature].isNaN ? medians[feature] : features[feature]
            let row = feature * count
            inputs[feature] = quantiles.withUnsafeBufferPointer { table in
                Self.normalScore(value, quantiles: UnsafeBufferPointer(rebasing: table[row..<(row + count)]),
                                 references: references)
            }
        }
        for (index, feature) in missingIndicators.enumerated() where features[feature].isNaN {
            inputs[featureCount + index] = 1
        }
        return inputs
    }

    /// The probability of each class for one row of `featureCount` values, NaN meaning missing.
    public func probabilities(_ features: [Double]) -> [Double] {
        let inputs = inputs(features)
        let units = hiddenUnitCount
        var hidden = hiddenBiases
        for input in 0..<inputCount {
            let value = inputs[input]
            if value == 0 { continue }
            let row = input * units
            for unit in 0..<units { hidden[unit] += value * hiddenWeights[row + unit] }
        }
        var output = outputBiases
        let classes = classCount
        for unit in 0..<units {
            let value = max(hidden[unit], 0)  // ReLU
            if value == 0 { continue }
            let row = unit * classes
            for index in 0..<classes { output[index] += value * outputWeights[row + index] }
        }
        // softmax, shifted by the largest score so exp cannot overflow (as scikit-learn does)
        let largest = output.max() ?? 0
        var total = 0.0
        for index in output.indices {
            output[index] = exp(output[index] - largest)
            total += output[index]
        }
        for index in output.indices { output[index] /= total }
        return output
    }

    /// One value through one feature's quantile map to a standard normal score (scikit-learn's
    /// `QuantileTransformer._transform_col`, forward, normal output).
    static func normalScore(_ value: Double, quantiles: UnsafeBufferPointer<Double>, references: [Double]) -> Double {
        let last = quantiles.count - 1
        let uniform: Double
        if value - boundsThreshold < quantiles[0] {
            uniform = 0
        } else if value + boundsThreshold > quantiles[last] {
            uniform = 1
        } else {
            // Here quantiles[0] ≤ value ≤ quantiles[last] (equal only for values so large that 1e-7 is lost
            // adding it). Upward: np.interp(value, quantiles, references), from the last quantile ≤ value;
            // downward: np.interp(−value, −reversed quantiles, −reversed references), the same arithmetic
            // from the first quantile ≥ value, written unnegated (exact). np.interp gives a point's own
            // reference when the value is on it.
            let upward: Double
            // the first quantile ≥ value, when the upward search has already found it
            var firstAtOrAbove: Int?
            if quantiles[last] <= value {
                upward = references[last]
            } else {
                var low = 0, high = last  // quantiles[low] ≤ value < quantiles[high]
                while high - low > 1 {
                    let middle = (low + high) / 2
                    if quantiles[middle] <= value { low = middle } else { high = middle }
                }
                upward = quantiles[low] == value ? references[low]
                    : (references[low + 1] - references[low]) / (quantiles[low + 1] - quantiles[low])
                        * (value - quantiles[low]) + references[low]
                // below a value strictly between two quantiles every quantile is smaller (they ascend):
                // the first ≥ it is the next one, where the downward search would end
                if quantiles[low] < value { firstAtOrAbove = low + 1 }
            }
            let downward: Double
            if quantiles[0] >= value {
                downward = -references[0]
            } else {
                var below = 0, atOrAbove = last  // quantiles[below] < value ≤ quantiles[atOrAbove]
                if let known = firstAtOrAbove {
                    atOrAbove = known
                } else {
                    while atOrAbove - below > 1 {
                        let middle = (below + atOrAbove) / 2
                        if quantiles[middle] < value { below = middle } else { atOrAbove = middle }
                    }
                }
                let m = atOrAbove
                downward = quantiles[m] == value ? -references[m]
                    : (references[m] - references[m - 1]) / (quantiles[m] - quantiles[m - 1]) * (quantiles[m] - value)
                        - references[m]
            }
            uniform = 0.5 * (upward - downward)
        }
        return min(max(normalQuantile(uniform), lowestNormal), highestNormal)
    }

    /// The standard normal distribution's quantile function Φ⁻¹(p): −∞ at 0, +∞ at 1, NaN outside
    /// 0…1. Acklam's rational approximation (P. J. Acklam, "An algorithm for computing the inverse normal
    /// cumulative distribution function", 2003; relative error 1.15e-9) refined by one step of Halley's
    /// method on Φ(x) = erfc(−x/√2)/2, which brings it to within a few units of the last place. Computed
    /// in the lower half and mirrored (1 − p is exact for p ≥ 0.5), so the tails keep their precision.
    public static func normalQuantile(_ p: Double) -> Double {
        guard p >= 0, p <= 1 else { return .nan }
        if p == 0 { return -.infinity }
        if p == 1 { return .infinity }
        if p > 0.5 { return -lowerNormalQuantile(1 - p) }
        return lowerNormalQuantile(p)
    }

    /// Φ⁻¹(p) for 0 < p ≤ 0.5.
    private static func lowerNormalQuantile(_ p: Double) -> Double {
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        var x: Double
        if p < 0.02425 {
            let q = (-2 * log(p)).squareRoot()
            x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        } else {
            let q = p - 0.5, r = q * q
            x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        }
        // Halley: e = Φ(x) − p, u = e / φ(x); here x ≤ 0, where erfc(−x/√2) keeps its relative precision
        let e = 0.5 * erfc(-x / 2.0.squareRoot()) - p
        let u = e * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        x -= u / (1 + x * u / 2)
        return x
    }

    // MARK: Reading and checking the JSON

    struct ModelFile: Decodable {
        var format: String
        var featureNames: [String]
        var classNames: [String]
        var medians: [Double]
        var references: [Double]
        var quantiles: [[Double]]
        var missingIndicators: [Int]
        var hidden: LayerFile
        var output: LayerFile
        var testVectors: [TestVectorFile]?
    }

    struct LayerFile: Decodable {
        var biases: [Double]
        var weights: [[Double]]
    }

    struct TestVectorFile: Decodable {
        var source: String
        var features: [Double?]
        var inputs: [Double]
        var probabilities: [Double]
    }

    init(file: ModelFile) throws(QuantileNetworkError) {
        func invalid(_ reason: String) -> QuantileNetworkError { .invalidModel(reason) }
        guard file.format == Self.formatName else {
            throw invalid("format \"\(file.format)\", expected \"\(Self.formatName)\"")
        }
        let features = file.featureNames.count, classes = file.classNames.count
        guard features > 0 else { throw invalid("no feature names") }
        guard classes >= 2 else { throw invalid("\(classes) class names; a softmax needs at least 2") }
        guard file.medians.count == features, file.medians.allSatisfy(\.isFinite) else {
            throw invalid("\(file.medians.count) medians for \(features) features, or one is not finite")
        }
        let references = file.references
        guard references.count >= 2, references.first == 0, references.last == 1,
              zip(references, references.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw invalid("references must rise from 0 to 1, at least two of them")
        }
        guard file.quantiles.count == features else {
            throw invalid("\(file.quantiles.count) quantile rows for \(features) features")
        }
        for (feature, row) in file.quantiles.enumerated() {
            guard row.count == references.count else {
                throw invalid("feature \(feature): \(row.count) quantiles for \(references.count) references")
            }
            guard row.allSatisfy(\.isFinite), zip(row, row.dropFirst()).allSatisfy({ $0 <= $1 }) else {
                throw invalid("feature \(feature): quantiles must be finite and never fall")
            }
        }
        guard file.missingIndicators.allSatisfy({ (0..<features).contains($0) }),
              zip(file.missingIndicators, file.missingIndicators.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw invalid("missing indicators must be rising feature indices below \(features)")
        }
        let inputCount = features + file.missingIndicators.count
        let units = file.hidden.biases.count
        guard units > 0 else { throw invalid("no hidden units") }
        guard file.hidden.weights.count == inputCount, file.hidden.weights.allSatisfy({ $0.count == units }) else {
            throw invalid("hidden weights must be \(inputCount) rows (inputs) of \(units) (units)")
        }
        guard file.output.biases.count == classes, file.output.weights.count == units,
              file.output.weights.allSatisfy({ $0.count == classes }) else {
            throw invalid("output weights must be \(units) rows (hidden units) of \(classes) (classes), with \(classes) biases")
        }
        let numbers = file.hidden.biases + file.output.biases + file.hidden.weights.joined() + file.output.weights.joined()
        guard numbers.allSatisfy(\.isFinite) else { throw invalid("a weight or bias is not finite") }
        var testVectors: [TestVector] = []
        for (index, vector) in (file.testVectors ?? []).enumerated() {
            guard vector.features.count == features, vector.inputs.count == inputCount, vector.probabilities.count == classes else {
                throw invalid("test vector \(index): \(vector.features.count) features, \(vector.inputs.count) inputs and "
                    + "\(vector.probabilities.count) probabilities for \(features), \(inputCount) and \(classes)")
            }
            testVectors.append(TestVector(source: vector.source, features: vector.features.map { $0 ?? .nan },
                                          inputs: vector.inputs, probabilities: vector.probabilities))
        }
        featureNames = file.featureNames
        classNames = file.classNames
        self.testVectors = testVectors
        medians = file.medians
        self.references = references
        quantiles = Array(file.quantiles.joined())
        missingIndicators = file.missingIndicators
        hiddenBiases = file.hidden.biases
        hiddenWeights = Array(file.hidden.weights.joined())
        outputBiases = file.output.biases
        outputWeights = Array(file.output.weights.joined())
    }
}

// `ModelJSONReader`'s reading of the network's file structs: every member the Decodable ones require,
// testVectors absent or null as nil, other keys passed over.

extension QuantileNetwork.ModelFile {
    static func read(_ reader: inout ModelJSONReader) throws -> Self {
        var format: String?, featureNames: [String]?, classNames: [String]?, medians: [Double]?, references: [Double]?
        var quantiles: [[Double]]?, missingIndicators: [Int]?, hidden: QuantileNetwork.LayerFile?
        var output: QuantileNetwork.LayerFile?, testVectors: [QuantileNetwork.TestVectorFile]?
        try reader.object { reader, key in
            switch key {
            case "format": format = try reader.string()
            case "featureNames": featureNames = try reader.strings()
            case "classNames": classNames = try reader.strings()
            case "medians": medians = try reader.doubles()
            case "references": references = try reader.doubles()
            case "quantiles": quantiles = try reader.doubleRows()
            case "missingIndicators": missingIndicators = try reader.ints()
            case "hidden": hidden = try QuantileNetwork.LayerFile.read(&reader)
            case "output": output = try QuantileNetwork.LayerFile.read(&reader)
            case "testVectors":
                if try reader.null() { break }
                var list: [QuantileNetwork.TestVectorFile] = []
                try reader.array { reader in list.append(try QuantileNetwork.TestVectorFile.read(&reader)) }
                testVectors = list
            default: try reader.skipValue()
            }
        }
        return Self(format: try format.requiredMember(), featureNames: try featureNames.requiredMember(),
                    classNames: try classNames.requiredMember(), medians: try medians.requiredMember(),
                    references: try references.requiredMember(), quantiles: try quantiles.requiredMember(),
                    missingIndicators: try missingIndicators.requiredMember(), hidden: try hidden.requiredMember(),
                    output: try output.requiredMember(), testVectors: testVectors)
    }
}

extension QuantileNetwork.LayerFile {
    static func read(_ reader: inout ModelJSONReader) throws -> Self {
        var biases: [Double]?, weights: [[Double]]?
        try reader.object { reader, key in
            switch key {
            case "biases": biases = try reader.doubles()
            case "weights": weights = try reader.doubleRows()
            default: try reader.skipValue()
            }
        }
        return Self(biases: try biases.requiredMember(), weights: try weights.requiredMember())
    }
}

extension QuantileNetwork.TestVectorFile {
    static func read(_ reader: inout ModelJSONReader) throws -> Self {
        var source: String?, features: [Double?]?, inputs: [Double]?, probabilities: [Double]?
        try reader.object { reader, key in
            switch key {
            case "source": source = try reader.string()
            case "features": features = try reader.optionalDoubles()
            case "inputs": inputs = try reader.doubles()
            case "probabilities": probabilities = try reader.doubles()
            default: try reader.skipValue()
            }
        }
        return Self(source: try source.requiredMember(), features: try features.requiredMember(),
                    inputs: try inputs.requiredMember(), probabilities: try probabilities.requiredMember())
    }
}
