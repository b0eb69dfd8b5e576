import Foundation

/// Why a gradient-boosted-trees model could not be read.
public enum GradientBoostedTreesError: Error, Equatable, CustomStringConvertible {
    /// The text is not JSON of the model's shape (a key missing, a value of the wrong type, not JSON at all).
    case unreadableJSON(String)
    /// The JSON has the right shape but does not describe a usable model (an index out of range, counts that disagree).
    case invalidModel(String)

    public var description: String {
        switch self {
        case .unreadableJSON(let reason): "gradient-boosted-trees model: unreadable JSON: \(reason)"
        case .invalidModel(let reason): "gradient-boosted-trees model: invalid model: \(reason)"
        }
    }
}

/// A gradient-boosted-trees classifier trained by LightGBM (Tools/train-ecg-verdict,
/// Tools/train-beat-model) and evaluated here in pure Swift: per class the sum of its trees' leaf
/// values, then softmax; a binary model (one class name) is its one sum through the logistic
/// function, the probability of that class (LightGBM's `binary` objective, sigmoid 1).
///
/// The JSON (format `tscope-gradient-boosted-trees/1`, written by the trainer from LightGBM's
/// `dump_model()`):
///
///     {"format": "tscope-gradient-boosted-trees/1",
///      "featureNames": [String], "classNames": [String],
///      "trees": [{"feature": [Int], "threshold": [Double], "defaultLeft": [0|1],
///                 "missingType": [0 None | 1 Zero | 2 NaN], "left": [Int], "right": [Int],
///                 "leaf": [Double]}],
///      "testVectors": [{"source": String, "features": [Double|null], "probabilities": [Double]}]}
///
/// Tree `i` adds to class `i % classNames.count` (LightGBM's order: iteration by iteration, within one
/// the classes in order). Each tree's splits are in preorder; a child is a split index (always greater
/// than its parent's) or `-(leaf index + 1)`; a tree with no splits is its single leaf. Leaf values
/// already include the learning rate and LightGBM's initial score. `testVectors` is optional: feature
/// rows (`null` = missing) with the probabilities LightGBM itself predicted for them.
///
/// Splits follow LightGBM's numerical decision rule: a value goes left when `value <= threshold`,
/// except that a *missing* value goes to the split's default side (`defaultLeft`). What counts as
/// missing depends on the split's missing type: `NaN`: NaN; `Zero`: 0 and NaN; `None`: nothing —
/// NaN is compared as 0.
public struct GradientBoostedTrees: Sendable {
    public static let formatName = "tscope-gradient-boosted-trees/1"

    /// A feature row of the model's training data with LightGBM's own probabilities for it.
    public struct TestVector: Sendable {
        /// Where the row came from (a record name, or how it was altered).
        public let source: String
        /// One value per feature, NaN for missing.
        public let features: [Double]
        /// LightGBM's `predict` for the row, one per class.
        public let probabilities: [Double]
    }

    /// What a row's values mean, in order; `probabilities(_:)` takes exactly this many.
    public let featureNames: [String]
    /// The classes, in the order of `probabilities(_:)`'s result.
    public let classNames: [String]
    /// The model file's test vectors (empty when it has none).
    public let testVectors: [TestVector]

    /// Which values count as missing at a split (LightGBM's MissingType, same numbering).
    enum MissingType: UInt8, Sendable {
        case none = 0, zero = 1, nan = 2
    }

    /// One split of one tree. Children: ≥ 0 an index into `splits`, < 0 `-(index into leafValues + 1)`.
    struct Split: Sendable {
        var threshold: Double
        var feature: Int32
        var left: Int32
        var right: Int32
        /// where a missing (NaN) value goes, and a zero (|x| ≤ `zeroThreshold`): the missing type's
        /// rule worked out once when the model is read (`goesLeft`), so a row's walk through the
        /// trees makes two rarely taken tests and one comparison per split, with no switch
        var nanGoesLeft: Bool
        var zeroGoesLeft: Bool

        init(threshold: Double, feature: Int32, left: Int32, right: Int32, missingType: MissingType, defaultLeft: Bool) {
            self.threshold = threshold
            self.feature = feature
            self.left = left
            self.right = right
            nanGoesLeft = missingType == .none ? 0 <= threshold : defaultLeft
            zeroGoesLeft = missingType == .zero ? defaultLeft : 0 <= threshold
        }
    }

