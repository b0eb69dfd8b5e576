import Foundation
import ArgumentParser
import ECG

/// `tscope ecg …`: the ECG pipeline's commands.
struct ECGCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ecg",
        abstract: "ECG records, streams and the QRS detector: watch strips and the 12-lead view, score the detector.",
        subcommands: [ECGWatchCommand.self, ECGScoreCommand.self],
        defaultSubcommand: ECGWatchCommand.self
    )
}

/// `tscope ecg score RECORD [--lead N]`: detector accuracy against the record's `.atr`.
struct ECGScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Compare QRS detections on a WFDB record with its .atr reference beats (150 ms match window)."
    )

    @Argument(help: "WFDB record path without extension (or its .hea), e.g. data/100")
    var record: String

    @Option(help: "Lead to detect on, counting from 0.")
    var lead: Int = 0

    func validate() throws {
        guard lead >= 0 else { throw ValidationError("--lead must be 0 or more") }
    }

    func run() throws {
        do {
            let recording = try WFDBRecordReader.read(path: record)
            guard lead < recording.leadNames.count else {
                throw ValidationError("--lead \(lead): the record has \(recording.leadNames.count) leads (0…\(recording.leadNames.count - 1))")
            }
            let annotationPath = (record.hasSuffix(".hea") ? String(record.dropLast(4)) : record) + ".atr"
            guard FileManager.default.fileExists(atPath: annotationPath) else {
                throw ECGError(file: annotationPath, "no reference annotations: scoring needs the record's .atr file")
            }
            let reference = try WFDBRecordReader.readAnnotations(recordPath: record).filter(\.isBeat).map(\.sample)
            let detections = QRSDetector.detect(recording.samples[lead], sampleRate: recording.sampleRate)
            let window = Int((0.150 * recording.sampleRate).rounded())
            let score = BeatScore(reference: reference, detections: detections, window: window)
            print(ECGScoreReport(record: recording, lead: lead, score: score).text)
        } catch let error as ECGError {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}

/// The score as printed: one line per figure, percentages to two decimals.
struct ECGScoreReport {
    let record: ECGRecord
    let lead: Int
    let score: BeatScore

    var text: String {
        let percent = { (value: Double) in String(format: "%.2f %%", value * 100) }
        return """
        record \(record.name), lead \(lead) (\(record.leadNames[lead])), \(record.frameCount) samples at \(record.sampleRate) Hz
        Se  \(percent(score.sensitivity))
        +P  \(percent(score.positivePredictivity))
        TP  \(score.truePositives)
        FP  \(score.falsePositives)
        FN  \(score.falseNegatives)
        """
    }
}
