import Capture
import DSP
import Devices
import Foundation
import Signals
import Telemetry
import Synchronization
import ThreadKit

/// What `tscope meter` measures and prints.
public struct MeterSettings: Sendable {
    /// the bands measured, each its own reading per interval (the analyzer sweeps all of them)
    public var bands: [FrequencyRange]
    /// seconds between readings (device), or of file time (a capture)
    public var interval: Double
    /// readings to print; nil = until the end (a file) or interrupted
    public var count: Int?
    public var json: Bool
    public var trace: TraceMode
    public var measurements: MeterMeasurementRequest?
    /// HOST:PORT to serve the readings on for Prometheus (`/metrics`); nil: none
    public var prometheus: String?
    /// --band-plan: each reading names the allocation of its band, each peak its own ("band"); nil: none
    public var bandPlan: BandPlan?
    /// `--unit W`: a reading in dBm is also given as power (text: "12.6 µW"; JSON: "power_w")
    public var watts = false

    public init(bands: [FrequencyRange], interval: Double, count: Int?, json: Bool, trace: TraceMode,
                measurements: MeterMeasurementRequest?, prometheus: String? = nil, bandPlan: BandPlan? = nil) {
        self.bands = bands
        self.bandPlan = bandPlan
        self.prometheus = prometheus
        self.interval = interval
        self.count = count
        self.json = json
        self.trace = trace
        self.measurements = measurements
    }

    /// what each reading measures: the interval's sweeps, or the trace asked for
    func makeAccumulator() -> BandPowerAccumulator {
        BandPowerAccumulator(measuring: measurements, trace: trace)
    }

    /// whether another reading is wanted after `printed`
    func wantsMore(after printed: Int) -> Bool { count.map { printed < $0 } ?? true }
}

/// The headless power meter: one reading of the power in a band per
/// interval, from an analyzer or from a capture's frames.
public enum MeterRun {
    /// Says where the metrics are served (stderr, as every status message) and hands them back.
    static func serveMetrics(_ metrics: MeterMetrics) -> MeterMetrics {
        printError("Prometheus metrics on \(metrics.url)")
        return metrics
    }

    /// bins asked for across the band: fine enough that the band edges cut
    /// few bins, coarse enough to sweep quickly (the plan clamps to what the
    /// device can do)
    public static let binsAcrossBand = 1000.0

    /// Readings from the analyzer `selection` chooses; a lost analyzer is
    /// retried for its reconnect timeout, then the run ends with the reason.
    /// The analyzer sweeps from the lowest band's start to the highest's stop.
    /// - Parameter checkBand: a band, refused when the chosen analyzer's range (given) cannot hold it
    public static func live(_ selection: DeviceSelection, detector: SpectrumDetector, settings: MeterSettings,
                            checkBand: (FrequencyRange, FrequencyRange) throws -> FrequencyRange) throws {
        let accumulators = settings.bands.map { _ in settings.makeAccumulator() }
        let failure = DeviceFailure()
        let (source, analyzer) = try selection.spectrumSource(
            headless: true, detector: detector,
            onFrame: { frame in for accumulator in accumulators { accumulator.add(frame) } },
            onGiveUp: { failure.record($0) })
        let bands = try settings.bands.map { try checkBand($0, analyzer.tunableRange) }
        for (accumulator, band) in zip(accumulators, bands) { accumulator.band = band }
        let swept = Self.span(of: bands)
        let unit = analyzer.tune(to: swept)
        let metrics = try settings.prometheus.map {
            try Self.serveMetrics(MeterMetrics(address: $0, bands: bands, device: analyzer.name, serial: analyzer.serial,
                                               unit: unit))
        }
        defer { metrics?.stop() }
        try source.start(band: swept, binWidthHz: swept.spanHz / binsAcrossBand / Double(bands.count))
        defer { source.stop() }

        // the supervisor's clock times the readings too
        let clock = selection.clock
        let nobodyRings = Doorbell()
        var printed = 0
        var deadline = clock.now + settings.interval
        while settings.wantsMore(after: printed) {
            // sleep in short steps (1–50 ms) so a device failure ends the run promptly
            while clock.now < deadline {
                if let message = failure.message { throw CommandError(message) }
                let step = min(0.05, max(0.001, deadline - clock.now))
                clock.wait(until: clock.now + step, orUntilRung: nobodyRings)
            }
            deadline += settings.interval
            // a remote sensor's answer to the settings asked of it
            if let notice = source.takeRemoteNotice() { printError(notice) }
            let counters = source.counters
            metrics?.device(droppedBlocks: counters.droppedBlocks, badBlocks: counters.badBlocks)
            var any = false
            for (index, (accumulator, band)) in zip(accumulators, bands).enumerated() {
                guard let reading = accumulator.take() else { continue }
                any = true
                metrics?.reading(band: index, decibels: reading.decibels, sweeps: reading.sweeps)
                print(MeterLine.format(time: unixTimeNow(), band: band, decibels: reading.decibels,
                                       unit: unit, sweeps: reading.sweeps, json: settings.json,
                                       settings: analyzer.withLiveSettings(of: source).jsonSettings,
                                       dwell: source.dwellTiming, measurements: reading.measurements,
                                       trace: settings.trace, droppedSamples: counters.droppedSamples,
                                       bandPlan: settings.bandPlan, watts: settings.watts))
            }
            guard any else { continue }
            fflush(nil)
            printed += 1
        }
    }

