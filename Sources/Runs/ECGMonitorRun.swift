import ECG
import Foundation

/// `ecg monitor`: the pipeline without a screen, for scripts — a line per
/// second of signal and one per rhythm event, flushed as each happens.
public struct ECGMonitorRun {
    public var source: ECGSourceRequest
    public var sourcePath: String?
    /// JSON Lines, else one line of text per second
    public var json = false
    /// stop after this much signal [s]
    public var to: Double?

    public init(source: ECGSourceRequest, sourcePath: String?) {
        self.source = source
        self.sourcePath = sourcePath
    }

    public func run() throws {
        let opened = try source.openSource(sourcePath: sourcePath)
        let raw = opened.source
        let paced: any ECGSource
        switch (opened.isFile || opened.isSynthetic, source.speed) {
        case (true, let factor?): paced = PacedSource(raw, speed: factor)
        default: paced = raw   // a stream keeps its own pace; max reads as fast as it can
        }
        let pipeline = ECGPipeline(source: paced, qrsLead: try source.detectionLead(opened), mains: source.mains,
                                   detector: source.detector)
        let rate = paced.sampleRate
        // at most 50 ms of samples per step, so each second's line is on time
        var chunk = ECGChunk(leadCount: max(1, raw.leadNames.count), capacity: max(1, Int(rate / 20)))
        let limit = to.map { Int(($0 * rate).rounded()) } ?? Int.max
        var nextReport = 1
        let output = ECGMonitorOutput(json: json)
        reading: while pipeline.sampleCount < limit {
            switch try paced.read(into: &chunk) {
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
        if let lines = paced as? LineStreamSource ?? raw as? LineStreamSource, lines.garbageLines + lines.nonFiniteLines > 0 {
            printError("\(opened.name): \(lines.garbageLines) unreadable and \(lines.nonFiniteLines) NaN lines skipped")
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
            emit("\(Self.clock(Double(time)))  \(rate.map { String(format: "%3.0f bpm", $0) } ?? "--- bpm")  \(status.text)")
        }
    }

    func event(_ event: RhythmEvent) {
        if json {
            emit(String(format: "{\"time\":%.3f,", event.time) + "\"event\":\"\(Self.name(event.code))\",\"heart_rate\":\(Self.number(event.heartRateBPM))}")
        } else {
            emit("\(Self.clock(event.time))  event: \(Self.name(event.code))")
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
