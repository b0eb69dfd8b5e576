import ArgumentParser
import CommandOptions
import Foundation
import Runs

/// `tscope ecg convert IN OUT [--lead L]…`: between WFDB, EDF/EDF+ and CSV, by extension.
struct ECGConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an ECG record between WFDB (.hea or no extension), EDF/EDF+ (.edf) and CSV (.csv).",
        discussion: """
            Samples are copied as stored (16-bit digital values with their gain, baseline and units) between WFDB and EDF, \
            with lead names and annotations. CSV holds one rate: time_s and each lead in mV; leads at other rates and \
            annotations are left out and named on stderr.
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

    @Option(help: "Write only from this time [s from the record's start] (as WFDB's snip): annotations move with it, the rhythm in force is repeated at its start.")
    var from: Double?

    @Option(help: "Write only up to this time [s from the record's start]; past the end: the end.")
    var to: Double?

    @Flag(help: "Refuse an EDF input whose data ends before its header's record count (default: convert its complete records, with a warning).")
    var strict = false

    func validate() throws {
        try validateExcerpt(from: from, to: to)
    }

    func run() throws {
        var convert = ECGConvertRun(input: input, output: output)
        convert.leads = leads
        convert.annotator = annotator
        convert.rate = rate
        convert.strict = strict
        convert.from = from
        convert.to = to
        try reportingECGErrors { printError(try convert.run()) }
    }
}
