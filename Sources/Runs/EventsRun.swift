import Analyzers
import Capture
import DSP
import Devices
import Foundation
import Signals
import Synchronization
import ThreadKit

/// One `events` run: learns a baseline if asked, tracks events, prints lines.
/// `add` and `gap` may come from the source's thread; the state's lock keeps
/// the tracker and stdout in order (an event line is rare and short).
public final class EventRun: Sendable {
    public struct Settings: Sendable {
        public var band: FrequencyRange
        /// nil while a baseline is to be learned
        public var condition: EventCondition?
        public var learnSeconds: Double?
        public var overBaselineDB: Float
        public var holdSeconds: Double
        public var hysteresisDB: Float
        public var json: Bool
        public var jsonOpen: Bool
        /// --record: a capture per event
        public var recording: EventRecorder.Settings?
        /// --band-plan: each event names the allocation its peak falls in ("band"); nil: none
        public var bandPlan: BandPlan?

        public init(band: FrequencyRange, condition: EventCondition?, learnSeconds: Double?, overBaselineDB: Float,
                    holdSeconds: Double, hysteresisDB: Float, json: Bool, jsonOpen: Bool,
                    recording: EventRecorder.Settings?, bandPlan: BandPlan? = nil) {
            self.bandPlan = bandPlan
            self.band = band
            self.condition = condition
            self.learnSeconds = learnSeconds
            self.overBaselineDB = overBaselineDB
            self.holdSeconds = holdSeconds
            self.hysteresisDB = hysteresisDB
            self.json = json
            self.jsonOpen = jsonOpen
            self.recording = recording
        }
    }

    private struct State {
        var tracker: LearningEventTracker
        var recorder: EventRecorder?
    }

    private let settings: Settings
    private let unit: PowerUnit
    private let state: Guarded<State>

    public init(settings: Settings, unit: PowerUnit) {
        self.settings = settings
        self.unit = unit
        state = Guarded(State(
            tracker: LearningEventTracker(condition: settings.condition, learnSeconds: settings.learnSeconds,
                                          overBaselineDB: settings.overBaselineDB, band: settings.band,
                                          holdSeconds: settings.holdSeconds, hysteresisDB: settings.hysteresisDB),
            recorder: settings.recording.map { EventRecorder(settings: $0, keepSeconds: settings.holdSeconds) }))
    }

    /// Events in a capture's frames, paced by `speed` (nil: as fast as they read).
    public static func file(_ reader: SpectrumFrameReader, speed: Double?, settings: Settings) throws {
        // a mask stating its unit is moved to the capture's
        var settings = settings
        settings.condition = try settings.condition?.converted(to: reader.metadata.levelUnit)
        let run = EventRun(settings: settings, unit: .dB)
        var pacer = FilePacer(speed: speed)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        while try reader.next(into: &frame) {
            pacer.wait(for: frame.timestamp)
            run.add(frame)
        }
        run.finish()
        reportSkips(reader)
    }

    /// Events live from the analyzer `selection` chooses, until a stop
    /// signal, `durationSeconds` or the analyzer is given up.
    /// - Parameter checkBand: the band, refused when the chosen analyzer's range (given) cannot hold it
    public static func live(_ selection: DeviceSelection, detector: SpectrumDetector, settings: Settings,
                            durationSeconds: Double?, checkBand: (FrequencyRange) throws -> FrequencyRange) throws {
        let waiter = RecordingWait(clock: selection.clock)
        // the run the source's callbacks reach once the analyzer (and so its unit) is known
        let current = Locked<EventRun?>(nil)
        let (source, analyzer) = try selection.spectrumSource(
            headless: true, detector: detector,
            onFrame: { frame in current.value?.add(frame) },
            onGap: { gap in current.value?.gap(gap) },
            onGiveUp: { waiter.fail($0) })
        let band = try checkBand(analyzer.tunableRange)
        let unit = analyzer.tune(to: band)
        // a mask stating its unit is moved to the analyzer's (after --unit and --antenna-factor)
        var settings = settings
        settings.condition = try settings.condition?.converted(to: unit)
        current.value = EventRun(settings: settings, unit: unit)
        try source.start(band: band, binWidthHz: band.spanHz / MeterRun.binsAcrossBand)
        let end = waiter.wait(duration: durationSeconds, started: waiter.monotonicClock.now, status: { "" })
        source.stop()
        current.value?.finish()
        if case .failure(let message) = end { throw CommandError(message) }
    }

    /// One sweep (any thread): lines for events that opened or closed.
    public func add(_ frame: SpectrumFrame) {
        state.withLock { state in
            let outputs = state.tracker.add(frame)
            for output in outputs {
                switch output {
                case .opened(let event):
                    if settings.json && settings.jsonOpen { emit(EventLine.open(event, unit: unit, bandPlan: settings.bandPlan)) }
                case .closed(let event): emit(EventLine.format(event, unit: unit, json: settings.json, bandPlan: settings.bandPlan))
                }
            }
            state.recorder?.add(frame, outputs: outputs)
        }
    }

    /// A device outage, as a line of its own.
    public func gap(_ gap: ReconnectGap) {
        state.withLock { _ in emit(EventLine.gap(gap, json: settings.json)) }
    }

    /// The end of the run: an open event is reported, closed at its last meeting sweep.
    public func finish() {
        state.withLock { state in
            defer { state.recorder?.finish() }
            guard let event = state.tracker.finish() else { return }
            emit(EventLine.format(event, unit: unit, json: settings.json, bandPlan: settings.bandPlan))
        }
    }

