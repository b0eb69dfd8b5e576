import ArgumentParser
import CommandOptions
import Foundation
import Runs

/// `tscope ecg classify SOURCE...`: a verdict per recording, as a KardiaMobile gives one.
struct ECGClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Give each recording a verdict: normal, af, other, noisy or too_short, with heart rate, beats per class and reasons.",
        discussion: """
            A screening aid, not a diagnosis: tscope is not a medical device, and a verdict is no \
            substitute for a clinician reading the ECG. Each recording (WFDB, EDF, CSV; many in one run) \
            runs through the ecg monitor pipeline: QRS detection, beat classes (N, S, V, Q), the AF \
            detector; its features go to gradient-boosted trees blended with a small neural network, both \
            trained on the development half of the PhysioNet/CinC 2017 set (Docs/ecg.md, "A verdict per recording"). too_short: under 8 s of \
            signal. --json prints one object per recording: {"record":…,"verdict":…,"heart_rate":…,\
            "beats":{"N":…,"S":…,"V":…,"Q":…},"af_burden":…,"probabilities":{…},"parts_judged":…,"reasons":[…]}; \
            when the model is unsure of a recording of 18 s or more (its two likeliest verdicts within 0.2) it also judges \
            three half-length parts and the probabilities are their mean with the whole's. A file \
            that cannot be read gets a one-line error and the rest are still classified; the exit status \
            is then 1. --labels FILE (`record,label`, labels N, A, O, ~ as the challenge's REFERENCE.csv) \
            adds F1 per class and the challenge score (mean F1 of normal, af, other). With --beats ANN each \
            record is judged from its beat annotations REC.ANN alone, as a Holter summary: af with an AF \
            episode (AF held 30 s), else noisy when over half the time is unreadable, else other with a \
            brady-, tachycardia or irregular episode, else normal; too_short under 30 s; --json gives {"record":…,"verdict":…,\
            "heart_rate":…,"duration_s":…,"beats":{…},"af_burden":…,"af_episodes":[{"start":…,"end":…}],\
            "unreadable_s":…}.
            """
    )

    @Argument(help: "Recordings: WFDB records (with or without .hea), EDF or CSV files, or directories of them (the records a PhysioNet RECORDS file lists, else every .hea and .edf, by name).")
    var sources: [String]

    @OptionGroup var sourceOptions: ECGSourceOptions

    @OptionGroup var beatOptions: ECGBeatInputOptions

    @Flag(help: "One JSON object per recording (and the score, with --labels).")
    var json = false

    @Option(help: "Reference labels, `record,label` per line (the CinC 2017 REFERENCE.csv): score the verdicts.")
    var labels: String?

    @Option(help: "Write each recording's features as CSV (record,label,…) for Tools/train-ecg-verdict.")
    var features: String?

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("expected at least one recording") }
        try sourceOptions.validate(sourcePath: sources[0])
        if beatOptions.rr != nil { throw ValidationError("--rr: classify reads records; give their beat annotations with --beats ANN") }
        if beatOptions.beats != nil, features != nil {
            throw ValidationError("--features measures a signal; --beats reads beat annotations only")
        }
    }

    func run() throws {
        var classify = ECGClassifyRun(source: sourceOptions.request, paths: sources)
        classify.json = json
        classify.labels = labels
        classify.featuresOutput = features
        classify.beatAnnotator = beatOptions.beats
        var failures = 0
        try reportingECGErrors { failures = try classify.run() }
        if failures > 0 { throw ExitCode.failure }
    }
}
