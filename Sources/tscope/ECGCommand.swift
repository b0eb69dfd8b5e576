import ArgumentParser
import CommandOptions
import Foundation
import Runs

/// `tscope ecg …`: the ECG pipeline's commands.
struct ECGCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ecg",
        abstract: "ECG records, streams and the QRS detector: watch strips and the 12-lead view, score the detector.",
        subcommands: [ECGWatchCommand.self, ECGScoreCommand.self, ECGDetectCommand.self, ECGMonitorCommand.self, ECGClassifyCommand.self, ECGConvertCommand.self],
        defaultSubcommand: ECGWatchCommand.self
    )
}

/// `tscope ecg score SOURCE`: detector accuracy against reference beats.
struct ECGScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score QRS detection, beat classes (V, S) and AF (--rhythm) against reference annotations.",
        discussion: """
            The reference: --reference FILE, a WFDB annotation file (e.g. 100.atr, 100.qrs) or a CSV of \
            sample indices or times (a `sample` or `time` column, or one column without header); by \
            default a WFDB record's .atr. --from/--to score an excerpt: detection starts at --from, as \
            if the recording began there. A detection matches the nearest unmatched reference beat within \
            the window (ANSI/AAMI EC57). Against a WFDB annotation file the report adds the beat \
            classes as an EC57 report does: Se and +P of ventricular (V) and supraventricular (S) \
            ectopic beats (reference F and Q beats are not counted against +P).
            """
    )

    @Argument(help: "A WFDB record (path with or without .hea) or a CSV file; \"synthetic\" with --to; or --stdin / --serial.")
    var source: String?

    @OptionGroup var sourceOptions: ECGSourceOptions

    @Option(help: "Reference beats: a WFDB annotation file or a CSV of sample indices or times (default: the record's .atr).")
    var reference: String?

    @Option(help: "Start of the excerpt to score [s].")
    var from: Double?

    @Option(help: "End of the excerpt to score [s].")
    var to: Double?

    @Option(help: "WFDB annotation file of the record to take the reference beats from when no --reference is given: <record>.<annotator>.")
    var annotator: String = "atr"

    @Option(help: "Match window [ms] (10–1000).")
    var window: Double = 150

    @Flag(help: "Also score atrial fibrillation against the reference's rhythm notes ((AFIB …): per-second Se, Sp, PPV and episode Se, PPV.")
    var rhythm = false

    func validate() throws {
        try sourceOptions.validate(sourcePath: source)
        try validateExcerpt(from: from, to: to)
        guard window.isFinite, window >= 10, window <= 1000 else { throw ValidationError("--window \(window): expected 10 to 1000 ms") }
    }

    func run() throws {
        var score = ECGScoreRun(source: sourceOptions.request, sourcePath: source)
        score.reference = reference
        score.annotator = annotator
        score.from = from
        score.to = to
        score.windowMilliseconds = window
        score.rhythm = rhythm
        try reportingECGErrors { print(try score.run()) }
    }
}