    private func emit(_ line: String) {
        print(line)
        fflush(nil)
    }
}

/// The lines `tscope events` prints.
public enum EventLine {
    /// - Parameter bandPlan: names the allocation the peak falls in (JSON "band", text "in LABEL"); nothing without one
    static func format(_ event: DetectedEvent, unit: PowerUnit, json: Bool, bandPlan: BandPlan? = nil) -> String {
        let allocation = bandPlan?.allocation(at: event.peakHz)?.label
        if json {
            let line: String = "{\"start\":\"\(isoMicroseconds(event.start))\",\"end\":\"\(isoMicroseconds(event.end))\","
                + "\"duration_s\":\(trimmed(event.durationSeconds, 6)),\"peak_hz\":\(MeterLine.hertz(event.peakHz)),"
                + "\"peak_db\":\(String(format: "%.2f", event.peakDB)),\"unit\":\"\(unit)\","
                + "\"start_hz\":\(MeterLine.hertz(event.startHz)),\"stop_hz\":\(MeterLine.hertz(event.stopHz)),"
                + "\"sweeps\":\(event.sweeps)"
            return line + MeterLine.bandField(allocation) + "}"
        }
        let line: String = "\(isoMicroseconds(event.start)) – \(isoMicroseconds(event.end))  \(trimmed(event.durationSeconds, 3)) s  "
            + "peak \(FrequencyFormat.label(event.peakHz, maxFractionDigits: 6)) \(String(format: "%.2f", event.peakDB)) \(unit)  "
            + "\(FrequencyFormat.label(event.startHz, maxFractionDigits: 6))–\(FrequencyFormat.label(event.stopHz, maxFractionDigits: 6))  "
            + "\(event.sweeps) sweeps"
        return line + (allocation.map { "  in \($0)" } ?? "")
    }

    static func open(_ event: DetectedEvent, unit: PowerUnit, bandPlan: BandPlan? = nil) -> String {
        let line: String = "{\"open\":true,\"start\":\"\(isoMicroseconds(event.start))\",\"peak_hz\":\(MeterLine.hertz(event.peakHz)),"
            + "\"peak_db\":\(String(format: "%.2f", event.peakDB)),\"unit\":\"\(unit)\","
            + "\"start_hz\":\(MeterLine.hertz(event.startHz)),\"stop_hz\":\(MeterLine.hertz(event.stopHz))"
        return line + MeterLine.bandField(bandPlan?.allocation(at: event.peakHz)?.label) + "}"
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
public final class EventRecorder {
    public struct Settings: Sendable {
        public var directory: String
        public var preSeconds: Double
        public var postSeconds: Double

        public init(directory: String, preSeconds: Double, postSeconds: Double) {
            self.directory = directory
            self.preSeconds = preSeconds
            self.postSeconds = postSeconds
        }
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

/// `watch` with a condition: every sweep goes through the tracker on the DSP
/// thread (never the drawn frames); the viewer takes what it reported once
/// per loop. The whole sweep is watched (the view's band follows zoom and
/// pan); a baseline to learn is learned from the first sweeps.
public final class EventWatch: Sendable {
    private struct State {
        var tracker: LearningEventTracker
        var pending: [SweepEventTracker.Output] = []
    }

    private let state: Guarded<State>
    /// everything a sweep can hold [Hz]
    private static let everything = FrequencyRange(lowerHz: 0, upperHz: 1e12)!
    /// reports kept for the viewer at most, whatever it does
    private let capacity: Int
    /// the condition as given (a mask in its file's unit) and the tracker's other settings
    public let condition: EventCondition?
    private let learnSeconds: Double?, overBaselineDB: Float, holdSeconds: Double, hysteresisDB: Float

    public init(condition: EventCondition?, learnSeconds: Double?, overBaselineDB: Float, holdSeconds: Double,
                hysteresisDB: Float, capacity: Int) {
        self.capacity = capacity
        self.condition = condition
        self.learnSeconds = learnSeconds
        self.overBaselineDB = overBaselineDB
        self.holdSeconds = holdSeconds
        self.hysteresisDB = hysteresisDB
        state = Guarded(State(tracker: LearningEventTracker(condition: condition, learnSeconds: learnSeconds,
                                                          overBaselineDB: overBaselineDB, band: Self.everything,
                                                          holdSeconds: holdSeconds, hysteresisDB: hysteresisDB)))
    }

    /// The levels come in `unit` (known once the analyzer is): a mask stating
    /// its unit is moved to it, before the first sweep. Returns the condition
    /// as it is evaluated (and drawn).
    @discardableResult
    public func levels(in unit: PowerUnit) throws(LimitLineUnitError) -> EventCondition? {
        let converted = try condition?.converted(to: unit)
        guard converted != condition else { return condition }
        state.withLock { state in
            state.tracker = LearningEventTracker(condition: converted, learnSeconds: learnSeconds,
                                                 overBaselineDB: overBaselineDB, band: Self.everything,
                                                 holdSeconds: holdSeconds, hysteresisDB: hysteresisDB)
        }
        return converted
    }

    public func add(_ frame: SpectrumFrame) {
        state.withLock { state in
            state.pending += state.tracker.add(frame)
            if state.pending.count > capacity { state.pending.removeFirst(state.pending.count - capacity) }
        }
    }

    public func take() -> [SweepEventTracker.Output] {
        state.withLock { state in
            defer { state.pending.removeAll(keepingCapacity: true) }
            return state.pending
        }
    }
}