    /// All trees' splits, tree after tree; children indices are into this whole array.
    let splits: [Split]
    /// All trees' leaf values, tree after tree.
    let leafValues: [Double]
    /// Each tree's root in the children encoding of `Split` (a leaf for a single-leaf tree).
    let roots: [Int32]
    /// For each group of `walkWidth` trees in order (`rawScores` walks them side by side), the most
    /// splits on a path from one of their roots to a leaf; a last group of fewer trees has none.
    let groupDepths: [Int32]
    /// The same for each four trees (`probabilityExceeds` walks four at a time, and may answer after
    /// each four).
    let quadDepths: [Int32]
    /// For a binary model (empty for others): before four g (`remainingLeafRange[g]`, g = 0 … quad count), the largest
    /// and the smallest sum of leaf values the trees from 4·g to the last can add (each tree's largest
    /// leaf, and each one's smallest); `probabilityExceeds` stops when these cannot change its answer.
    let remainingLeafRange: [(highest: Double, lowest: Double)]

    /// LightGBM's kZeroThreshold (1e-35 as a Float, widened): values this small are zero to it. Its
    /// dense-row prediction path drops them as zeros before the trees see them, and its `Zero`
    /// missing type tests against it.
    static let zeroThreshold = Double(Float(1e-35))

    /// trees walked side by side (`Walker.leaves(ofGroup:)`)
    static let walkWidth = 8

    public var featureCount: Int { featureNames.count }
    public var classCount: Int { classNames.count }
    public var treeCount: Int { roots.count }

    /// The model a JSON document describes: read by `ModelJSONReader` (a few milliseconds for the verdict
    /// model, where `JSONDecoder` took about 40), or by `JSONDecoder` when that reader gives up, which then
    /// reads it the same way or says what is wrong with it.
    public init(json: String) throws(GradientBoostedTreesError) {
        if let file = ModelJSONReader.read(json, ModelFile.read) {
            try self.init(file: file)
        } else {
            try self.init(file: Self.decodeWithFoundation(Data(json.utf8)))
        }
    }

    public init(jsonData: Data) throws(GradientBoostedTreesError) {
        if let file = jsonData.withUnsafeBytes({ ModelJSONReader.read($0.assumingMemoryBound(to: UInt8.self), ModelFile.read) }) {
            try self.init(file: file)
        } else {
            try self.init(file: Self.decodeWithFoundation(jsonData))
        }
    }

    /// The document decoded by Foundation's `JSONDecoder`: the reference `ModelJSONReader` is tested
    /// against, and the reader of documents it gives up on (with the explanation when they are not the
    /// model's JSON).
    static func decodeWithFoundation(_ jsonData: Data) throws(GradientBoostedTreesError) -> ModelFile {
        do {
            return try JSONDecoder().decode(ModelFile.self, from: jsonData)
        } catch let error as DecodingError {
            throw .unreadableJSON(Self.explanation(of: error))
        } catch {
            throw .unreadableJSON(String(describing: error))
        }
    }

    // MARK: Evaluation

    /// The probability of each class (softmax of the per-class scores) for one row of
    /// `featureCount` values, NaN meaning missing.
    public func probabilities(_ features: [Double]) -> [Double] {
        var result = [Double](repeating: 0, count: classCount)
        probabilities(features, into: &result)
        return result
    }

    /// `probabilities(_:)` written into `output` (resized to `classCount` if it is not already;
    /// when it is, nothing is allocated).
    public func probabilities(_ features: [Double], into output: inout [Double]) {
        rawScores(features, into: &output)
        if classCount == 1 {
            output[0] = 1 / (1 + exp(-output[0]))
            return
        }
        // softmax, shifted by the largest score so exp cannot overflow (as LightGBM does)
        var largest = -Double.infinity
        for score in output { largest = max(largest, score) }
        var total = 0.0
        for index in output.indices {
            output[index] = exp(output[index] - largest)
            total += output[index]
        }
        for index in output.indices { output[index] /= total }
    }