    /// The band that holds all of `bands`.
    static func span(of bands: [FrequencyRange]) -> FrequencyRange {
        FrequencyRange(lowerHz: bands.map(\.lowerHz).min() ?? 0, upperHz: bands.map(\.upperHz).max() ?? 1) ?? bands[0]
    }

    /// The same readings from a capture's frames, one per interval of the
    /// file's own time, paced by `speed` (nil: as fast as they read).
    public static func file(_ reader: SpectrumFrameReader, speed: Double?, settings: MeterSettings) throws {
        let bands = settings.bands
        // a calibrated analyzer's or a tinySA's recording is in dBm, and says so
        let unit = reader.metadata.levelUnit
        var pacer = FilePacer(speed: speed)
        let accumulators = bands.map { band in
            let accumulator = settings.makeAccumulator()
            accumulator.band = band
            return accumulator
        }
        let metrics = try settings.prometheus.map {
            try Self.serveMetrics(MeterMetrics(address: $0, bands: bands, device: reader.metadata.device ?? "capture",
                                               serial: reader.metadata.serial, unit: unit))
        }
        defer { metrics?.stop() }
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var printed = 0
        var intervalEnd: Double?
        var lastTime = 0.0
        func emit(at time: Double) {
            var any = false
            for (index, (accumulator, band)) in zip(accumulators, bands).enumerated() {
                guard let reading = accumulator.take() else { continue }
                any = true
                metrics?.reading(band: index, decibels: reading.decibels, sweeps: reading.sweeps)
                print(MeterLine.format(time: time, band: band, decibels: reading.decibels, unit: unit,
                                       sweeps: reading.sweeps, json: settings.json, measurements: reading.measurements,
                                       trace: settings.trace, bandPlan: settings.bandPlan, watts: settings.watts))
            }
            guard any else { return }
            fflush(nil)
            printed += 1
        }
        let interval = settings.interval
        while settings.wantsMore(after: printed), try reader.next(into: &frame) {
            pacer.wait(for: frame.timestamp)
            if let end = intervalEnd, frame.timestamp >= end {
                emit(at: lastTime)
                intervalEnd = end + interval * ((frame.timestamp - end) / interval).rounded(.down) + interval
            } else if intervalEnd == nil {
                intervalEnd = frame.timestamp + interval
            }
            for accumulator in accumulators { accumulator.add(frame) }
            lastTime = frame.timestamp
        }
        if settings.wantsMore(after: printed) { emit(at: lastTime) }
        reportSkips(reader)
    }
}

/// The mean band power of one interval's frames, or with a trace mode the
/// power of the held or averaged trace: fed on the DSP thread, taken on the
/// main thread.
public final class BandPowerAccumulator: Sendable {
    private struct State {
        var average = BandPowerAverage()
        let request: MeterMeasurementRequest?
        /// the interval's mean spectrum per device bin, when measurements are asked for
        var spectrum = TraceHold(kind: .avg)
        /// `--trace`: held or averaged over every sweep since the start (a retune starts it again)
        var trace: TraceAccumulator
        var traced = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
        /// the newest frame's noise bandwidth and window, for the trace and the peaks
        var noiseBandwidthHz: Double?
        var windowing: FFTWindowing?
    }

    private let state: Guarded<State>

    public init(measuring request: MeterMeasurementRequest? = nil, trace mode: TraceMode = .live) {
        state = Guarded(State(request: request, trace: TraceAccumulator(mode: mode)))
    }

    /// the band measured; frames before it is set are ignored
    public var band: FrequencyRange? {
        get { state.withLock { $0.average.band } }
        set { state.withLock { $0.average.band = newValue } }
    }

