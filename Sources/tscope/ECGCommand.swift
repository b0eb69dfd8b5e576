import ArgumentParser
import CommandOptions
import Foundation
import Runs

/// `tscope ecg …`: the ECG pipeline's commands.
struct ECGCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ecg",
        abstract: "ECG records, streams and the QRS detector: watch strips and the 12-lead view, score the detector.",
        subcommands: [ECGWatchCommand.self, ECGScoreCommand.self, ECGDetectCommand.self, ECGMonitorCommand.self, ECGClassifyCommand.self, ECGConvertCommand.self, ECGDevicesCommand.self],
        defaultSubcommand: ECGWatchCommand.self
    )
}

/// `tscope ecg score SOURCE`: detector accuracy against reference beats.
struct ECGScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score QRS detection, beat classes (V, S) and AF (--rhythm) against reference annotations.",
        discussion: """
            The reference: --reference FILE, a WFDB annotation file (e.g. 100.atr, 100.qrs, or rdann's text of one) or a CSV \
            of sample indices or times (a `sample` or `time` column, or one column without header); by default a WFDB record's \
            .atr. --from/--to score an excerpt: detection starts at --from, as if the recording began there. A detection \
            matches the nearest unmatched reference beat within the window (ANSI/AAMI EC57). Against a WFDB annotation file \
            the report adds the beat classes as an EC57 report does: Se and +P of ventricular (V) and supraventricular (S) \
            ectopic beats (reference F and Q beats are not counted against +P). --beats ANN scores the record's beat \
            annotations REC.ANN (e.g. qrs, an automatic annotator's) instead of the detector, without reading the signal; with \
            --rhythm, the rhythm engine runs on them (AF from beat times alone) and the report adds the seconds judged \
            unreadable and the AF burden against the reference's. --rr FILE with --reference scores an RR list whose beat \
            times share the reference's clock (ann2rr's `start interval end` lines keep the record's sample numbers).
            """
    )

    @Argument(help: "A WFDB record (path with or without .hea) or a CSV file; \"synthetic\" with --to; or --stdin / --serial.")
    var source: String?

    @OptionGroup var sourceOptions: ECGSourceOptions

    @OptionGroup var scoreOptions: ECGScoreOptions

    @OptionGroup var beatOptions: ECGBeatInputOptions

    func validate() throws {
        try sourceOptions.validate(sourcePath: source)
        if beatOptions.rr != nil, scoreOptions.reference == nil {
            throw ValidationError("--rr: an RR list has no record beside it: give the reference with --reference FILE (on the list's clock, e.g. ann2rr's sample numbers)")
        }
        try beatOptions.validate(sourcePath: source, streams: sourceOptions.isStream)
    }

    func run() throws {
        try reportingECGErrors {
            print(try scoreOptions.run(source: sourceOptions.request, sourcePath: source, beats: beatOptions.request).run())
        }
    }
}
