import Analyzers
import DSP
import Devices
import Foundation
import Signals
import ThreadKit

/// What `tscope measure` measures.
public enum MeasureKind: Sendable, Equatable {
    /// the fundamental and harmonics 2…count
    case harmonics(fundamentalHz: Double, count: Int)
    /// two tones and their third-order products
    case toi(f1: Double, f2: Double)
    /// a channel and its neighbours at ± each offset
    case acpr(centreHz: Double, widthHz: Double, offsetsHz: [Double], adjacentWidthHz: Double)
    /// a noise marker
    case noise(hz: Double, spanHz: Double)

    /// the band the analyzer sweeps for it: everything measured, with room either side
    public var band: FrequencyRange? {
        switch self {
        case let .harmonics(fundamental, count):
            let margin = max(0.02 * fundamental, 1e5)
            return FrequencyRange(lowerHz: max(0, fundamental - margin), upperHz: Double(count) * fundamental + Double(count) * margin)
        case let .toi(f1, f2):
            let spacing = abs(f2 - f1)
            return FrequencyRange(lowerHz: max(0, min(f1, f2) - 2 * spacing), upperHz: max(f1, f2) + 2 * spacing)
        case let .acpr(centre, width, offsets, adjacentWidth):
            let reach = max(width / 2, (offsets.max() ?? 0) + adjacentWidth / 2) * 1.1
            return FrequencyRange(lowerHz: max(0, centre - reach), upperHz: centre + reach)
        case let .noise(hz, span):
            return FrequencyRange(lowerHz: max(0, hz - span / 2), upperHz: hz + span / 2)
        }
    }

    /// "harmonics", "toi", "acpr", "noise": the JSON's `measurement`
    public var name: String {
        switch self {
        case .harmonics: "harmonics"
        case .toi: "toi"
        case .acpr: "acpr"
        case .noise: "noise"
        }
    }
}

/// `tscope measure`: the analyzer sweeps the band the measurement needs,
/// `sweeps` sweeps are averaged in linear power (a bench analyzer's trace
/// average), and the measurement is read from that trace and printed, as a
/// table or one JSON line; `count` measurements in a row.
public enum MeasureRun {
    public struct Settings: Sendable {
        public var kind: MeasureKind
        public var sweeps: Int
        public var count: Int
        public var json: Bool
        /// bins across the band asked of the analyzer (it may give fewer)
        public var bins: Double
        /// --check-gain: measure, change the front-end gain by this [dB], measure again, compare (harmonics, toi)
        public var checkGainDB: Double?

        public init(kind: MeasureKind, sweeps: Int, count: Int, json: Bool, bins: Double = 2000, checkGainDB: Double? = nil) {
            self.kind = kind
            self.checkGainDB = checkGainDB
            self.sweeps = sweeps
            self.count = count
            self.json = json
            self.bins = bins
        }
    }

    /// Measures on the analyzer `selection` chooses; a lost analyzer is retried for its timeout, then the run ends.
    public static func live(_ selection: DeviceSelection, settings: Settings,
                            checkBand: (FrequencyRange, FrequencyRange) throws -> FrequencyRange) throws {
        if let change = settings.checkGainDB {
            let step = try gainStep(selection.settings, kind: selection.device.kind, changeDB: change)
            return try gainCheck(selection, settings: settings, step: step, checkBand: checkBand)
        }
        try sweep(selection, settings: settings, count: settings.count, checkBand: checkBand) { frame, unit in
            print(try Self.report(settings.kind, frame: frame, unit: unit, json: settings.json, time: unixTimeNow()))
            fflush(nil)
        }
    }