    public func add(_ frame: SpectrumFrame) {
        state.withLock { state in
            state.average.add(frame)
            guard state.average.band != nil else { return }
            state.noiseBandwidthHz = frame.noiseBandwidthHz
            state.windowing = frame.windowing
            state.trace.add(frame)
            // a retune starts the interval's spectrum again at the new bins
            if state.request != nil, state.trace.mode == .live,
               !state.spectrum.add(startHz: frame.startHz, binWidthHz: frame.binWidthHz, decibels: frame.powerDB) {
                state.spectrum = TraceHold(kind: .avg)
                state.spectrum.add(startHz: frame.startHz, binWidthHz: frame.binWidthHz, decibels: frame.powerDB)
            }
        }
    }

    /// The power of the sweeps since the last take (their mean, or the
    /// trace's) [dB], how many there were, and the measurements asked for;
    /// nil when none arrived.
    public func take() -> (decibels: Double, sweeps: Int, measurements: BandMeasurements?)? {
        state.withLock { state in
            guard let band = state.average.band, let interval = state.average.take() else { return nil }
            if state.trace.mode != .live {
                guard state.trace.write(into: &state.traced) else { return nil }
                state.traced.noiseBandwidthHz = state.noiseBandwidthHz
                state.traced.windowing = state.windowing
                guard let decibels = BandPower.decibels(in: band, of: state.traced) else {
                    return nil
                }
                let measured = state.request.map {
                    BandMeasurements.measure(state.traced, band: band, occupiedPercent: $0.occupiedPercent,
                                             peakCount: $0.peakCount, excursionDB: $0.excursionDB)
                }
                return (decibels, interval.frames, measured)
            }
            let measured = state.request.map {
                BandMeasurements.measure(state.spectrum, windowing: state.windowing, band: band,
                                         occupiedPercent: $0.occupiedPercent, peakCount: $0.peakCount,
                                         excursionDB: $0.excursionDB)
            }
            state.spectrum = TraceHold(kind: .avg)
            return (interval.decibels, interval.frames, measured)
        }
    }
}

/// What `meter --obw/--peaks` asks of each interval's spectrum.
public struct MeterMeasurementRequest: Sendable {
    public var occupiedPercent: Double?
    public var peakCount: Int
    public var excursionDB: Float

    public init(occupiedPercent: Double?, peakCount: Int, excursionDB: Float) {
        self.occupiedPercent = occupiedPercent
        self.peakCount = peakCount
        self.excursionDB = excursionDB
    }
}