    /// The per-class sums of leaf values (LightGBM's raw scores) written into `output`
    /// (resized to `classCount` if it is not already).
    public func rawScores(_ features: [Double], into output: inout [Double]) {
        precondition(features.count == featureCount,
                     "GradientBoostedTrees: \(features.count) feature values for a model of \(featureCount) features")
        if output.count != classCount {
            output = [Double](repeating: 0, count: classCount)
        } else {
            for index in output.indices { output[index] = 0 }
        }
        let classes = classCount
        var classIndex = 0
        // Trees summed in LightGBM's order, so the floating-point sums are the same.
        withWalker(features) { walker in
            output.withUnsafeMutableBufferPointer { sums in
                @inline(__always) func add(_ leaf: Int32) {
                    sums[classIndex] += walker.leafValue(leaf)
                    classIndex += 1
                    if classIndex == classes { classIndex = 0 }
                }
                for group in 0..<walker.groupCount {
                    let (a, b, c, d, e, f, g, h) = walker.leaves(ofGroup: group)
                    add(a)
                    add(b)
                    add(c)
                    add(d)
                    add(e)
                    add(f)
                    add(g)
                    add(h)
                }
                for tree in (Self.walkWidth * walker.groupCount)..<walker.treeCount { add(walker.leaf(ofTree: tree)) }
            }
        }
    }

    /// Whether a binary model's probability exceeds `threshold`: the same answer as
    /// `probabilities(features)[0] > threshold`, usually without walking every tree. After each group
    /// of four trees the raw score so far, plus the largest (smallest) sum the trees left could still
    /// add, is compared with the threshold's raw score; once the answer cannot change it is given.
    /// The bounds keep a margin of 1e-6 (far above the sums' rounding, about 1e-13), so a score near
    /// the threshold is always summed to the end and put through the logistic function as there.
    /// The beat model decides every beat with this, and most beats are plainly not ventricular.
    public func probabilityExceeds(_ threshold: Double, for features: [Double]) -> Bool {
        probabilityExceedsCountingTrees(threshold, for: features).answer
    }

    /// `probabilityExceeds` and how many trees it walked to answer.
    func probabilityExceedsCountingTrees(_ threshold: Double, for features: [Double]) -> (answer: Bool, treesWalked: Int) {
        precondition(classCount == 1, "GradientBoostedTrees.probabilityExceeds: a binary model's question")
        precondition(features.count == featureCount,
                     "GradientBoostedTrees: \(features.count) feature values for a model of \(featureCount) features")
        // Within 1e-6 of 0 or 1 the logistic function is so flat that 1e-6 of score moves the
        // probability by less than its own rounding: there every tree is summed.
        guard threshold >= 1e-6, threshold <= 1 - 1e-6 else {
            var output = [0.0]
            probabilities(features, into: &output)
            return (output[0] > threshold, treeCount)
        }
        let limit = log(threshold / (1 - threshold)), margin = 1e-6
        var raw = 0.0
        return withWalker(features) { walker in
            remainingLeafRange.withUnsafeBufferPointer { remaining in
                for group in 0..<walker.quadCount {
                    let (a, b, c, d) = walker.leaves(ofQuad: group)
                    raw += walker.leafValue(a)
                    raw += walker.leafValue(b)
                    raw += walker.leafValue(c)
                    raw += walker.leafValue(d)
                    let left = remaining[group + 1]
                    if raw + left.highest < limit - margin { return (false, 4 * (group + 1)) }
                    if raw + left.lowest > limit + margin { return (true, 4 * (group + 1)) }
                }
                for tree in (4 * walker.quadCount)..<walker.treeCount { raw += walker.leafValue(walker.leaf(ofTree: tree)) }
                return (1 / (1 + exp(-raw)) > threshold, walker.treeCount)
            }
        }
    }

