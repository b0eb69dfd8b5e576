import ArgumentParser
import ECG
import Foundation
import Runs

/// `tscope ecg detect SOURCE --out FILE`: the detector's beats for other tools.
struct ECGDetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Detect QRS complexes and write them as a WFDB annotation file or a CSV.",
        discussion: """
            --out x.csv writes `sample,time,type` (time in s from the start, type N); any other name \\
            (100.qrs, 100.det) a WFDB annotation file for rdann, bxb or wfdb-python's rdann, annotator \\
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

    func validate() throws {
        try sourceOptions.validate(sourcePath: source)
        try ECGExcerpt.validate(from: from, to: to)
        guard !out.isEmpty, !out.hasSuffix("/") else { throw ValidationError("--out: expected a file name") }
    }

    func run() throws {
        do {
            let file = try sourceOptions.readWhole(sourcePath: source, until: to)
            let record = file.record
            let lead = try sourceOptions.detectionLead(file)
            let excerpt = try ECGExcerpt(record: record, from: from, to: to)
            let beats = QRSDetector.detect(Array(record.samples[lead][excerpt.samples]), sampleRate: record.sampleRate)
                .map { $0 + excerpt.samples.lowerBound }
            let bytes: [UInt8]
            if (out as NSString).pathExtension.lowercased() == "csv" {
                bytes = Array(BeatAnnotationWriter.csv(beats: beats, sampleRate: record.sampleRate).utf8)
            } else {
                bytes = BeatAnnotationWriter.wfdb(beats: beats)
            }
            guard FileManager.default.createFile(atPath: out, contents: Data(bytes)) else {
                throw ECGError(file: out, "cannot write (no such directory, or no permission)")
            }
            printError("\(record.name): \(beats.count) beats on lead \(lead) (\(record.leadNames[lead])) → \(out)")
        } catch let error as ECGError {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}