/// One line of `tscope meter` output.
public enum MeterLine {
    /// - Parameter unit: "dB" (relative) or "dBm" (a calibrated analyzer); JSON
    ///   gives it as "unit" beside "power_db"
    /// - Parameter dwell: where the source computes spectra from samples, how long each frequency
    ///   was watched per sweep and how often (JSON "dwell_s", "revisit_s", "duty")
    /// - Parameter trace: what was measured when not the interval's sweeps (JSON "trace": "max", "avg:16")
    /// - Parameter settings: the analyzer's settings and calibration as JSON fields (`SelectedAnalyzer.jsonSettings`)
    /// - Parameter bandPlan: names the allocation of the band (`BandPlan.label(for:)`) and of each peak
    ///   (JSON "band", text "in LABEL"); nothing where none holds it
    public static func format(time: Double, band: FrequencyRange, decibels: Double, unit: PowerUnit = .dB, sweeps: Int,
                       json: Bool, settings: String = "", dwell: DwellTiming? = nil,
                       measurements: BandMeasurements? = nil, trace: TraceMode = .live,
                       droppedSamples: Int? = nil, bandPlan: BandPlan? = nil, watts: Bool = false) -> String {
        let stamp = utcISO8601(time)
        let allocation = bandPlan?.label(for: band)
        let power = String(format: "%.2f", decibels)
        // power in watts only from an absolute power (dBm); a relative dB or a voltage unit has none
        let inWatts = watts && unit == .dBm
        if json {
            var line = "{\"time\":\"\(stamp)\",\"start_hz\":\(Int64(band.lowerHz.rounded())),"
                + "\"stop_hz\":\(Int64(band.upperHz.rounded())),\"power_db\":\(power),\"unit\":\"\(unit)\","
                + "\"sweeps\":\(sweeps)" + bandField(allocation) + settings
            if inWatts { line += ",\"power_w\":\(String(format: "%.6e", pow(10, decibels / 10) / 1000))" }
            if trace != .live { line += ",\"trace\":\"\(trace.argument)\"" }
            if let dwell {
                line += ",\"mode\":\"\(dwell.realtime == nil ? "sweep" : "realtime")\""
                    + ",\"dwell_s\":\(String(format: "%.9g", dwell.dwellSeconds)),"
                    + "\"revisit_s\":\(String(format: "%.9g", dwell.revisitSeconds)),"
                    + "\"duty\":\(String(format: "%.6g", dwell.duty))"
                if let realtime = dwell.realtime {
                    line += ",\"fft_size\":\(realtime.fftSize),\"overlap\":\(String(format: "%.6g", realtime.overlap)),"
                        + "\"sample_rate_hz\":\(Int64(realtime.sampleRateHz.rounded())),"
                        + "\"min_full_burst_s\":\(String(format: "%.9g", realtime.fullAmplitudeBurstSeconds))"
                }
            }
            if let droppedSamples { line += ",\"dropped_samples\":\(droppedSamples)" }
            if let occupied = measurements?.occupied {
                line += ",\"obw_hz\":\(hertz(occupied.stopHz - occupied.startHz)),"
                    + "\"obw_start_hz\":\(hertz(occupied.startHz)),\"obw_stop_hz\":\(hertz(occupied.stopHz))"
            }
            if let peaks = measurements?.peaks, measurements != nil {
                let objects = peaks.map { peak -> String in
                    let level = String(format: "%.2f", peak.decibels)
                    let band: String = bandField(bandPlan?.allocation(at: peak.hz)?.label)
                    return "{\"hz\":\(hertz(peak.hz)),\"db\":\(level)" + band + "}"
                }
                line += ",\"peaks\":[" + objects.joined(separator: ",") + "]"
            }
            return line + "}"
        }
        var text = "\(stamp)  \(band)  " + (inWatts ? wattsText(decibels) : "\(power) \(unit)")
        if trace != .live { text += " (\(trace))" }
        if let allocation { text += "  in \(allocation)" }
        if let occupied = measurements?.occupied {
            text += "  OBW \(FrequencyFormat.label(occupied.stopHz - occupied.startHz)) "
                + "(\(FrequencyFormat.label(occupied.startHz, maxFractionDigits: 6))–"
                + "\(FrequencyFormat.label(occupied.stopHz, maxFractionDigits: 6)))"
        }
        if let peaks = measurements?.peaks, !peaks.isEmpty {
            text += "  peaks " + peaks.map {
                "\(FrequencyFormat.label($0.hz, maxFractionDigits: 6)) \(String(format: "%.2f", $0.decibels)) \(unit)"
            }.joined(separator: ", ")
        }
        return text
    }

    /// A power in dBm as watts with an SI prefix and four significant figures: −30 dBm → "1.000 µW".
    static func wattsText(_ dBm: Double) -> String {
        let watts = pow(10, dBm / 10) / 1000
        guard watts.isFinite, watts > 0 else { return "0 W" }
        let prefixes: [(Double, String)] = [(1, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p"), (1e-15, "f"), (1e-18, "a")]
        let (scale, prefix) = prefixes.first { watts >= $0.0 } ?? prefixes[prefixes.count - 1]
        let value = watts / scale
        let digits = value >= 100 ? 1 : value >= 10 ? 2 : 3
        return String(format: "%.\(digits)f \(prefix)W", value)
    }

    /// `,"band":"LABEL"` (the label escaped for JSON), or nothing without a label
    static func bandField(_ label: String?) -> String {
        label.map { ",\"band\":\"\(ECGClassifyRun.escaped($0))\"" } ?? ""
    }

    /// a frequency in JSON: whole Hz, or up to 3 decimals
    public static func hertz(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// "2025-01-02T03:04:05.678Z"
    public static func utcISO8601(_ time: Double) -> String {
        var seconds = time_t(time.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let millis = min(999, Int((time - Double(seconds)) * 1000))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis)
    }
}

#if !SensorLink
/// Without the sensor link there is no Prometheus exporter: `--prometheus` ends in `SensorLink.missing`
/// before anything is read (the readings go nowhere else).
final class MeterMetrics: Sendable {
    init(address: String, bands: [FrequencyRange], device: String, serial: String?, unit: PowerUnit) throws {
        throw SensorLink.missing("--prometheus")
    }

    var url: String { "" }
    func reading(band index: Int, decibels: Double, sweeps count: Int) {}
    func device(droppedBlocks: Int, badBlocks: Int) {}
    func stop() {}
}
#endif