    /// The model's arrays and one row, as buffer pointers for a walk through the trees: the indices
    /// were checked when the model was read (every child and feature index in range), and the beat
    /// model runs 100 trees per beat.
    ///
    /// Eight trees (`walkWidth`; four for `probabilityExceeds`) are walked side by side, each a fixed
    /// number of steps (the group's deepest tree's depth; a walk that has reached its leaf stays
    /// there): one tree's walk is a chain of dependent loads (split, feature value, child) that left
    /// the processor waiting, and its length-dependent loop exit was mispredicted at most leaves.
    /// Independent chains overlap, and the step count is the same on every row. Eight chains rather
    /// than four took about a quarter off the verdict model's and the AF engine's time in `ecg
    /// classify` (the verdict model's 800 trees do not stay in the nearest caches between
    /// recordings, so each walk waits on memory, and eight waits overlap where four did). The beat
    /// model walks four, so that it can answer after each four: eight at a time made it slower.
    struct Walker {
        let values: UnsafeBufferPointer<Double>
        let splits: UnsafeBufferPointer<Split>
        let leaves: UnsafeBufferPointer<Double>
        let roots: UnsafeBufferPointer<Int32>
        let depths: UnsafeBufferPointer<Int32>
        let quadDepths: UnsafeBufferPointer<Int32>
        /// read once: a static's every read in the loop went through its lazy initialiser's check
        let zero = GradientBoostedTrees.zeroThreshold

        var treeCount: Int { roots.count }
        /// the groups of `walkWidth` trees walked side by side; the trees after them are walked alone
        var groupCount: Int { depths.count }
        /// the fours of trees `probabilityExceeds` walks side by side
        var quadCount: Int { quadDepths.count }

        /// One step down from `node`; a leaf (< 0) stays itself. Without a branch on the outcome
        /// (written as arithmetic, since the compiler made `? :` jumps, mispredicted at every other
        /// split): the split read for a leaf is split 0, any in range will do.
        @inline(__always) func advance(_ node: Int32) -> Int32 {
            let split = splits[Int(max(node, 0))]
            let left = GradientBoostedTrees.goesLeft(values[Int(split.feature)], at: split, zeroThreshold: zero)
            let goesRight = Int32(unsafeBitCast(!left, to: UInt8.self))
            let next = split.left &+ (split.right &- split.left) &* goesRight
            let isLeaf = node >> 31 // all ones for a leaf, else 0
            return (next & ~isLeaf) | (node & isLeaf)
        }

        /// the leaves (children codes, < 0) the row reaches in trees 8·group … 8·group + 7
        @inline(__always) func leaves(ofGroup group: Int) -> (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) {
            let first = GradientBoostedTrees.walkWidth * group
            var a = roots[first], b = roots[first + 1], c = roots[first + 2], d = roots[first + 3]
            var e = roots[first + 4], f = roots[first + 5], g = roots[first + 6], h = roots[first + 7]
            for _ in 0..<Int(depths[group]) {
                a = advance(a)
                b = advance(b)
                c = advance(c)
                d = advance(d)
                e = advance(e)
                f = advance(f)
                g = advance(g)
                h = advance(h)
            }
            return (a, b, c, d, e, f, g, h)
        }

        /// the leaves the row reaches in trees 4·quad … 4·quad + 3 (`probabilityExceeds`, which may
        /// answer after each four)
        @inline(__always) func leaves(ofQuad quad: Int) -> (Int32, Int32, Int32, Int32) {
            var a = roots[4 * quad], b = roots[4 * quad + 1], c = roots[4 * quad + 2], d = roots[4 * quad + 3]
            for _ in 0..<Int(quadDepths[quad]) {
                a = advance(a)
                b = advance(b)
                c = advance(c)
                d = advance(d)
            }
            return (a, b, c, d)
        }

        @inline(__always) func leaf(ofTree tree: Int) -> Int32 {
            var node = roots[tree]
            while node >= 0 { node = advance(node) }
            return node
        }

        @inline(__always) func leafValue(_ leaf: Int32) -> Double { leaves[Int(-(leaf + 1))] }
    }

    @inline(__always)
    func withWalker<Result>(_ features: [Double], _ body: (Walker) -> Result) -> Result {
        features.withUnsafeBufferPointer { values in
            splits.withUnsafeBufferPointer { splits in
                leafValues.withUnsafeBufferPointer { leaves in
                    roots.withUnsafeBufferPointer { roots in
                        groupDepths.withUnsafeBufferPointer { depths in
                            quadDepths.withUnsafeBufferPointer { quadDepths in
                                body(Walker(values: values, splits: splits, leaves: leaves, roots: roots, depths: depths,
                                            quadDepths: quadDepths))
                            }
                        }
                    }
                }
            }
        }
    }

