import ArgumentParser
import CommandOptions
import Foundation
import Runs

/// `tscope ecg monitor SOURCE --json`: the pipeline without a screen, for scripts.
struct ECGMonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Run the ECG pipeline headless: heart rate, rhythm and events as JSON Lines (or text).",
        discussion: """
            Once per second of signal: {"time":12,"heart_rate":72.4,"rhythm":"normal","status":"ok",\
            "text":"Sinus rhythm 72 bpm","ectopic_per_min":0.0,"af_burden":0.0}; heart_rate is null and \
            status "waiting" until two beats came; status is "ok", "waiting", "noisy", "signal_lost" or \
            "unreadable" (beat times that cannot be a heart's); rhythm one of normal, bradycardia, \
            tachycardia, af, irregular, pause, signal_lost, noisy, unreadable; \
            af_burden is the share of the time so far in AF. An abnormal rhythm that has held long \
            enough (AF 30 s) is one episode, a line when it ends: \
            {"event":"af","start":7.95,"end":383.75,"duration_s":375.8,"heart_rate":90.8,\
            "mean_heart_rate":88.1,"max_heart_rate":131.0} (heart_rate when it was confirmed, the mean and \
            highest over the episode). The last line sums up: {"summary":true,"duration_s":…,"af_burden":…,\
            "af_burden_by_hour":[…],"episodes":{…},"beats":{"N":…,"S":…,"V":…,"Q":…}}. A file plays at its rate (--speed, or \
            max for as fast as it reads); --stdin and --listen take numbers or JSON Lines \
            {"time":…,"amplitude":…} (a number, or an array of consecutive samples). \
            --beats ANN reads a record's beat annotations (REC.ANN: a Holter export, LTAFDB's qrs) and --rr FILE \
            an RR-interval list instead of a signal: the same rhythm engine and lines, with rhythm and status \
            "unreadable" where the beats cannot be a heart's (gaps over 5 s, beats under 0.2 s apart).
            """
    )

    @Argument(help: "A WFDB record or CSV file; \"synthetic\" or nothing for the generator; or --stdin, --listen, --serial.")
    var source: String?

    @OptionGroup var sourceOptions: ECGSourceOptions

    @OptionGroup var beatOptions: ECGBeatInputOptions

    @Flag(help: "JSON Lines on stdout (default: one line of text per second).")
    var json = false

    @Option(help: "Stop after this much signal [s].")
    var to: Double?

    func validate() throws {
        try sourceOptions.validate(sourcePath: source, allowsMaximumSpeed: true)
        try beatOptions.validate(sourcePath: source, streams: sourceOptions.isStream)
        if let to, !(to.isFinite && to > 0) { throw ValidationError("--to \(to): expected a time after 0 s") }
    }

    func run() throws {
        var monitor = ECGMonitorRun(source: sourceOptions.request, sourcePath: source)
        monitor.json = json
        monitor.to = to
        monitor.beats = beatOptions.request
        try reportingECGErrors { try monitor.run() }
    }
}
