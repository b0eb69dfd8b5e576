import ArgumentParser
import Capture
import DSP
import Devices
import Foundation
import Runs
import Signals
import ViewModels

/// Tells when something appears in a band: one line per event, live from any
/// analyzer or from any capture file.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Report when a condition on a band holds: a signal above a level, a limit line or a baseline.",
        discussion: """
            Every sweep is examined at the device's bins. A sweep meets the condition when a bin in --band is above \
            --above LEVEL, above the --mask limit line (CSV frequency_hz,level_db, linear between points), or more \
            than --over-baseline DB above a baseline learned as the per-bin median of the first --learn DURATION \
            or read with --baseline FILE (the CSV `export --trace avg` writes). An event opens once sweeps meet it \
            for --for DURATION without a break and ends at the first sweep where every bin is below the limit minus \
            --hysteresis DB. One line per event when it ends; --json: JSON Lines with start, end (ISO 8601 UTC, the \
            first and last sweep that met it), duration_s, peak_hz, peak_db, unit, start_hz, stop_hz, sweeps; \
            --json-open adds a line with "open": true as an event starts. A device lost and found again is a \
            "gap" line. --record DIR saves each event's sweeps (with --pre before and --post after) as a tscope \
            capture. Live runs end with Ctrl-C, SIGTERM or --duration; a file ends at its end.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band to watch, start:stop in MHz.", transform: Band.init(parsing:))
    var band: Band

    @OptionGroup var conditionOptions: EventConditionOptions

    @Flag(help: "JSON Lines.")
    var json = false

    @Flag(name: .customLong("json-open"), help: "Also a JSON line with \"open\": true as each event starts.")
    var jsonOpen = false

    @Option(help: "Examine a capture file instead of a device (any format tscope reads).")
    var input: String?

    @Option(help: "With --input: playback speed, a factor or max (default max).")
    var speed: String = "max"

    @Option(help: "Live: stop after this long, e.g. 30s, 5m, 1h (default: until Ctrl-C).", transform: TimeSpan.init(parsing:))
    var duration: TimeSpan?

    @Option(help: "Save each event's sweeps as a tscope capture in this directory (named by UTC start and peak).")
    var record: String?

    @Option(help: "With --record: also the sweeps this long before the event (kept in memory), e.g. 5s.",
            transform: TimeSpan.init(parsingZeroOrMore:))
    var pre: TimeSpan = .zero

    @Option(help: "With --record: and this long after it ends, e.g. 5s.", transform: TimeSpan.init(parsingZeroOrMore:))
    var post: TimeSpan = .zero

    @OptionGroup var inputOptions: CaptureInputOptions

    func validate() throws {
        guard conditionOptions.isGiven else {
            throw ValidationError("give one condition: --above LEVEL, --mask FILE or --over-baseline DB")
        }
        _ = try parsedSpeed()
        if record == nil, pre.seconds > 0 || post.seconds > 0 { throw ValidationError("--pre and --post go with --record DIR") }
        if let record {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: record, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--record \(record): not a directory")
            }
        }
    }

    /// nil = as fast as possible
    func parsedSpeed() throws -> Double? {
        if speed == "max" { return nil }
        guard let factor = Double(speed), factor.isFinite, factor > 0 else {
            throw ValidationError("--speed \(speed): expected a factor such as 4, or max")
        }
        return factor
    }

    func run() throws {
        let band = self.band.range
        let settings = EventRun.Settings(band: band, condition: try conditionOptions.condition(),
                                         learnSeconds: try conditionOptions.learnSeconds(),
                                         overBaselineDB: conditionOptions.overBaseline ?? 0,
                                         holdSeconds: try conditionOptions.holdSeconds(),
                                         hysteresisDB: conditionOptions.hysteresis, json: json, jsonOpen: jsonOpen,
                                         recording: try record.map {
                                             EventRecorder.Settings(directory: $0,
                                                                    preSeconds: pre.seconds,
                                                                    postSeconds: post.seconds)
                                         })
        if let input {
            try runOnFile(input, settings: settings)
        } else {
            try runLive(settings: settings)
        }
    }

    private func runOnFile(_ path: String, settings: EventRun.Settings) throws {
        let format = try inputOptions.format(of: path)
        let reader = try inputOptions.openReader(path: path, format: format)
        let run = EventRun(settings: settings, unit: "dB")
        var pacer = FilePacer(speed: try parsedSpeed())
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        while true {
            let more: Bool
            more = try reader.next(into: &frame)
            guard more else { break }
            pacer.wait(for: frame.timestamp)
            run.add(frame)
        }
        run.finish()
        reportSkips(reader)
    }

    private func runLive(settings: EventRun.Settings) throws {
        let waiter = RecordingWait()
        let source: ReconnectingSpectrumSource
        let holder = EventRunHolder()
        let analyzer: SelectedAnalyzer
        (source, analyzer) = try deviceOptions.selection.spectrumSource(
            headless: true, hackRF: .init(detector: detectorOption.chosen(default: .peak)),
            onFrame: { holder.run?.add($0) },
            onGap: { gap in holder.run?.gap(gap) },
            onGiveUp: { waiter.fail($0) })
        let band = try self.band.within(analyzer.kind.tunableRange, option: "--band")
        holder.run = EventRun(settings: settings, unit: analyzer.kind.powerUnit)
        try source.start(band: band, binWidthHz: band.spanHz / MeterRun.binsAcrossBand)
        let end = waiter.wait(duration: duration?.seconds,
                              started: monotonicSeconds(), status: { "" })
        source.stop()
        holder.run?.finish()
        if case .failure(let message) = end { throw CommandError(message) }
    }
}

/// The run a live source's callbacks reach once it exists.
final class EventRunHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var current: EventRun?
    var run: EventRun? {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}

/// One `events` run: learns a baseline if asked, tracks events, prints lines.
/// `add` and `gap` may come from the source's thread; a lock keeps the
/// tracker and stdout in order (an event line is rare and short).
final class EventRun: @unchecked Sendable {
    struct Settings {
        var band: FrequencyRange
        /// nil while a baseline is to be learned
        var condition: EventCondition?
        var learnSeconds: Double?
        var overBaselineDB: Float
        var holdSeconds: Double
        var hysteresisDB: Float
        var json: Bool
        var jsonOpen: Bool
        /// --record: a capture per event
        var recording: EventRecorder.Settings?
    }

    private let settings: Settings
    private let unit: String
    private let lock = NSLock()
    private var tracker: LearningEventTracker
    private var recorder: EventRecorder?

    init(settings: Settings, unit: String) {
        self.settings = settings
        self.unit = unit
        recorder = settings.recording.map { EventRecorder(settings: $0, keepSeconds: settings.holdSeconds) }
        tracker = LearningEventTracker(condition: settings.condition, learnSeconds: settings.learnSeconds,
                                       overBaselineDB: settings.overBaselineDB, band: settings.band,
                                       holdSeconds: settings.holdSeconds, hysteresisDB: settings.hysteresisDB)
    }

    func add(_ frame: SpectrumFrame) {
        lock.withLock {
            let outputs = tracker.add(frame)
            for output in outputs {
                switch output {
                case .opened(let event): if settings.json && settings.jsonOpen { emit(EventLine.open(event, unit: unit)) }
                case .closed(let event): emit(EventLine.format(event, unit: unit, json: settings.json))
                }
            }
            recorder?.add(frame, outputs: outputs)
        }
    }

    /// A device outage, as a line of its own.
    func gap(_ gap: ReconnectGap) {
        lock.withLock { emit(EventLine.gap(gap, json: settings.json)) }
    }

    /// The end of the run: an open event is reported, closed at its last meeting sweep.
    func finish() {
        lock.withLock {
            defer { recorder?.finish() }
            guard let event = tracker.finish() else { return }
            emit(EventLine.format(event, unit: unit, json: settings.json))
        }
    }

    private func emit(_ line: String) {
        print(line)
        fflush(nil)
    }
}

/// The lines `tscope events` prints.
enum EventLine {
    static func format(_ event: DetectedEvent, unit: String, json: Bool) -> String {
        if json {
            return "{\"start\":\"\(isoMicroseconds(event.start))\",\"end\":\"\(isoMicroseconds(event.end))\","
                + "\"duration_s\":\(trimmed(event.durationSeconds, 6)),\"peak_hz\":\(MeterLine.hertz(event.peakHz)),"
                + "\"peak_db\":\(String(format: "%.2f", event.peakDB)),\"unit\":\"\(unit)\","
                + "\"start_hz\":\(MeterLine.hertz(event.startHz)),\"stop_hz\":\(MeterLine.hertz(event.stopHz)),"
                + "\"sweeps\":\(event.sweeps)}"
        }
        return "\(isoMicroseconds(event.start)) – \(isoMicroseconds(event.end))  \(trimmed(event.durationSeconds, 3)) s  "
            + "peak \(FrequencyFormat.label(event.peakHz, maxFractionDigits: 6)) \(String(format: "%.2f", event.peakDB)) \(unit)  "
            + "\(FrequencyFormat.label(event.startHz, maxFractionDigits: 6))–\(FrequencyFormat.label(event.stopHz, maxFractionDigits: 6))  "
            + "\(event.sweeps) sweeps"
    }

    static func open(_ event: DetectedEvent, unit: String) -> String {
        "{\"open\":true,\"start\":\"\(isoMicroseconds(event.start))\",\"peak_hz\":\(MeterLine.hertz(event.peakHz)),"
            + "\"peak_db\":\(String(format: "%.2f", event.peakDB)),\"unit\":\"\(unit)\","
            + "\"start_hz\":\(MeterLine.hertz(event.startHz)),\"stop_hz\":\(MeterLine.hertz(event.stopHz))}"
    }

    static func gap(_ gap: ReconnectGap, json: Bool) -> String {
        if json {
            let reason = gap.reason.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "{\"gap\":true,\"from\":\"\(isoMicroseconds(gap.fromTimestamp))\","
                + "\"to\":\"\(isoMicroseconds(gap.toTimestamp))\",\"reason\":\"\(reason)\"}"
        }
        return "gap \(isoMicroseconds(gap.fromTimestamp)) – \(isoMicroseconds(gap.toTimestamp))  \(gap.reason)"
    }

    /// "2018-11-18T03:32:44.000000Z"
    static func isoMicroseconds(_ time: Double) -> String {
        var seconds = time_t(time.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let micros = min(999_999, Int(((time - Double(seconds)) * 1e6).rounded()))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), micros)
    }

    static func trimmed(_ value: Double, _ digits: Int) -> String {
        FrequencyFormat.trimmed(value, maxFractionDigits: digits)
    }
}

/// `events --record DIR --pre --post`: each event's sweeps, with those
/// `pre` seconds before it (a ring in memory, bounded by time) and `post`
/// after it, as a tscope capture named by its UTC start and peak frequency.
/// A write error ends that event's file (one line on stderr), not the run.
final class EventRecorder {
    struct Settings {
        var directory: String
        var preSeconds: Double
        var postSeconds: Double
    }

    /// most values (sweeps × bins) the pre-event ring keeps, whatever the sweep rate: 100 MB of Float
    static let ringValueLimit = 25_000_000

    private let settings: Settings
    /// seconds of sweeps the ring keeps: --pre plus the --for hold (an event
    /// opens only after it held; its start lies that far back)
    private let keepSeconds: Double
    private var ring: [SpectrumFrame] = []
    private var writer: CaptureStoreWriter?
    private var path = ""
    /// while recording: write on until this time (after the event closed)
    private var stopAfter: Double?

    init(settings: Settings, keepSeconds: Double) {
        self.settings = settings
        self.keepSeconds = settings.preSeconds + keepSeconds
    }

    func add(_ frame: SpectrumFrame, outputs: [SweepEventTracker.Output]) {
        for output in outputs {
            if case .opened(let event) = output { open(event) }
        }
        if writer != nil {
            write(frame)
            for output in outputs {
                if case .closed(let event) = output { stopAfter = event.end + settings.postSeconds }
            }
            if let stopAfter, frame.timestamp >= stopAfter { finish() }
        }
        ring.append(frame)
        let oldest = frame.timestamp - keepSeconds
        let expired = ring.prefix { $0.timestamp < oldest }.count
        let excess = max(0, ring.count - max(1, Self.ringValueLimit / max(1, frame.powerDB.count)))
        if expired + excess > 0 { ring.removeFirst(max(expired, excess)) }
    }

    func finish() {
        guard let writer else { return }
        do { try writer.finish() } catch { printError("\(path): \(error)") }
        self.writer = nil
        stopAfter = nil
    }

    private func open(_ event: DetectedEvent) {
        finish()
        // "20181118T033149Z_88.095313MHz.tscope": in time order when listed
        let stamp = CaptureFileName.make(operatorName: nil, label: nil, startedAt: event.start, extension: "")
        let name = String(stamp.dropLast()) + String(format: "_%.6fMHz.tscope", event.peakHz / 1e6)
        path = CaptureFileName.unused(name, in: settings.directory)
        do {
            writer = try CaptureStoreWriter(path: path, metadata: CaptureMetadata(format: "tscope"),
                                            session: CaptureSessionInfo(startedAt: event.start, label: "event"))
        } catch {
            printError("\(path): \(error)")
            return
        }
        for frame in ring where frame.timestamp >= event.start - settings.preSeconds { write(frame) }
    }

    private func write(_ frame: SpectrumFrame) {
        do { try writer?.write(frame) } catch {
            printError("\(path): \(error); this event's capture ends here, with what it stored")
            try? writer?.finish()
            writer = nil
            stopAfter = nil
        }
    }
}

/// The condition of `events` (and of `watch`'s event list): one of --above,
/// --mask or --over-baseline (with --learn or --baseline), --for, --hysteresis.
struct EventConditionOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Level [dB or dBm, the device's unit] a bin must exceed, e.g. -60.")
    var above: Float?

    @Option(help: "Limit line: CSV of frequency_hz,level_db rows.")
    var mask: String?

    @Option(name: .customLong("over-baseline"), parsing: .unconditional,
            help: "dB a bin must rise over the baseline (--learn or --baseline).")
    var overBaseline: Float?

    @Option(help: "Learn the baseline as the per-bin median of this long first, e.g. 30s or 5m.",
            transform: TimeSpan.init(parsing:))
    var learn: TimeSpan?

    @Option(help: "Baseline CSV of frequency_hz,power_db rows (`export --csv F --trace avg`).")
    var baseline: String?

    @Option(name: .customLong("for"), help: "How long the condition must hold before an event starts (default 0).",
            transform: TimeSpan.init(parsingZeroOrMore:))
    var holdFor: TimeSpan = .zero

    @Option(help: "An event ends when every bin is this many dB below the limit (default 0).")
    var hysteresis: Float = 0

    /// one condition was given
    var isGiven: Bool { above != nil || mask != nil || overBaseline != nil }

    func validate() throws {
        let conditions = [above != nil, mask != nil, overBaseline != nil].filter { $0 }.count
        guard conditions <= 1 else { throw ValidationError("give one condition: --above LEVEL, --mask FILE or --over-baseline DB") }
        if overBaseline != nil, (learn == nil) == (baseline == nil) {
            throw ValidationError("--over-baseline needs one of --learn DURATION or --baseline FILE")
        }
        if overBaseline == nil, learn != nil || baseline != nil {
            throw ValidationError("--learn and --baseline go with --over-baseline DB")
        }
        if let above, !above.isFinite { throw ValidationError("--above \(above): expected a level in dB") }
        guard hysteresis.isFinite, hysteresis >= 0 else { throw ValidationError("--hysteresis \(hysteresis): expected dB ≥ 0") }
    }

    func holdSeconds() -> Double { holdFor.seconds }

    func learnSeconds() -> Double? { learn?.seconds }

    /// The condition, with its files read (nil: a baseline to learn, or none given).
    func condition() throws -> EventCondition? {
        if let above { return .above(above) }
        if let mask { return .mask(try LevelPointsCSV.read(path: mask)) }
        if let overBaseline, let baseline {
            return .overBaseline(offsetDB: overBaseline, baseline: try LevelPointsCSV.read(path: baseline))
        }
        return nil
    }
}

/// `watch` with a condition: every sweep goes through the tracker on the DSP
/// thread (never the drawn frames); the viewer takes what it reported once
/// per loop. The whole sweep is watched (the view's band follows zoom and
/// pan); a baseline to learn is learned from the first sweeps.
final class EventWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var tracker: LearningEventTracker
    private var pending: [SweepEventTracker.Output] = []
    /// everything a sweep can hold [Hz]
    private static let everything = FrequencyRange(lowerHz: 0, upperHz: 1e12)!

    init(condition: EventCondition?, learnSeconds: Double?, overBaselineDB: Float, holdSeconds: Double,
         hysteresisDB: Float) {
        tracker = LearningEventTracker(condition: condition, learnSeconds: learnSeconds, overBaselineDB: overBaselineDB,
                                       band: Self.everything, holdSeconds: holdSeconds, hysteresisDB: hysteresisDB)
    }

    func add(_ frame: SpectrumFrame) {
        lock.withLock {
            pending += tracker.add(frame)
            // bounded whatever the viewer does
            if pending.count > EventLog.capacity { pending.removeFirst(pending.count - EventLog.capacity) }
        }
    }

    func take() -> [SweepEventTracker.Output] {
        lock.withLock {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}

