import Foundation
import ArgumentParser
import ECG

/// `tscope ecg …`: the ECG pipeline's commands.
struct ECGCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ecg",
        abstract: "ECG records, streams and the QRS detector: watch strips and the 12-lead view, score the detector.",
        subcommands: [ECGWatchCommand.self, ECGScoreCommand.self, ECGConvertCommand.self],
        defaultSubcommand: ECGWatchCommand.self
    )
}

/// `tscope ecg score RECORD [--lead L] [--annotator A]`: detector accuracy against reference beats.
struct ECGScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Compare QRS detections on a WFDB record with its .atr reference beats, or on an EDF+ file with its beat annotations (150 ms match window)."
    )

    @Argument(help: "WFDB record path without extension (or its .hea), e.g. data/100, or an EDF+ file (.edf)")
    var record: String

    @Option(help: "Lead to detect on: its label (exact) or index from 0 (default: the first ECG lead).")
    var lead: String?

    @Option(help: "WFDB annotation file to take the reference beats from: <record>.<annotator>.")
    var annotator: String = "atr"

    func run() throws {
        do {
            let format = ECGRecordFormat(path: record)
            let annotationPath = WFDBRecordReader.recordBase(record) + "." + annotator
            if format == .wfdb, !FileManager.default.fileExists(atPath: annotationPath) {
                throw ECGError(file: annotationPath, "no reference annotations: scoring needs the record's .\(annotator) file")
            }
            let recording = try ECGRecordFormat.readRecording(path: record, annotator: annotator)
            let (playable, chosen, others) = try recording.record(lead: lead.map(LeadSelector.init), file: record)
            for note in recording.notes { printError("\(record): \(note)") }
            if !others.isEmpty {
                printError("\(record): at other rates than \(playable.leadNames[chosen]) (\(playable.sampleRate) Hz), not scored: \(others.joined(separator: ", "))")
            }
            let reference = recording.beatSamples(atRate: playable.sampleRate)
            guard !reference.isEmpty else {
                throw ECGError(file: format == .wfdb ? annotationPath : record, "no reference beats: nothing marks a beat to score against")
            }
            let detections = QRSDetector.detect(playable.samples[chosen], sampleRate: playable.sampleRate)
            let window = Int((0.150 * playable.sampleRate).rounded())
            let score = BeatScore(reference: reference, detections: detections, window: window)
            var report = ECGScoreReport(record: playable, lead: chosen, score: score)
            // the index as --lead counts it: in the file, not among the leads at its rate
            report.fileLead = recording.signals.indices.filter { recording.signals[$0].sampleRate == playable.sampleRate }[chosen]
            print(report.text)
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
    /// the lead's index in the file when it differs from `lead` (signals at other rates left out)
    var fileLead: Int?

    var text: String {
        let percent = { (value: Double) in String(format: "%.2f %%", value * 100) }
        return """
        record \(record.name), lead \(fileLead ?? lead) (\(record.leadNames[lead])), \(record.frameCount) samples at \(record.sampleRate) Hz
        Se  \(percent(score.sensitivity))
        +P  \(percent(score.positivePredictivity))
        TP  \(score.truePositives)
        FP  \(score.falsePositives)
        FN  \(score.falseNegatives)
        """
    }
}
