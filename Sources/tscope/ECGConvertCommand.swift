import ArgumentParser
import ECG
import Foundation
import Runs

/// `tscope ecg convert IN OUT [--lead L]…`: between WFDB, EDF/EDF+ and CSV, by extension.
struct ECGConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an ECG record between WFDB (.hea or no extension), EDF/EDF+ (.edf) and CSV (.csv).",
        discussion: """
            Samples are copied as stored (16-bit digital values with their gain, baseline and units) \
            between WFDB and EDF, with lead names and annotations. CSV holds one rate: time_s and each lead in mV; \
            leads at other rates and annotations are left out and named on stderr.
            """
    )

    @Argument(help: "The record to read: a WFDB record, an .edf file or a .csv file.")
    var input: String

    @Argument(help: "The file to write; its extension chooses the format.")
    var output: String

    @Option(name: .customLong("lead"), help: "A lead to keep: its label (exact) or index from 0; repeat for several (default: all).")
    var leads: [String] = []

    @Option(help: "WFDB annotation file of the input to carry over: <record>.<annotator>.")
    var annotator: String = "atr"

    @Option(help: "A CSV input's sample rate [Hz], checked against its time column.")
    var rate: Double?

    func run() throws {
        do {
            var recording = try ECGRecordFormat.readRecording(path: input, annotator: annotator, declaredRate: rate)
            var written: [String]
            for note in recording.notes { printError("\(input): \(note)") }
            if !leads.isEmpty {
                let chosen = try leads.map { try LeadSelector($0).resolve(in: recording.labels, file: input) }
                recording.signals = chosen.map { recording.signals[$0] }
            }
            switch ECGRecordFormat(path: output) {
            case .edf:
                try EDFWriter.write(recording, to: output)
                written = recording.signals.map { "\($0.label) \(Self.rate($0.sampleRate)) Hz" }
            case .wfdb:
                try WFDBWriter.write(recording, to: output)
                written = recording.signals.map { "\($0.label) \(Self.rate($0.sampleRate)) Hz" }
            case .csv:
                let (record, _, others) = try recording.record(lead: leads.first.map(LeadSelector.init), file: input)
                if !others.isEmpty { printError("\(output): at another rate than \(record.sampleRate) Hz, not written: \(others.joined(separator: ", "))") }
                if !recording.annotations.isEmpty { printError("\(output): CSV holds no annotations: \(recording.annotations.count) left out") }
                try CSVRecordWriter.write(record, to: output)
                written = record.leadNames.map { "\($0) \(Self.rate(record.sampleRate)) Hz" }
                recording.annotations = []
            }
            printError("\(input) → \(output): \(written.joined(separator: ", ")); \(recording.annotations.count) annotations")
        } catch let error as ECGError {
            printError(error.description)
            throw ExitCode.failure
        }
    }

    /// a rate as people write it: 360, 0.9765625, 360 for a CSV's measured 359.99999996
    static func rate(_ hz: Double) -> String { String(format: "%.9g", hz) }
}
