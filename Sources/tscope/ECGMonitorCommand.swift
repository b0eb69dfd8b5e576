import ArgumentParser
import ECG
import Foundation
import Runs

/// `tscope ecg monitor SOURCE --json`: the pipeline without a screen, for scripts.
struct ECGMonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Run the ECG pipeline headless: heart rate, rhythm and events as JSON Lines (or text).",
        discussion: """
            Once per second of signal: {"time":12,"heart_rate":72.4,"rhythm":"normal","status":"ok",\\
            "text":"Sinus rhythm 72 bpm"}; heart_rate is null and status "waiting" until two beats came; \\
            status is "ok", "waiting", "noisy" or "signal_lost"; rhythm one of normal, bradycardia, \\
            tachycardia, irregular, pause, signal_lost, noisy. Each onset of an abnormal rhythm adds \\
            {"time":20.4,"event":"bradycardia","heart_rate":42.1}. A file plays at its rate (--speed, or \\
            max for as fast as it reads); --stdin and --listen take numbers or JSON Lines \\
            {"time":…,"amplitude":…} (a number, or an array of consecutive samples).
            """
    )

    @Argument(help: "A WFDB record or CSV file; \"synthetic\" or nothing for the generator; or --stdin, --listen, --serial.")
    var source: String?

    @OptionGroup var sourceOptions: ECGSourceOptions

    @Flag(help: "JSON Lines on stdout (default: one line of text per second).")
    var json = false

    @Option(help: "Stop after this much signal [s].")
    var to: Double?

    func validate() throws {
        try sourceOptions.validate(sourcePath: source, allowsMaximumSpeed: true)
        if let to, !(to.isFinite && to > 0) { throw ValidationError("--to \(to): expected a time after 0 s") }
    }

    func run() throws {
        do {
            let opened = try sourceOptions.openSource(sourcePath: source)
            let raw = opened.source
            let source: any ECGSource
            switch (opened.isFile || opened.isSynthetic, sourceOptions.speed.factor) {
            case (true, let factor?): source = PacedSource(raw, speed: factor)
            default: source = raw   // a stream keeps its own pace; max reads as fast as it can
            }
            let lead = try sourceOptions.detectionLead(opened)
            let pipeline = ECGPipeline(source: source, qrsLead: lead, mains: sourceOptions.mains)
            let rate = source.sampleRate
            // at most 50 ms of samples per step, so each second's line is on time
            var chunk = ECGChunk(leadCount: max(1, raw.leadNames.count), capacity: max(1, Int(rate / 20)))
            let limit = to.map { Int(($0 * rate).rounded()) } ?? Int.max
            var nextReport = 1
            let output = ECGMonitorOutput(json: json)
            reading: while pipeline.sampleCount < limit {
                switch try source.read(into: &chunk) {
                case .samples:
                    chunk.count = min(chunk.count, limit - pipeline.sampleCount)
                    if let event = pipeline.process(&chunk) { output.event(event) }
                    while Double(pipeline.sampleCount) >= Double(nextReport) * rate {
                        output.report(time: nextReport, pipeline: pipeline)
                        nextReport += 1
                    }
                case .waiting:
                    usleep(2_000)
                case .end:
                    break reading
                }
            }
            if let lines = source as? LineStreamSource ?? raw as? LineStreamSource, lines.garbageLines + lines.nonFiniteLines > 0 {
                printError("\(opened.name): \(lines.garbageLines) unreadable and \(lines.nonFiniteLines) NaN lines skipped")
            }
        } catch let error as ECGError {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}

/// The monitor's lines, flushed one by one so a pipe sees each as it happens.
struct ECGMonitorOutput {
    let json: Bool

    func report(time: Int, pipeline: ECGPipeline) {
        let status = pipeline.status
        let rate = pipeline.heartRate
        let signal: String
        switch status.code {
        case .signalLost: signal = "signal_lost"
        case .noisy: signal = "noisy"
        default: signal = rate == nil ? "waiting" : "ok"
        }
        if json {
            emit("{\"time\":\(time),\"heart_rate\":\(Self.number(rate)),\"rhythm\":\"\(Self.name(status.code))\","
                 + "\"status\":\"\(signal)\",\"text\":\"\(status.text)\"}")
        } else {
            emit("\(ECGMonitorOutput.clock(Double(time)))  \(rate.map { String(format: "%3.0f bpm", $0) } ?? "--- bpm")  \(status.text)")
        }
    }

    func event(_ event: RhythmEvent) {
        if json {
            emit(String(format: "{\"time\":%.3f,", event.time) + "\"event\":\"\(Self.name(event.code))\",\"heart_rate\":\(Self.number(event.heartRateBPM))}")
        } else {
            emit("\(ECGMonitorOutput.clock(event.time))  event: \(Self.name(event.code))")
        }
    }

    /// snake_case names for scripts
    static func name(_ code: RhythmCode) -> String {
        code == .signalLost ? "signal_lost" : code.rawValue
    }

    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return String(format: "%.1f", value)
    }

    static func clock(_ seconds: Double) -> String {
        String(format: "%02d:%04.1f", Int(seconds) / 60, seconds.truncatingRemainder(dividingBy: 60))
    }

    private func emit(_ line: String) {
        print(line)
        fflush(nil)
    }
}