    /// Sweeps the measurement's band on the analyzer `selection` chooses and
    /// hands `each` `count` traces, each `settings.sweeps` sweeps averaged in power.
    static func sweep(_ selection: DeviceSelection, settings: Settings, count: Int,
                      checkBand: (FrequencyRange, FrequencyRange) throws -> FrequencyRange,
                      each: (SpectrumFrame, PowerUnit) throws -> Void) throws {
        guard let wanted = settings.kind.band else { throw UsageError("measure: the frequencies give no band to sweep") }
        struct Collected {
            var trace: TraceAccumulator
            var last: SpectrumFrame?
            var sweeps = 0
        }
        let collected = Guarded(Collected(trace: TraceAccumulator(mode: .average(settings.sweeps))))
        let failure = DeviceFailure()
        let (source, analyzer) = try selection.spectrumSource(
            headless: true, detector: .average,
            onFrame: { frame in
                collected.withLock { state in
                    state.trace.add(frame)
                    state.last = frame
                    state.sweeps += 1
                }
            },
            onGiveUp: { failure.record($0) })
        let band = try checkBand(wanted, analyzer.tunableRange)
        let unit = analyzer.tune(to: band)
        try source.start(band: band, binWidthHz: band.spanHz / settings.bins)
        defer { source.stop() }
        let clock = selection.clock
        let nobodyRings = Doorbell()
        for _ in 0..<count {
            collected.withLock { $0 = Collected(trace: TraceAccumulator(mode: .average(settings.sweeps))) }
            // a sweep may be under way when the count restarts: wait for one more than asked
            while collected.withLock({ $0.sweeps }) < settings.sweeps + 1 {
                if let message = failure.message { throw CommandError(message) }
                clock.wait(until: clock.now + 0.02, orUntilRung: nobodyRings)
            }
            let averaged: SpectrumFrame? = collected.withLock { state in
                guard var frame = state.last else { return nil }
                return state.trace.write(into: &frame) ? frame : nil
            }
            guard let frame = averaged else { continue }
            try each(frame, unit)
        }
    }

