import ArgumentParser
import ECG
import Runs

/// `ecg score`'s own options: the reference, the excerpt, the match window
/// and the rhythm scoring, turned into an `ECGScoreRun`.
public struct ECGScoreOptions: ParsableArguments {
    public init() {}

    @Option(help: "Reference beats: a WFDB annotation file or a CSV of sample indices or times (default: the record's .atr).")
    public var reference: String?

    @Option(help: "Start of the excerpt to score [s].")
    public var from: Double?

    @Option(help: "End of the excerpt to score [s].")
    public var to: Double?

    @Option(help: "WFDB annotation file of the record to take the reference beats from when no --reference is given: <record>.<annotator>.")
    public var annotator: String = "atr"

    @Option(help: "Match window [ms] (10–1000).")
    public var window: Double = 150

    @Flag(help: "Also score atrial fibrillation against the reference's rhythm notes ((AFIB …): per-second Se, Sp, PPV and episode Se, PPV.")
    public var rhythm = false

    /// a held-out V model (Tools/train-beat-model --held-out-models) instead of the committed one
    @Option(help: .hidden)
    public var beatModel: String?

    public func validate() throws {
        try validateExcerpt(from: from, to: to)
        guard window.isFinite, window >= 10, window <= 1000 else { throw ValidationError("--window \(window): expected 10 to 1000 ms") }
    }

    /// The score run of `source` (a path, or nil for --stdin/--serial) with these options.
    public func run(source: ECGSourceRequest, sourcePath: String?, beats: BeatListRequest? = nil) throws -> ECGScoreRun {
        var score = ECGScoreRun(source: source, sourcePath: sourcePath)
        score.reference = reference
        score.annotator = annotator
        score.from = from
        score.to = to
        score.windowMilliseconds = window
        score.rhythm = rhythm
        score.beats = beats
        if let beatModel { score.beatModel = try BeatModelChoice.trees(file: beatModel) }
        return score
    }
}