    /// LightGBM's numerical decision for one value at one split: a value goes left when
    /// `value <= threshold`; |x| ≤ 1e-35 reaches LightGBM's trees as 0 (its row conversion skips such
    /// values as zeros). By missing type: `NaN`: NaN goes the default way, 0 is compared; `Zero`: NaN
    /// is converted to 0 first, and both go the default way; `None`: NaN is compared as 0. Those
    /// outcomes are `nanGoesLeft` and `zeroGoesLeft`, worked out once per split.
    @inline(__always)
    static func goesLeft(_ value: Double, at split: Split, zeroThreshold: Double = GradientBoostedTrees.zeroThreshold) -> Bool {
        if value.isNaN { return split.nanGoesLeft }
        if value.magnitude <= zeroThreshold { return split.zeroGoesLeft }
        return value <= split.threshold
    }

    // MARK: Reading and checking the JSON

    struct ModelFile: Decodable {
        var format: String
        var featureNames: [String]
        var classNames: [String]
        var trees: [TreeFile]
        var testVectors: [TestVectorFile]?
    }

    struct TreeFile: Decodable {
        var feature: [Int]
        var threshold: [Double]
        var defaultLeft: [Int]
        var missingType: [Int]
        var left: [Int]
        var right: [Int]
        var leaf: [Double]
    }

    struct TestVectorFile: Decodable {
        var source: String
        var features: [Double?]
        var probabilities: [Double]
    }

    init(file: ModelFile) throws(GradientBoostedTreesError) {
        guard file.format == Self.formatName else {
            throw .invalidModel("format \"\(file.format)\", expected \"\(Self.formatName)\"")
        }
        guard !file.featureNames.isEmpty else { throw .invalidModel("no feature names") }
        guard !file.classNames.isEmpty else {
            throw .invalidModel("no class names; a binary model names its one class, a multiclass one each")
        }
        guard !file.trees.isEmpty, file.trees.count % file.classNames.count == 0 else {
            throw .invalidModel("\(file.trees.count) trees is not a positive multiple of the \(file.classNames.count) classes")
        }
        var splits: [Split] = []
        var leafValues: [Double] = []
        var roots: [Int32] = []
        var depths: [Int32] = []
        for (treeIndex, tree) in file.trees.enumerated() {
            let treeSplits = try Self.checkedSplits(of: tree, treeIndex: treeIndex, featureCount: file.featureNames.count)
            guard splits.count + treeSplits.count < Int(Int32.max), leafValues.count + tree.leaf.count < Int(Int32.max) else {
                throw .invalidModel("too many splits or leaves")
            }
            // renumber the tree's children into the whole model's arrays
            let splitBase = Int32(splits.count), leafBase = Int32(leafValues.count)
            func global(_ child: Int32) -> Int32 { child >= 0 ? child + splitBase : child - leafBase }
            roots.append(treeSplits.isEmpty ? global(-1) : splitBase)
            depths.append(Self.depth(of: treeSplits))
            for var split in treeSplits {
                split.left = global(split.left)
                split.right = global(split.right)
                splits.append(split)
            }
            leafValues += tree.leaf
        }
        var testVectors: [TestVector] = []
        for (index, vector) in (file.testVectors ?? []).enumerated() {
            guard vector.features.count == file.featureNames.count,
                  vector.probabilities.count == file.classNames.count else {
                throw .invalidModel("test vector \(index): \(vector.features.count) features and "
                    + "\(vector.probabilities.count) probabilities for \(file.featureNames.count) features "
                    + "and \(file.classNames.count) classes")
            }
            testVectors.append(TestVector(source: vector.source, features: vector.features.map { $0 ?? .nan },
                                          probabilities: vector.probabilities))
        }
        self.featureNames = file.featureNames
        self.classNames = file.classNames
        self.testVectors = testVectors
        self.splits = splits
        self.leafValues = leafValues
        self.roots = roots
        groupDepths = stride(from: 0, to: depths.count - (Self.walkWidth - 1), by: Self.walkWidth).map {
            depths[$0..<($0 + Self.walkWidth)].max()!
        }
        // only a binary model is asked `probabilityExceeds`
        quadDepths = stride(from: 0, to: depths.count - 3, by: 4).map { depths[$0..<($0 + 4)].max()! }
        remainingLeafRange = file.classNames.count != 1 ? [] : (0...quadDepths.count).map { group in
            file.trees[(4 * group)...].reduce((highest: 0.0, lowest: 0.0)) { range, tree in
                (range.highest + tree.leaf.max()!, range.lowest + tree.leaf.min()!)
            }
        }
    }

