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
    /// beat times instead of a signal (`--beats`, `--rr`): the rhythm engine alone
    public var beats: BeatListRequest?

    public init(source: ECGSourceRequest, sourcePath: String?) {
        self.source = source
        self.sourcePath = sourcePath
    }

    public func run() throws {
        if let beats {
            try runBeats(try beats.read(recordPath: sourcePath, rate: source.rate))
            return
        }
        let opened: ECGSourceRequest.Opened
        if case .bluetooth(let request) = source.stream {
            try source.checkRecordPath()
            let stream = try request.open(rate: source.rate)
            if stream.profile == .hrs {
                if let record = source.record {
                    stream.close()
                    source.discardRecordFiles()
                    throw CommandError("--record \(record): \(stream.device.label) gives heart rate and RR intervals (hrs), not an ECG to record")
                }
                try runStrap(stream)
                return
            }
            opened = try source.openBluetooth(request, stream: stream)
        } else {
            opened = try source.openSource(sourcePath: sourcePath)
        }
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
        // a file read at full speed is written in whole buffers; a paced file and a live stream line by line
        let output = ECGMonitorOutput(json: json, flushEachLine: !opened.isFile || source.speed != nil)
        let sensor = ECGSourceRequest.sensor(raw)
        var gapsShown = 0
        reading: while pipeline.sampleCount < limit {
            if let gaps = (raw as? LinkedECGSource)?.gaps, gaps.count > gapsShown {
                for gap in gaps[gapsShown...] { output.gap(time: Double(pipeline.sampleCount) / rate, seconds: gap.seconds) }
                gapsShown = gaps.count
            }
            switch try paced.read(into: &chunk) {
            case .samples:
                chunk.count = min(chunk.count, limit - pipeline.sampleCount)
                pipeline.process(&chunk)
                for episode in pipeline.takeEndedEpisodes() { output.event(episode) }
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
        for episode in pipeline.finish() { output.event(episode) }
        output.summary(pipeline: pipeline)
        try (raw as? RecordingECGSource)?.finish()
        if let sensor {
            sensor.close()
            printError(sensor.summary)
        }
        if let lines = paced as? LineStreamSource ?? raw as? LineStreamSource ?? (raw as? RecordingECGSource)?.inner as? LineStreamSource, lines.garbageLines + lines.nonFiniteLines > 0 {
            printError("\(opened.name): \(lines.garbageLines) unreadable and \(lines.nonFiniteLines) NaN lines skipped")
        }
    }
}

extension ECGMonitorRun {
    /// The beat list through the rhythm engine, a second at a time, with the same lines as from a signal.
    func runBeats(_ list: BeatList) throws {
        let monitor = BeatRhythmMonitor(list)
        let end = min(list.endSample, to.map { Int(($0 * list.sampleRate).rounded()) } ?? Int.max)
        let output = ECGMonitorOutput(json: json, flushEachLine: source.speed != nil)
        let started = Date()
        var second = 1
        while monitor.sample(atSecond: second) <= end {
            monitor.advance(toSecond: second)
            for episode in monitor.takeEndedEpisodes() { output.event(episode) }
            output.report(time: second, pipeline: monitor)
            if let factor = source.speed {
                // paced as a signal file is: `factor` seconds of beats per second
                let due = Double(second) / factor - Date().timeIntervalSince(started)
                if due > 0 { usleep(UInt32(min(due, 1) * 1_000_000)) }
            }
            second += 1
        }
        for episode in monitor.finish() { output.event(episode) }
        output.summary(pipeline: monitor)
        if list.skippedIntervals > 0 { printError("\(list.name): \(list.skippedIntervals) intervals of 0 skipped") }
        if monitor.unreadableSeconds > 0 {
            printError("\(list.name): \(monitor.unreadableSeconds) s of \(monitor.seconds) unreadable (gaps over 3 s, intervals beyond physiology or beats dropped)")
        }
    }
}

/// Beat times to read instead of a signal.
public enum BeatListRequest: Sendable, Equatable {
    /// the record's WFDB annotation file REC.ANN (`qrs`, `atr`, …) or an annotation file's path
    case annotations(String)
    /// an RR-interval list (`--rr FILE`)
    case intervals(String)

    /// The beats; `recordPath` names the record of an annotator, `rate` the clock when the record has no header.
    public func read(recordPath: String?, rate: Double?) throws -> BeatList {
        switch self {
        case .annotations(let annotator):
            guard let recordPath else { throw ECGError(file: annotator, "--beats needs the record: ecg monitor REC --beats ANN") }
            return try BeatListFile.readAnnotations(record: recordPath, annotator: annotator, rate: rate)
        case .intervals(let path):
            return try BeatListFile.readIntervals(path: path)
        }
    }
}

/// The monitor's lines: flushed one by one so a pipe sees each as it happens (a live or paced input), or
/// written in whole buffers when the input is read as fast as it goes (`--speed max` over a file; a line per
/// second of a 24-hour beat list is 86,400 writes otherwise).
struct ECGMonitorOutput {
    let json: Bool
    let flushEachLine: Bool

    func report(time: Int, pipeline: some RhythmReporting) {
        let status = pipeline.status
        let rate = pipeline.heartRate
        let signal: String
        switch status.code {
        case .signalLost: signal = "signal_lost"
        case .noisy: signal = "noisy"
        case .unreadable: signal = "unreadable"
        default: signal = rate == nil ? "waiting" : "ok"
        }
        let rhythm = pipeline.rhythm
        let ectopics = rhythm.ectopicsPerMinute(now: pipeline.sampleCount)
        if json {
            emit("{\"time\":\(time),\"heart_rate\":\(Self.number(rate)),\"rhythm\":\"\(Self.name(status.code))\","
                 + "\"status\":\"\(signal)\",\"text\":\"\(status.text)\","
                 + "\"ectopic_per_min\":\(Self.number(ectopics)),\"af_burden\":\(Self.fraction(rhythm.afBurden))}")
        } else {
            let ectopy = ectopics > 0 ? String(format: "  %.0f ectopic/min", ectopics) : ""
            emit("\(Self.clock(Double(time)))  \(rate.map { String(format: "%3.0f bpm", $0) } ?? "--- bpm")  \(status.text)\(ectopy)")
        }
    }

    /// A stretch without data: a sensor's link dropped at `time` [s of signal] and came back after `seconds`.
    func gap(time: Double, seconds: Double) {
        if json {
            emit("{\"gap\":true," + String(format: "\"time\":%.3f,\"duration_s\":%.3f}", time, seconds))
        } else {
            emit("\(Self.clock(time))  link lost, back after " + String(format: "%.1f s", seconds))
        }
    }

    /// One line per episode, when it ends: start, end and duration [s], the heart rate at its confirmation.
    func event(_ event: RhythmEvent) {
        let end = event.end ?? event.time + (event.durationSeconds ?? 0)
        if json {
            emit("{\"event\":\"\(Self.name(event.code))\"," + String(format: "\"start\":%.3f,\"end\":%.3f,\"duration_s\":%.3f,",
                                                                   event.time, end, end - event.time)
                 + "\"heart_rate\":\(Self.number(event.heartRateBPM)),\"mean_heart_rate\":\(Self.number(event.meanHeartRateBPM)),"
                 + "\"max_heart_rate\":\(Self.number(event.maxHeartRateBPM))}")
        } else {
            emit("\(Self.clock(event.time))–\(Self.clock(end))  episode: \(Self.name(event.code)) "
                 + String(format: "%.1f s", end - event.time))
        }
    }

    /// The whole run: duration, AF burden, episodes per rhythm, beats per class.
    func summary(pipeline: some RhythmReporting) {
        let rhythm = pipeline.rhythm
        let duration = Double(pipeline.sampleCount) / pipeline.sampleRate
        var episodes: [String: Int] = [:]
        for event in pipeline.events.events { episodes[Self.name(event.code), default: 0] += 1 }
        let counts = BeatClass.allCases.map { ($0.rawValue, rhythm.classCounts[$0] ?? 0) }
        if json {
            let episodeText = episodes.keys.sorted().map { "\"\($0)\":\(episodes[$0]!)" }.joined(separator: ",")
            let beatText = counts.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
            let hourly = rhythm.hourlyAFBurden.map { Self.fraction($0) }.joined(separator: ",")
            emit("{\"summary\":true," + String(format: "\"duration_s\":%.3f,", duration)
                 + "\"af_burden\":\(Self.fraction(rhythm.afBurden)),\"af_burden_by_hour\":[\(hourly)],"
                 + "\"episodes\":{\(episodeText)},\"beats\":{\(beatText)}}")
        } else {
            let burden = rhythm.afBurden.map { String(format: "%.1f %%", $0 * 100) } ?? "—"
            let episodeText = episodes.isEmpty ? "none" : episodes.keys.sorted().map { "\($0) \(episodes[$0]!)" }.joined(separator: ", ")
            emit("summary: " + String(format: "%.1f s", duration) + ", AF burden \(burden), episodes: \(episodeText), beats: "
                 + counts.map { "\($0.0) \($0.1)" }.joined(separator: " "))
        }
    }

    static func fraction(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return ECGClassifyRun.number("%.4f", value)
    }

    /// snake_case names for scripts
    static func name(_ code: RhythmCode) -> String {
        code == .signalLost ? "signal_lost" : code.rawValue
    }

    /// through the C library's formatting (`ECGClassifyRun.number`: the same bytes as `String(format:)`,
    /// a line per second of a 24-hour beat list spent a third of its time in Foundation's)
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return ECGClassifyRun.number("%.1f", value)
    }

    static func clock(_ seconds: Double) -> String {
        String(format: "%02d:%04.1f", Int(seconds) / 60, seconds.truncatingRemainder(dividingBy: 60))
    }

    private func emit(_ line: String) {
        print(line)
        if flushEachLine { fflush(nil) }
    }
}
