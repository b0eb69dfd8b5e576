import ArgumentParser
import DSP
import Devices
import Foundation
import Runs
import Signals

/// Headless power meter: one reading of the power in a band per interval.
struct MeterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meter",
        abstract: "Print the power in a band, one reading per interval.",
        discussion: """
            Each reading is the mean linear power of every sweep in the interval, integrated over the band as a \
            channel-power measurement: Σ bin power × bin width / the noise bandwidth of one bin (a swept \
            analyzer's RBW filter, an FFT window's; README "Channel power"), each bin weighted by the part of it \
            inside the band, in dB. With --json: JSON Lines with the UTC \
            time, the band edges in Hz and the power in dB, and for the HackRF how long each frequency is \
            watched per sweep and how often (dwell_s, revisit_s, duty). --detector average (the default) takes \
            every sample of each dwell; peak keeps each bin's largest segment; sample is hackrf_sweep's last N.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band to measure, start:stop in MHz.", transform: Band.init(parsing:))
    var band: Band

    @Option(name: .long, help: "Seconds between readings.")
    var interval: Double = 1

    @Option(name: [.customShort("n"), .long], help: "Stop after this many readings (default: run until interrupted).")
    var count: Int?

    @Flag(name: .long, help: "JSON Lines: {\"time\", \"start_hz\", \"stop_hz\", \"power_db\", \"unit\", \"sweeps\", \"dwell_s\", \"revisit_s\", \"duty\"}.")
    var json = false

    @Option(name: .long, help: "Occupied bandwidth: the band holding this percent of the power (e.g. 99).")
    var obw: Double?

    @Option(name: .long, help: "Report the K highest peaks (a peak rises --excursion dB over its surroundings).")
    var peaks: Int = 0

    @Option(name: .long, help: "Peak excursion [dB] for --peaks.")
    var excursion: Double = 6

    @Option(name: .long, help: ArgumentHelp(
        "Measure a held or averaged trace, as a bench analyzer's channel power does: max or min hold since the "
            + "start, or avg:N (linear mean of the last N sweeps). Default live: each interval's sweeps.",
        valueName: "live|max|min|avg|avg:N"))
    var trace: TraceMode = .live

    @Option(name: .long, help: "Meter a capture file instead of a device (any format tscope reads).")
    var input: String?

    @Option(name: .long, help: "With --input: playback speed, a factor or max (default 1, real time).")
    var speed: String = "1"

    @OptionGroup var inputOptions: CaptureInputOptions

    /// bins asked for across the band: fine enough that the band edges cut
    /// few bins, coarse enough to sweep quickly (the plan clamps to what the
    /// device can do)
    static let binsAcrossBand = 1000.0

    func validate() throws {
        guard interval.isFinite, interval >= 0.05, interval <= 86_400 else {
            throw ValidationError("--interval \(interval): expected seconds between 0.05 and 86400")
        }
        if let count, count < 1 { throw ValidationError("--count \(count): expected at least 1") }
        if let obw, !(obw > 0 && obw < 100) { throw ValidationError("--obw \(obw): expected a percent between 0 and 100") }
        guard (0...100).contains(peaks) else { throw ValidationError("--peaks \(peaks): expected 0…100") }
        guard excursion.isFinite, excursion >= 0 else { throw ValidationError("--excursion \(excursion): expected dB ≥ 0") }
        _ = try parsedSpeed()
    }

    /// `--speed`: nil = as fast as possible
    func parsedSpeed() throws -> Double? {
        if speed == "max" { return nil }
        guard let factor = Double(speed), factor.isFinite, factor > 0 else {
            throw ValidationError("--speed \(speed): expected a factor such as 4, or max")
        }
        return factor
    }

    /// what the per-interval spectrum is measured for, nil when nothing is asked
    var measurementRequest: MeterMeasurementRequest? {
        obw == nil && peaks == 0 ? nil
            : MeterMeasurementRequest(occupiedPercent: obw, peakCount: peaks, excursionDB: Float(excursion))
    }

    /// what each reading measures: the interval's sweeps, or the trace asked for
    func makeAccumulator() -> BandPowerAccumulator {
        BandPowerAccumulator(measuring: measurementRequest, trace: trace)
    }

    func run() throws {
        if let input {
            try MeterFileRun(command: self, input: input).run()
            return
        }
        let accumulator = makeAccumulator()
        let failure = DeviceFailure()
        // a lost analyzer is retried for --reconnect-timeout, then the run ends with its reason
        let source: ReconnectingSpectrumSource
        let measured: FrequencyRange
        let analyzer: SelectedAnalyzer
        // channel power is a mean: the average detector by default
        (source, analyzer) = try deviceOptions.selection.spectrumSource(
            headless: true, hackRF: .init(detector: detectorOption.chosen(default: .average)),
            onFrame: { accumulator.add($0) }, onGiveUp: { failure.record($0) })
        measured = try band.within(analyzer.kind.tunableRange, option: "--band")
        accumulator.band = measured
        try source.start(band: measured, binWidthHz: measured.spanHz / Self.binsAcrossBand)
        defer { source.stop() }

        var printed = 0
        var deadline = monotonicSeconds() + interval
        while count.map({ printed < $0 }) ?? true {
            // sleep in short steps so a device failure ends the run promptly
            while monotonicSeconds() < deadline {
                if let message = failure.message { throw CommandError(message) }
                usleep(UInt32(min(50_000, max(1_000, (deadline - monotonicSeconds()) * 1e6))))
            }
            deadline += interval
            guard let reading = accumulator.take() else { continue }
            print(MeterLine.format(time: unixTimeNow(), band: measured, decibels: reading.decibels,
                                   unit: analyzer.kind.powerUnit, sweeps: reading.sweeps, json: json,
                                   dwell: source.dwellTiming, measurements: reading.measurements, trace: trace))
            fflush(nil)
            printed += 1
        }
    }
}

/// The mean band power of one interval's frames, or with a trace mode the
/// power of the held or averaged trace: fed on the DSP thread, taken on the
/// main thread.
final class BandPowerAccumulator: @unchecked Sendable {
    private let lock = NSLock()
    private var average = BandPowerAverage()
    private let request: MeterMeasurementRequest?
    /// the interval's mean spectrum per device bin, when measurements are asked for
    private var spectrum = TraceHold(kind: .avg)
    /// `--trace`: held or averaged over every sweep since the start (a retune starts it again)
    private var trace: TraceAccumulator
    private var traced = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])

    init(measuring request: MeterMeasurementRequest? = nil, trace mode: TraceMode = .live) {
        self.request = request
        trace = TraceAccumulator(mode: mode)
    }

    /// the band measured; frames before it is set are ignored
    var band: FrequencyRange? {
        get { lock.withLock { average.band } }
        set { lock.withLock { average.band = newValue } }
    }

    func add(_ frame: SpectrumFrame) {
        lock.withLock {
            average.add(frame)
            guard average.band != nil else { return }
            trace.add(frame)
            // a retune starts the interval's spectrum again at the new bins
            if request != nil, trace.mode == .live,
               !spectrum.add(startHz: frame.startHz, binWidthHz: frame.binWidthHz, decibels: frame.powerDB) {
                spectrum = TraceHold(kind: .avg)
                spectrum.add(startHz: frame.startHz, binWidthHz: frame.binWidthHz, decibels: frame.powerDB)
            }
        }
    }

    /// The power of the sweeps since the last take (their mean, or the
    /// trace's) [dB], how many there were, and the measurements asked for;
    /// nil when none arrived.
    func take() -> (decibels: Double, sweeps: Int, measurements: BandMeasurements?)? {
        lock.withLock {
            guard let band = average.band, let interval = average.take() else { return nil }
            if trace.mode != .live {
                guard trace.write(into: &traced), let decibels = BandPower.decibels(in: band, of: traced) else {
                    return nil
                }
                let measured = request.map {
                    BandMeasurements.measure(traced, band: band, occupiedPercent: $0.occupiedPercent,
                                             peakCount: $0.peakCount, excursionDB: $0.excursionDB)
                }
                return (decibels, interval.frames, measured)
            }
            let measured = request.map {
                BandMeasurements.measure(spectrum, band: band, occupiedPercent: $0.occupiedPercent,
                                         peakCount: $0.peakCount, excursionDB: $0.excursionDB)
            }
            spectrum = TraceHold(kind: .avg)
            return (interval.decibels, interval.frames, measured)
        }
    }
}

/// What `meter --obw/--peaks` asks of each interval's spectrum.
struct MeterMeasurementRequest {
    var occupiedPercent: Double?
    var peakCount: Int
    var excursionDB: Float
}

/// `meter --input FILE`: the same readings from a capture's frames, one per
/// --interval of the file's own time, paced by --speed.
struct MeterFileRun {
    let command: MeterCommand
    let input: String

    func run() throws {
        let band = command.band.range
        var pacer = FilePacer(speed: try command.parsedSpeed())
        let format = try command.inputOptions.format(of: input)
        let reader = try command.inputOptions.openReader(path: input, format: format)
        let accumulator = command.makeAccumulator()
        accumulator.band = band
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var printed = 0
        var intervalEnd: Double?
        var lastTime = 0.0
        func emit(at time: Double) {
            guard let reading = accumulator.take() else { return }
            print(MeterLine.format(time: time, band: band, decibels: reading.decibels, sweeps: reading.sweeps,
                                   json: command.json, measurements: reading.measurements, trace: command.trace))
            fflush(nil)
            printed += 1
        }
        while command.count.map({ printed < $0 }) ?? true {
            let more: Bool
            more = try reader.next(into: &frame)
            guard more else { break }
            pacer.wait(for: frame.timestamp)
            if let end = intervalEnd, frame.timestamp >= end {
                emit(at: lastTime)
                intervalEnd = end + command.interval * ((frame.timestamp - end) / command.interval).rounded(.down)
                    + command.interval
            } else if intervalEnd == nil {
                intervalEnd = frame.timestamp + command.interval
            }
            accumulator.add(frame)
            lastTime = frame.timestamp
        }
        if command.count.map({ printed < $0 }) ?? true { emit(at: lastTime) }
        reportSkips(reader)
    }
}

/// One line of `tscope meter` output.
enum MeterLine {
    /// - Parameter unit: "dB" (relative) or "dBm" (a calibrated analyzer); JSON
    ///   gives it as "unit" beside "power_db"
    /// - Parameter dwell: where the source computes spectra from samples, how long each frequency
    ///   was watched per sweep and how often (JSON "dwell_s", "revisit_s", "duty")
    /// - Parameter trace: what was measured when not the interval's sweeps (JSON "trace": "max", "avg:16")
    static func format(time: Double, band: FrequencyRange, decibels: Double, unit: String = "dB", sweeps: Int,
                       json: Bool, dwell: DwellTiming? = nil, measurements: BandMeasurements? = nil,
                       trace: TraceMode = .live) -> String {
        let stamp = utcISO8601(time)
        let power = String(format: "%.2f", decibels)
        if json {
            var line = "{\"time\":\"\(stamp)\",\"start_hz\":\(Int64(band.lowerHz.rounded())),"
                + "\"stop_hz\":\(Int64(band.upperHz.rounded())),\"power_db\":\(power),\"unit\":\"\(unit)\","
                + "\"sweeps\":\(sweeps)"
            if trace != .live { line += ",\"trace\":\"\(trace.argument)\"" }
            if let dwell {
                line += ",\"dwell_s\":\(String(format: "%.9g", dwell.dwellSeconds)),"
                    + "\"revisit_s\":\(String(format: "%.9g", dwell.revisitSeconds)),"
                    + "\"duty\":\(String(format: "%.6g", dwell.duty))"
            }
            if let occupied = measurements?.occupied {
                line += ",\"obw_hz\":\(hertz(occupied.stopHz - occupied.startHz)),"
                    + "\"obw_start_hz\":\(hertz(occupied.startHz)),\"obw_stop_hz\":\(hertz(occupied.stopHz))"
            }
            if let peaks = measurements?.peaks, measurements != nil {
                line += ",\"peaks\":[" + peaks.map {
                    "{\"hz\":\(hertz($0.hz)),\"db\":\(String(format: "%.2f", $0.decibels))}"
                }.joined(separator: ",") + "]"
            }
            return line + "}"
        }
        var text = "\(stamp)  \(band)  \(power) \(unit)"
        if trace != .live { text += " (\(trace))" }
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

    /// a frequency in JSON: whole Hz, or up to 3 decimals
    static func hertz(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// "2025-01-02T03:04:05.678Z"
    static func utcISO8601(_ time: Double) -> String {
        var seconds = time_t(time.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let millis = min(999, Int((time - Double(seconds)) * 1000))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis)
    }
}
