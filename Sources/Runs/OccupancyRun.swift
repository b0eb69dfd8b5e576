import Analyzers
import Capture
import DSP
import Devices
import Foundation
import PostgresStore
import Signals
import ThreadKit

/// What `tscope occupancy` counts and prints.
public struct OccupancySettings: Sendable {
    public enum Output: Sendable { case text, json, csv }

    /// the part of each sweep counted; nil: all of it (a file)
    public var band: FrequencyRange?
    public var channels: OccupancyChannels
    public var threshold: OccupancyThreshold
    /// integration period [s]; nil: one for the whole run
    public var intervalSeconds: Double?
    public var output: Output
    /// print the busy hour of each channel at the end
    public var busyHour: Bool
    /// live: every sweep counted is also stored in this tscope capture, so
    /// that `--input` on it gives the same numbers
    public var recordPath: String?
    /// a capture or store: only frames in from ..< to are counted [s since the Unix epoch]
    public var from = -Double.infinity
    public var to = Double.infinity
    /// over a fleet's PostgreSQL store: pull every frame into tscope and count here, as for one session,
    /// rather than inside the server (for comparison; the numbers are the same)
    public var countInProcess = false

    public init(band: FrequencyRange?, channels: OccupancyChannels, threshold: OccupancyThreshold,
                intervalSeconds: Double?, output: Output, busyHour: Bool, recordPath: String? = nil) {
        self.recordPath = recordPath
        self.band = band
        self.channels = channels
        self.threshold = threshold
        self.intervalSeconds = intervalSeconds
        self.output = output
        self.busyHour = busyHour
    }
}

/// One `occupancy` run over a live analyzer or a capture: sweeps go into an
/// `OccupancyCounter`; each closed integration period is printed at once
/// (so a month-long live run reports as it goes), the busy hour at the end.
/// `add` may come from the source's thread; the lock keeps the counter and
/// stdout in order.
public final class OccupancyRun: Sendable {
    private struct State {
        let counter: OccupancyCounter
        var printedHeader = false
    }

    private let settings: OccupancySettings
    private let unit: PowerUnit
    private let state: Guarded<State>
    private let emit: @Sendable (String) -> Void

    /// - Parameter emit: where each output line goes (stdout unless a test says otherwise)
    public init(settings: OccupancySettings, unit: PowerUnit,
                emit: @escaping @Sendable (String) -> Void = { Swift.print($0); fflush(nil) }) {
        self.settings = settings
        self.unit = unit
        self.emit = emit
        state = Guarded(State(counter: OccupancyCounter(channels: settings.channels, band: settings.band,
                                                        threshold: settings.threshold,
                                                        intervalSeconds: settings.intervalSeconds)))
    }

    /// Occupancy over a capture's frames, paced by `speed` (nil: as fast as they read).
    public static func file(_ reader: SpectrumFrameReader, speed: Double?, settings: OccupancySettings) throws {
        let run = OccupancyRun(settings: settings, unit: reader.metadata.levelUnit)
        var pacer = FilePacer(speed: speed)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        while try reader.next(into: &frame) {
            guard frame.timestamp >= settings.from, frame.timestamp < settings.to else { continue }
            pacer.wait(for: frame.timestamp)
            run.add(frame)
        }
        try run.finish()
        reportSkips(reader)
    }

    /// Occupancy over `input`: a capture file, one session of a PostgreSQL
    /// store, or many sessions of one (`sensor=`, `sessions=all`), which are
    /// counted per sensor and in all of them (`OccupancyFleetRun`).
    public static func input(_ input: String, speed: Double?, settings: OccupancySettings,
                             open: () throws -> any SpectrumFrameReader) throws {
        #if SensorLink
        if CaptureInput.isDatabase(input), case let location = try PostgresLocation(url: input), location.choosesManySessions {
            try OccupancyFleetRun.run(location, settings: settings)
            return
        }
        #endif
        try file(try open(), speed: speed, settings: settings)
    }

    /// `export --occupancy OUT.png`: the capture's occupancy per channel and
    /// slot of the day (`slotSeconds`, UTC) as a heat map; one line to say what was drawn.
    public static func heatMap(_ reader: SpectrumFrameReader, settings: OccupancySettings, slotSeconds: Double,
                               to path: String, input: String) throws -> String {
        let counter = OccupancyCounter(channels: settings.channels, band: settings.band, threshold: settings.threshold,
                                       intervalSeconds: nil, slotSeconds: slotSeconds)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var sweeps = 0
        while try reader.next(into: &frame) {
            _ = counter.add(frame)
            sweeps += 1
        }
        reportSkips(reader)
        guard !counter.channels.isEmpty else {
            throw CommandError("\(input): no channel to count" + (sweeps == 0 ? ": no frames" : " in its sweeps"))
        }
        let name = URL(fileURLWithPath: input).lastPathComponent
        let minutes = FrequencyFormat.trimmed(slotSeconds / 60, maxFractionDigits: 2)
        let title = "\(name)  occupancy, threshold \(settings.threshold) \(reader.metadata.levelUnit), "
            + "\(minutes) min of the day (UTC) per row"
        let summary = try OccupancyHeatMap.write(counter.timeOfDay, slotSeconds: slotSeconds, title: title, to: path)
        return "\(path): \(summary.width)x\(summary.height) px, \(counter.channels.count) channels"
            + (summary.columns < counter.channels.count ? " in \(summary.columns) columns" : "")
            + " x \(summary.slots) slots of \(minutes) min, from \(sweeps) sweeps"
    }

