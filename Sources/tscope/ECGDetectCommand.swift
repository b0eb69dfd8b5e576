import ArgumentParser
import CommandOptions
import Foundation
import Runs

/// `tscope ecg detect SOURCE --out FILE`: the detector's beats for other tools.
struct ECGDetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Detect QRS complexes and write them as a WFDB annotation file or a CSV.",
        discussion: """
            --out x.csv writes `sample,time,type` (time in s from the start; type the beat class as an MIT code: N normal, V ventricular ectopic, S supraventricular ectopic, Q unclassifiable); any other name \
            (100.qrs, 100.det) a WFDB annotation file for rdann, bxb or wfdb-python's rdann, annotator \
            = the extension. Samples count from the start of the recording, --from included.
            """
    )

    @Argument(help: "A WFDB record (path with or without .hea) or a CSV file; \"synthetic\" with --to; or --stdin / --serial.")
    var source: String?

    @OptionGroup var sourceOptions: ECGSourceOptions

    @Option(help: "Where the beats go: NAME.csv, or a WFDB annotation file such as 100.qrs.")
    var out: String

    @Option(help: "Start of the excerpt to detect on [s].")
    var from: Double?

    @Option(help: "End of the excerpt to detect on [s].")
    var to: Double?

    @Option(help: .hidden)
    var beatFeatures: String?

    func validate() throws {
        try sourceOptions.validate(sourcePath: source)
        try validateExcerpt(from: from, to: to)
        guard !out.isEmpty, !out.hasSuffix("/") else { throw ValidationError("--out: expected a file name") }
    }

    func run() throws {
        var detect = ECGDetectRun(source: sourceOptions.request, sourcePath: source, output: out)
        detect.from = from
        detect.to = to
        detect.beatFeaturesOutput = beatFeatures
        try reportingECGErrors { printError(try detect.run()) }
    }
}
