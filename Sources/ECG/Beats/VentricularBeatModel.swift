import Foundation

/// Which decision follows `BeatClassifier`'s rules on whether a beat is V.
public enum BeatModelChoice: Sendable {
    /// the rules' classes stand
    case rulesAlone
    /// the committed trees (`VentricularBeatModelData`) at their threshold
    case committed
    /// other trees of the same features at the committed threshold: Tools/train-beat-model's
    /// held-out models, so that what reads the classes (AF) is scored on records the trees never saw
    case trees(GradientBoostedTrees)

    /// A model file as Tools/train-beat-model writes it (`--held-out-models`), checked to read
    /// `VentricularBeatModel.modelFeatureNames` and give one probability.
    public static func trees(file path: String) throws -> BeatModelChoice {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ECGError(file: path, "cannot read the beat model (no such file, or no permission)")
        }
        let trees: GradientBoostedTrees
        do {
            trees = try GradientBoostedTrees(jsonData: data)
        } catch {
            throw ECGError(file: path, error.description)
        }
        guard trees.featureNames == VentricularBeatModel.modelFeatureNames, trees.classCount == 1 else {
            throw ECGError(file: path, "expected a binary model of the \(VentricularBeatModel.modelFeatureNames.count) "
                + "beat features VentricularBeatModel reads, found \(trees.classCount) classes of "
                + "\(trees.featureCount) features")
        }
        return .trees(trees)
    }
}

/// The learnt ventricular-beat decision that follows `BeatClassifier`'s rules: gradient-boosted trees
/// (`VentricularBeatModelData`, trained by Tools/train-beat-model on de Chazal's DS1 half of the
/// MIT-BIH Arrhythmia Database) over a beat's own shape and timing measures
/// (`BeatClassifier.featureNames`) and those of the classifiable beats before and after it
/// (`neighbourFeatures`: a ventricular beat stands out from both neighbours, and its successor's
/// pause says it came early). A beat whose P(V) exceeds the model's threshold is V; one the rules
/// called V but the trees do not is N; otherwise the rules' class (S, N) stands. Unclassifiable
/// beats (Q: too noisy to measure) pass through unchanged and have no feature row.
///
/// Because the next classifiable beat's row is known only once the classifier has decided that
/// beat too, labels come one classifiable beat later than the rules'. Per stream, like the
/// classifier; storage is allocated in `init` (the wait queue grows to the longest run of Q beats).
final class VentricularBeatModel {
    /// the own measures whose previous and next classifiable beats' values the trees also read,
    /// in the model's order (`prev_NAME`, `next_NAME` for each): Tools/train-beat-model's NEIGHBOUR_FEATURES
    static let neighbourFeatures = [
        "correlation", "size_ratio", "residual_ratio", "window_correlation", "width_ratio",
        "prematurity", "pause_after", "interval_ratio", "area_ratio", "projection",
    ]

    /// every value the trees read, in their order
    static let modelFeatureNames = BeatClassifier.featureNames
        + neighbourFeatures.flatMap { ["prev_\($0)", "next_\($0)"] }

    /// the committed model, read once; nil only if the data file does not match this code
    /// (a test checks that it does)
    static let committed: GradientBoostedTrees? = {
        guard let trees = try? GradientBoostedTrees(json: VentricularBeatModelData.json),
              trees.featureNames == modelFeatureNames, trees.classCount == 1 else { return nil }
        return trees
    }()

    private let trees: GradientBoostedTrees
    /// P(V) above which a beat is V (chosen by leave-one-record-out cross-validation on DS1)
    private let threshold: Double
    /// `neighbourFeatures` as indices into a beat's own row
    private let neighbourColumns: [Int]
    /// the beats decided by the rules and not yet here: the one waiting for the next classifiable
    /// beat's row (first, when `hasWaiting`), then Q beats after it
    private var queue: [ClassifiedBeat] = []
    private var hasWaiting = false
    /// own rows: the last classifiable beat labelled here (NaN before the first), the waiting one
    private var previousRow: [Double]
    private var waitingRow: [Double]
    private var modelRow: [Double]

    convenience init?(_ choice: BeatModelChoice) {
        switch choice {
        case .rulesAlone: return nil
        case .committed: self.init()
        case .trees(let trees): self.init(trees: trees)
        }
    }

    init?(trees: GradientBoostedTrees? = VentricularBeatModel.committed,
          threshold: Double = VentricularBeatModelData.threshold) {
        guard let trees, trees.featureNames == Self.modelFeatureNames else { return nil }
        self.trees = trees
        self.threshold = threshold
        neighbourColumns = Self.neighbourFeatures.map { BeatClassifier.featureNames.firstIndex(of: $0)! }
        previousRow = Array(repeating: .nan, count: BeatClassifier.featureNames.count)
        waitingRow = previousRow
        modelRow = Array(repeating: .nan, count: Self.modelFeatureNames.count)
        queue.reserveCapacity(8)
    }

    /// Takes the rules' decision on one beat, with its own feature row (nil for a Q beat), and
    /// appends the beats now labelled, in time order.
    func add(_ beat: ClassifiedBeat, row: [Double]?, decided: inout [ClassifiedBeat]) {
        guard let row else {
            if hasWaiting { queue.append(beat) } else { decided.append(beat) }
            return
        }
        if hasWaiting { labelWaiting(next: row, decided: &decided) }
        for index in waitingRow.indices { waitingRow[index] = row[index] }
        queue.append(beat)
        hasWaiting = true
    }

    /// Ends the stream: the waiting beat is labelled without a next one.
    func finish(decided: inout [ClassifiedBeat]) {
        if hasWaiting {
            labelWaiting(next: nil, decided: &decided)
        } else {
            decided.append(contentsOf: queue)
            queue.removeAll(keepingCapacity: true)
        }
    }

    private func labelWaiting(next: [Double]?, decided: inout [ClassifiedBeat]) {
        let own = waitingRow.count
        for index in 0..<own { modelRow[index] = waitingRow[index] }
        for (position, column) in neighbourColumns.enumerated() {
            modelRow[own + 2 * position] = previousRow[column]
            modelRow[own + 2 * position + 1] = next?[column] ?? .nan
        }
        var beat = queue[0]
        if trees.probabilityExceeds(threshold, for: modelRow) {
            beat.beatClass = .ventricular
        } else if beat.beatClass == .ventricular {
            beat.beatClass = .normal
        }
        decided.append(beat)
        decided.append(contentsOf: queue[1...])
        queue.removeAll(keepingCapacity: true)
        swap(&previousRow, &waitingRow)
        hasWaiting = false
    }
}