    /// Occupancy live from the analyzer `selection` chooses, until a stop
    /// signal, `durationSeconds` or the analyzer is given up.
    /// - Parameter checkBand: the band, refused when the chosen analyzer's range (given) cannot hold it
    public static func live(_ selection: DeviceSelection, detector: SpectrumDetector, settings: OccupancySettings,
                            band: FrequencyRange, durationSeconds: Double?,
                            checkBand: (FrequencyRange) throws -> FrequencyRange) throws {
        let waiter = RecordingWait(clock: selection.clock)
        let current = Locked<OccupancyRun?>(nil)
        let recording = settings.recordPath.map { _ in RecordingSession() }
        let (source, analyzer) = try selection.spectrumSource(
            headless: true, detector: detector,
            onFrame: { frame in
                // the same sweeps to both, in the same order: counted only once the recording has it queued
                guard let run = current.value else { return }
                recording?.post(frame)
                run.add(frame)
            },
            onGiveUp: { waiter.fail($0) })
        let tuned = try checkBand(analyzer.tunableRange)
        var settings = settings
        settings.band = tuned
        let unit = analyzer.tune(to: tuned)
        let binWidth = settings.channelWidthHint.map { min($0, tuned.spanHz / MeterRun.binsAcrossBand) }
            ?? tuned.spanHz / MeterRun.binsAcrossBand
        if let recording, let path = settings.recordPath {
            var metadata = CaptureMetadata(format: "tscope")
            metadata.device = analyzer.isDemo ? "\(analyzer.name) (demo)" : analyzer.name
            metadata.serial = analyzer.serial
            metadata.gains = analyzer.recordedSettings(unit: unit)
            metadata.conversion = analyzer.conversion
            _ = try recording.start(RecordingSession.Plan(output: .file(path), band: tuned, binWidthHz: binWidth,
                                                          metadata: metadata))
        }
        current.value = OccupancyRun(settings: settings, unit: unit)
        try source.start(band: tuned, binWidthHz: binWidth)
        let end = waiter.wait(duration: durationSeconds, started: waiter.monotonicClock.now, status: { "" })
        source.stop()
        try current.value?.finish()
        if let recording, let summary = try recording.stop() {
            printError("recorded \(summary.frames) sweeps to \(summary.path)"
                + (summary.droppedFrames > 0 ? " (\(summary.droppedFrames) not stored: the disk was too slow)" : ""))
        }
        if case .failure(let message) = end { throw CommandError(message) }
    }

    /// One sweep (any thread): the lines of a period it closed.
    public func add(_ frame: SpectrumFrame) {
        state.withLock { state in
            if let closed = state.counter.add(frame) { report(closed, state: &state) }
        }
    }

    /// The end of the run: the open period, the busy hour if asked, and a
    /// note of the samples that were missing. Throws if no sweep had a channel.
    public func finish() throws {
        try state.withLock { state in
            if let last = state.counter.finish() { report(last, state: &state) }
            guard !state.counter.channels.isEmpty else {
                throw CommandError("no channel to count: no sweep covered "
                    + (settings.band.map { "\($0)" } ?? "any frequency")
                    + (settings.channels == .bins ? "" : " with a whole channel"))
            }
            if settings.busyHour {
                for line in OccupancyLines.busyHour(OccupancyBusyHour.table(state.counter.timeOfDay), output: settings.output) {
                    emit(line)
                }
            }
            if state.counter.lateSweeps > 0 {
                printError("note: \(state.counter.lateSweeps) sweep(s) went back in time: counted in the period they came in")
            }
        }
    }

    private func report(_ period: OccupancyPeriod, state: inout State) {
        if !state.printedHeader, settings.output == .csv {
            emit(OccupancyLines.csvHeader)
        }
        state.printedHeader = true
        for line in OccupancyLines.period(period, unit: unit, threshold: settings.threshold, output: settings.output) {
            emit(line)
        }
        let missing = period.channels.reduce(0) { $0 + $1.missing }
        if missing > 0 {
            printError("note: period from \(EventLine.isoMicroseconds(period.start)): \(missing) channel sample(s) "
                + "missing (sweeps without data there): occupancy counts only the \(period.channels.reduce(0) { $0 + $1.samples }) measured")
        }
    }
}

extension OccupancySettings {
    /// the bin width a live analyzer is asked for when channels are narrower than its default [Hz]
    var channelWidthHint: Double? {
        switch channels {
        case .bins: return nil
        case .width(let width): return width / 4
        case .list(let ranges): return ranges.map(\.spanHz).min().map { $0 / 4 }
        }
    }
}

/// The lines `tscope occupancy` prints.
public enum OccupancyLines {
    public static let csvHeader = "period_start,period_end,start_hz,stop_hz,samples,occupied,missing,occupancy,threshold_db,unit"