    /// The most splits on a path from the root to a leaf of one checked tree (tree-local children).
    static func depth(of splits: [Split]) -> Int32 {
        guard !splits.isEmpty else { return 0 }
        // children come after their parents, so one pass in order gives every split its depth
        var splitDepth = [Int32](repeating: 0, count: splits.count)
        splitDepth[0] = 1
        var deepest: Int32 = 1
        for (index, split) in splits.enumerated() {
            for child in [split.left, split.right] where child >= 0 {
                splitDepth[Int(child)] = splitDepth[index] + 1
                deepest = max(deepest, splitDepth[index] + 1)
            }
        }
        return deepest
    }

    /// One tree's splits with its own (tree-local) children, after checking that it is a well-formed
    /// binary tree: every split and leaf reached exactly once from the root, children after parents
    /// (so evaluation always ends), indices and codes in range, numbers finite.
    static func checkedSplits(of tree: TreeFile, treeIndex: Int, featureCount: Int) throws(GradientBoostedTreesError) -> [Split] {
        let splitCount = tree.feature.count
        func invalid(_ reason: String) -> GradientBoostedTreesError { .invalidModel("tree \(treeIndex): \(reason)") }
        let lengths = [tree.threshold.count, tree.defaultLeft.count, tree.missingType.count, tree.left.count, tree.right.count]
        guard lengths.allSatisfy({ $0 == splitCount }) else {
            throw invalid("feature, threshold, defaultLeft, missingType, left and right differ in length")
        }
        guard tree.leaf.count == splitCount + 1 else {
            throw invalid("\(tree.leaf.count) leaves for \(splitCount) splits (a binary tree has one more leaf than splits)")
        }
        guard tree.leaf.allSatisfy(\.isFinite), tree.threshold.allSatisfy({ !$0.isNaN }) else {
            throw invalid("a leaf value or threshold is not a number")
        }
        var splitReached = [Bool](repeating: false, count: splitCount)
        var leafReached = [Bool](repeating: false, count: tree.leaf.count)
        if splitCount > 0 { splitReached[0] = true } else { leafReached[0] = true }
        var splits: [Split] = []
        splits.reserveCapacity(splitCount)
        for index in 0..<splitCount {
            guard (0..<featureCount).contains(tree.feature[index]) else {
                throw invalid("split \(index) is on feature \(tree.feature[index]) of \(featureCount)")
            }
            guard (0...2).contains(tree.missingType[index]),
                  let missingType = MissingType(rawValue: UInt8(tree.missingType[index])) else {
                throw invalid("split \(index): missingType \(tree.missingType[index]) is not 0 (None), 1 (Zero) or 2 (NaN)")
            }
            guard tree.defaultLeft[index] == 0 || tree.defaultLeft[index] == 1 else {
                throw invalid("split \(index): defaultLeft \(tree.defaultLeft[index]) is not 0 or 1")
            }
            for child in [tree.left[index], tree.right[index]] {
                if child >= 0 {
                    guard child > index, child < splitCount else {
                        throw invalid("split \(index) has child split \(child): children must come after their parent, within the tree")
                    }
                    guard !splitReached[child] else { throw invalid("split \(child) is reached twice") }
                    splitReached[child] = true
                } else {
                    let leaf = -(child + 1)
                    guard leaf < tree.leaf.count else { throw invalid("split \(index) has child leaf \(leaf) of \(tree.leaf.count)") }
                    guard !leafReached[leaf] else { throw invalid("leaf \(leaf) is reached twice") }
                    leafReached[leaf] = true
                }
            }
            splits.append(Split(threshold: tree.threshold[index], feature: Int32(tree.feature[index]),
                                left: Int32(tree.left[index]), right: Int32(tree.right[index]),
                                missingType: missingType, defaultLeft: tree.defaultLeft[index] == 1))
        }
        // with one more leaf than splits and nothing reached twice, every part is reached; checked anyway
        guard splitReached.allSatisfy({ $0 }), leafReached.allSatisfy({ $0 }) else {
            throw invalid("a split or leaf is not reachable from the root")
        }
        return splits
    }