    /// The measurement on `frame`, as text or one JSON line; an error naming
    /// what was not found (a tone outside the band, no signal).
    public static func report(_ kind: MeasureKind, frame: SpectrumFrame, unit: PowerUnit, json: Bool,
                              time: Double) throws -> String {
        let absolute = unit.isAbsolute
        let unitName = unit.rawValue
        func hz(_ value: Double) -> String { String(Int64(value.rounded())) }
        func db(_ value: Double) -> String { String(format: "%.2f", value) }
        func label(_ value: Double) -> String { FrequencyFormat.label(value, maxFractionDigits: 6) }
        func padded(_ text: String, _ width: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, width - text.count))
            return left ? fill + text : text + fill
        }
        let head = "{\"time\":\"\(MeterLine.utcISO8601(time))\",\"measurement\":\"\(kind.name)\",\"unit\":\"\(unitName)\""
            + ",\"relative\":\(!absolute)"
        switch kind {
        case let .harmonics(fundamental, count):
            guard let result = BenchMeasurements.harmonics(fundamentalHz: fundamental, count: count, in: frame) else {
                throw CommandError("measure harmonics: no fundamental within the band near \(label(fundamental))")
            }
            let level = result.tones[0].tone.decibels
            if json {
                // below the noise: no level, only the bound (the noise's strongest bin where it was looked for)
                let items = result.tones.map {
                    "{\"n\":\($0.n),\"frequency_hz\":\(hz($0.belowNoise ? $0.tone.expectedHz : $0.tone.hz)),"
                        + ($0.belowNoise ? "\"below_noise\":true,\"dbc_less_than\":\(db($0.tone.decibels - level))}"
                            : "\"below_noise\":false,\"level_db\":\(db($0.tone.decibels)),\"dbc\":\(db($0.tone.decibels - level))}")
                }
                var line = head + ",\"harmonics\":[" + items.joined(separator: ",") + "]"
                if let thd = result.thdDB, let percent = result.thdPercent {
                    line += ",\"thd_db\":\(db(thd)),\"thd_percent\":\(String(format: "%.4g", percent))"
                }
                return line + "}"
            }
            var lines = ["harmonics of \(label(result.tones[0].tone.hz)) (\(unitName))", "  n  frequency          level      dBc"]
            for item in result.tones {
                let reading = item.belowNoise
                    ? String(format: "   below noise (< %.2f dBc)", item.tone.decibels - level)
                    : String(format: "%8.2f  %7.2f", item.tone.decibels, item.tone.decibels - level)
                lines.append(String(format: "%3d  ", item.n) + padded(label(item.belowNoise ? item.tone.expectedHz : item.tone.hz), 15) + reading)
            }
            if let thd = result.thdDB, let percent = result.thdPercent {
                let partial = result.tones.contains(where: \.belowNoise) ? ", harmonics above the noise" : ""
                lines.append(String(format: "THD %.2f dB (%.4g %%)", thd, percent) + partial)
            } else if result.tones.count > 1 {
                lines.append("THD below noise")
            }
            return lines.joined(separator: "\n")
        case let .toi(f1, f2):
            guard let result = BenchMeasurements.intermodulation(f1: f1, f2: f2, in: frame) else {
                throw CommandError("measure toi: the tones \(label(f1)) and \(label(f2)) or their products are not within the band")
            }
            let intercept = result.outputInterceptDB
            if json {
                let tones = [result.lower, result.upper].map { "{\"frequency_hz\":\(hz($0.hz)),\"level_db\":\(db($0.decibels))}" }
                let products = [(result.lowerProduct, result.lowerDBc), (result.upperProduct, result.upperDBc)].map {
                    "{\"frequency_hz\":\(hz($0.0.hz)),\"level_db\":\(db($0.0.decibels)),\"dbc\":\(db($0.1))}"
                }
                return head + ",\"tones\":[" + tones.joined(separator: ",") + "],\"products\":[" + products.joined(separator: ",")
                    + "],\"im3_dbc\":\(db(result.worstDBc)),\"oip3_db\":\(db(intercept))"
                    + (unit == .dBm ? ",\"oip3_dbm\":\(db(intercept))" : "") + "}"
            }
            return [
                "two tones (\(unitName))",
                "  F1 \(label(result.lower.hz))  \(db(result.lower.decibels))   F2 \(label(result.upper.hz))  \(db(result.upper.decibels))",
                "  2F1−F2 \(label(result.lowerProduct.hz))  \(db(result.lowerProduct.decibels))  \(db(result.lowerDBc)) dBc",
                "  2F2−F1 \(label(result.upperProduct.hz))  \(db(result.upperProduct.decibels))  \(db(result.upperDBc)) dBc",
                "IM3 \(db(result.worstDBc)) dBc   OIP3 \(db(intercept)) \(absolute ? unitName : "dB above the tones' reference (uncalibrated: relative)")",
            ].joined(separator: "\n")
        case let .acpr(centre, width, offsets, adjacentWidth):
            guard let result = BenchMeasurements.adjacentChannels(centreHz: centre, widthHz: width, offsetsHz: offsets,
                                                                  adjacentWidthHz: adjacentWidth, in: frame) else {
                throw CommandError("measure acpr: the channel or an adjacent one is not within the band")
            }
            if json {
                let adjacent = result.adjacent.map {
                    "{\"offset_hz\":\(hz($0.offsetHz)),\"bandwidth_hz\":\(hz($0.band.spanHz)),\"power_db\":\(db($0.decibels)),\"dbc\":\(db($0.dBc))}"
                }
                return head + ",\"channel\":{\"center_hz\":\(hz(centre)),\"bandwidth_hz\":\(hz(width)),\"power_db\":\(db(result.mainDecibels))}"
                    + ",\"adjacent\":[" + adjacent.joined(separator: ",") + "]}"
            }
            var lines = ["channel \(label(centre)), \(label(width)) wide: \(db(result.mainDecibels)) \(unitName)",
                         "      offset  bandwidth      power      dBc"]
            for channel in result.adjacent {
                let offset = (channel.offsetHz < 0 ? "−" : "+") + label(abs(channel.offsetHz))
                lines.append(padded(offset, 12, left: true) + "  " + padded(label(channel.band.spanHz), 9, left: true)
                    + String(format: "  %9.2f  %7.2f", channel.decibels, channel.dBc))
            }
            return lines.joined(separator: "\n")
        case let .noise(at, _):
            guard let result = BenchMeasurements.noiseDensity(at: at, in: frame) else {
                throw CommandError("measure noise: \(label(at)) is not within the band")
            }
            if json {
                return head + ",\"frequency_hz\":\(hz(at)),\"level_db_per_hz\":\(db(result.decibelsPerHz))"
                    + ",\"bins\":\(result.bins),\"noise_bandwidth_hz\":\(String(format: "%.6g", result.noiseBandwidthHz))}"
            }
            return "noise at \(label(at)): \(db(result.decibelsPerHz)) \(unitName)/Hz "
                + "(\(result.bins) bins averaged in power, noise bandwidth \(label(result.noiseBandwidthHz)) each)"
        }
    }
}