    /// text: at most this many channels per period, the busiest first
    static let textChannelLimit = 40

    static func fraction(_ value: Double) -> String { FrequencyFormat.trimmed(value, maxFractionDigits: 6) }
    static func decibels(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "null" }

    public static func period(_ period: OccupancyPeriod, unit: PowerUnit, threshold: OccupancyThreshold,
                              output: OccupancySettings.Output) -> [String] {
        let start = EventLine.isoMicroseconds(period.start)
        let end = EventLine.isoMicroseconds(period.end)
        switch output {
        case .json:
            var lines = period.channels.map { channel in
                "{\"period_start\":\"\(start)\",\"period_end\":\"\(end)\","
                    + "\"start_hz\":\(MeterLine.hertz(channel.range.lowerHz)),\"stop_hz\":\(MeterLine.hertz(channel.range.upperHz)),"
                    + "\"occupancy\":\(channel.occupancy.map(fraction) ?? "null"),\"samples\":\(channel.samples),"
                    + "\"occupied\":\(channel.occupied),\"missing\":\(channel.missing),"
                    + "\"threshold_db\":\(decibels(channel.meanThresholdDB)),\"threshold\":\"\(threshold)\",\"unit\":\"\(unit)\"}"
            }
            lines.append("{\"period_start\":\"\(start)\",\"period_end\":\"\(end)\","
                + "\"band_occupancy\":\(period.bandOccupancy.map(fraction) ?? "null"),"
                + "\"channels\":\(period.channels.count),\"sweeps\":\(period.sweeps)}")
            return lines
        case .csv:
            return period.channels.map { channel in
                "\(start),\(end),\(MeterLine.hertz(channel.range.lowerHz)),\(MeterLine.hertz(channel.range.upperHz)),"
                    + "\(channel.samples),\(channel.occupied),\(channel.missing),"
                    + "\(channel.occupancy.map(fraction) ?? ""),"
                    + "\(channel.meanThresholdDB.map { String(format: "%.2f", $0) } ?? ""),\(unit)"
            }
        case .text:
            let band = period.bandOccupancy.map { String(format: "%.1f %%", $0 * 100) } ?? "no samples"
            var lines = ["\(start) – \(end)  band occupancy \(band)  (\(period.channels.count) channels, "
                + "\(period.sweeps) sweeps, threshold \(threshold) \(unit))"]
            var shown = period.channels
            if shown.count > textChannelLimit {
                shown = Array(shown.sorted { ($0.occupancy ?? -1) > ($1.occupancy ?? -1) }.prefix(textChannelLimit))
                    .sorted { $0.range.lowerHz < $1.range.lowerHz }
            }
            for channel in shown {
                let occupancy = channel.occupancy.map { String(format: "%5.1f %%", $0 * 100) } ?? "    –  "
                lines.append("  \(FrequencyFormat.label(channel.range.lowerHz, maxFractionDigits: 6))–"
                    + "\(FrequencyFormat.label(channel.range.upperHz, maxFractionDigits: 6))  \(occupancy)  "
                    + "\(channel.occupied)/\(channel.samples)" + (channel.missing > 0 ? "  (\(channel.missing) missing)" : ""))
            }
            if shown.count < period.channels.count {
                lines.append("  … the \(shown.count) busiest of \(period.channels.count) channels; --json or --csv for all")
            }
            return lines
        }
    }

    public static func busyHour(_ table: [OccupancyBusyHour], output: OccupancySettings.Output) -> [String] {
        func hour(_ h: Int) -> String { String(format: "%02d:00", h) }
        switch output {
        case .json:
            return table.map {
                "{\"start_hz\":\(MeterLine.hertz($0.range.lowerHz)),\"stop_hz\":\(MeterLine.hertz($0.range.upperHz)),"
                    + "\"busy_hour_utc\":\"\(hour($0.hour))\",\"occupancy\":\(fraction($0.occupancy)),\"samples\":\($0.samples)}"
            }
        case .csv:
            return ["start_hz,stop_hz,busy_hour_utc,occupancy,samples"] + table.map {
                "\(MeterLine.hertz($0.range.lowerHz)),\(MeterLine.hertz($0.range.upperHz)),\(hour($0.hour)),"
                    + "\(fraction($0.occupancy)),\($0.samples)"
            }
        case .text:
            var rows = table
            if rows.count > textChannelLimit {
                rows = Array(rows.sorted { $0.occupancy > $1.occupancy }.prefix(textChannelLimit))
                    .sorted { $0.range.lowerHz < $1.range.lowerHz }
            }
            return ["busy hour (UTC) per channel:"] + rows.map {
                "  \(FrequencyFormat.label($0.range.lowerHz, maxFractionDigits: 6))–"
                    + "\(FrequencyFormat.label($0.range.upperHz, maxFractionDigits: 6))  \(hour($0.hour))–"
                    + "\(hour(($0.hour + 1) % 24))  \(String(format: "%5.1f %%", $0.occupancy * 100))  (\($0.samples) sweeps)"
            }
        }
    }
}