    /// A DecodingError said in one line: what was wrong, and where (the coding path as keys and indices).
    static func explanation(of error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "key \"\(key.stringValue)\" missing (at \(path(context.codingPath)))"
        case .typeMismatch(let type, let context):
            return "expected \(type) (at \(path(context.codingPath)))"
        case .valueNotFound(let type, let context):
            return "expected \(type), found null (at \(path(context.codingPath)))"
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { ": \($0.localizedDescription)" } ?? ""
            return "\(context.debugDescription)\(underlying) (at \(path(context.codingPath)))"
        @unknown default:
            return String(describing: error)
        }
    }
}

// `ModelJSONReader`'s reading of the same structs: every member the Decodable ones require, the
// optional one (testVectors) absent or null as nil, other keys passed over.

extension GradientBoostedTrees.ModelFile {
    static func read(_ reader: inout ModelJSONReader) throws -> Self {
        var format: String?, featureNames: [String]?, classNames: [String]?, trees: [GradientBoostedTrees.TreeFile]?
        var testVectors: [GradientBoostedTrees.TestVectorFile]?
        try reader.object { reader, key in
            switch key {
            case "format": format = try reader.string()
            case "featureNames": featureNames = try reader.strings()
            case "classNames": classNames = try reader.strings()
            case "trees":
                var list: [GradientBoostedTrees.TreeFile] = []
                try reader.array { reader in list.append(try GradientBoostedTrees.TreeFile.read(&reader)) }
                trees = list
            case "testVectors":
                if try reader.null() { break }
                var list: [GradientBoostedTrees.TestVectorFile] = []
                try reader.array { reader in list.append(try GradientBoostedTrees.TestVectorFile.read(&reader)) }
                testVectors = list
            default: try reader.skipValue()
            }
        }
        return Self(format: try format.requiredMember(), featureNames: try featureNames.requiredMember(),
                    classNames: try classNames.requiredMember(), trees: try trees.requiredMember(),
                    testVectors: testVectors)
    }
}

extension GradientBoostedTrees.TreeFile {
    static func read(_ reader: inout ModelJSONReader) throws -> Self {
        var feature: [Int]?, threshold: [Double]?, defaultLeft: [Int]?, missingType: [Int]?
        var left: [Int]?, right: [Int]?, leaf: [Double]?
        try reader.object { reader, key in
            switch key {
            case "feature": feature = try reader.ints()
            case "threshold": threshold = try reader.doubles()
            case "defaultLeft": defaultLeft = try reader.ints()
            case "missingType": missingType = try reader.ints()
            case "left": left = try reader.ints()
            case "right": right = try reader.ints()
            case "leaf": leaf = try reader.doubles()
            default: try reader.skipValue()
            }
        }
        return Self(feature: try feature.requiredMember(), threshold: try threshold.requiredMember(),
                    defaultLeft: try defaultLeft.requiredMember(), missingType: try missingType.requiredMember(),
                    left: try left.requiredMember(), right: try right.requiredMember(), leaf: try leaf.requiredMember())
    }
}

extension GradientBoostedTrees.TestVectorFile {
    static func read(_ reader: inout ModelJSONReader) throws -> Self {
        var source: String?, features: [Double?]?, probabilities: [Double]?
        try reader.object { reader, key in
            switch key {
            case "source": source = try reader.string()
            case "features": features = try reader.optionalDoubles()
            case "probabilities": probabilities = try reader.doubles()
            default: try reader.skipValue()
            }
        }
        return Self(source: try source.requiredMember(), features: try features.requiredMember(),
                    probabilities: try probabilities.requiredMember())
    }
}
