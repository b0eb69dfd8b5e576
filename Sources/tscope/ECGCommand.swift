import ArgumentParser
import ECG
import Foundation
import Runs

/// `tscope ecg …`: the ECG pipeline's commands.
struct ECGCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ecg",
        abstract: "ECG records, streams and the QRS detector: watch strips and the 12-lead view, score the detector.",
        subcommands: [ECGWatchCommand.self, ECGScoreCommand.self, ECGDetectCommand.self, ECGMonitorCommand.self, ECGConvertCommand.self],
        defaultSubcommand: ECGWatchCommand.self
    )
}

/// `tscope ecg score SOURCE`: detector accuracy against reference beats.
struct ECGScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score QRS detection on a source against reference beats (Se, +P, TP/FP/FN).",
        discussion: """
            The reference: --reference FILE, a WFDB annotation file (e.g. 100.atr, 100.qrs) or a CSV of \
            sample indices or times (a `sample` or `time` column, or one column without header); by \
            default a WFDB record's .atr. --from/--to score an excerpt: detection starts at --from, as \
            if the recording began there. A detection matches the nearest unmatched reference beat within \
            the window (ANSI/AAMI EC57).
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

    func validate() throws {
        try sourceOptions.validate(sourcePath: source)
        try ECGExcerpt.validate(from: from, to: to)
        guard window.isFinite, window >= 10, window <= 1000 else { throw ValidationError("--window \(window): expected 10 to 1000 ms") }
    }

    func run() throws {
        do {
            let file = try sourceOptions.readWhole(sourcePath: source, until: to, annotator: annotator, unused: "not scored")
            let record = file.record
            let lead = try sourceOptions.detectionLead(file)
            let allReference: [Int]
            if let reference {
                allReference = try BeatReference.read(path: reference, sampleRate: record.sampleRate)
            } else if !file.referenceBeats.isEmpty {
                allReference = file.referenceBeats
            } else {
                let sourceName = source ?? record.name
                // a WFDB record's reference is its annotation file: name the one that was looked for
                let isRecord = source != nil && ECGRecordFormat(path: sourceName) == .wfdb && sourceName != "synthetic"
                throw ECGError(file: isRecord ? WFDBRecordReader.recordBase(sourceName) + "." + annotator : sourceName,
                               "no reference beats: give --reference FILE (a WFDB annotation file, or a CSV of sample indices or times)")
            }
            let excerpt = try ECGExcerpt(record: record, from: from, to: to)
            let samples = Array(record.samples[lead][excerpt.samples])
            let detections = QRSDetector.detect(samples, sampleRate: record.sampleRate)
            let referenceBeats = allReference.filter { excerpt.samples.contains($0) }.map { $0 - excerpt.samples.lowerBound }
            let score = BeatScore(reference: referenceBeats, detections: detections,
                                  window: Int((window / 1000 * record.sampleRate).rounded()))
            print(ECGScoreReport(record: record, lead: lead, fileLead: file.fileIndices[lead], excerpt: excerpt, score: score).text)
        } catch let error as ECGError {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}

/// The samples --from/--to select.
struct ECGExcerpt {
    var samples: Range<Int>
    var isWhole: Bool
    var sampleRate: Double

    static func validate(from: Double?, to: Double?) throws {
        if let from, !(from.isFinite && from >= 0) { throw ValidationError("--from \(from): expected 0 s or later") }
        if let to, !(to.isFinite && to > 0) { throw ValidationError("--to \(to): expected a time after 0 s") }
        if let from, let to, to <= from { throw ValidationError("--to \(to) must come after --from \(from)") }
    }

    init(record: ECGRecord, from: Double?, to: Double?) throws {
        sampleRate = record.sampleRate
        let first = Int(((from ?? 0) * record.sampleRate).rounded())
        let last = min(record.frameCount, to.map { Int(($0 * record.sampleRate).rounded()) } ?? record.frameCount)
        guard first < last else {
            throw ECGError(file: record.name, String(format: "--from %.3f s is past the end (%.3f s)", from ?? 0, record.duration))
        }
        samples = first..<last
        isWhole = first == 0 && last == record.frameCount
    }

    var text: String {
        String(format: "%.3f–%.3f s", Double(samples.lowerBound) / sampleRate, Double(samples.upperBound) / sampleRate)
    }
}

/// The score as printed: one line per figure, percentages to two decimals.
struct ECGScoreReport {
    let record: ECGRecord
    let lead: Int
    /// the lead's index in the file (leads reordered, or at other rates left out)
    var fileLead: Int
    var excerpt: ECGExcerpt?
    let score: BeatScore

    var text: String {
        let percent = { (value: Double) in String(format: "%.2f %%", value * 100) }
        return """
        record \(record.name), lead \(fileLead) (\(record.leadNames[lead])), \(record.frameCount) samples at \(record.sampleRate) Hz\(excerpt.map { $0.isWhole ? "" : ", excerpt \($0.text)" } ?? "")
        Se  \(percent(score.sensitivity))
        +P  \(percent(score.positivePredictivity))
        TP  \(score.truePositives)
        FP  \(score.falsePositives)
        FN  \(score.falseNegatives)
        """
    }
}
