import DSP
import Foundation
import Signals

/// The measurement `e` shows in the plot, as a bench analyzer's Meas key:
/// each press steps off → harmonics → TOI → ACPR → noise marker → off.
public enum BenchMeasurementKind: Int, CaseIterable, Sendable, Equatable {
    case harmonics, toi, acpr, noise

    public var title: String {
        switch self {
        case .harmonics: "harmonics"
        case .toi: "TOI"
        case .acpr: "ACPR"
        case .noise: "noise marker"
        }
    }
}

/// What `e` shows and its latest reading, measured on the shown trace once
/// per drawn frame with the same `BenchMeasurements` functions as `tscope
/// measure`. Its parameters come from the screen, as on a bench analyzer:
///
/// - harmonics: the fundamental is the selected marker, else the highest
///   peak in the span; harmonics 2… as far as the span reaches (at most 10);
/// - TOI: the two tones are the two highest peaks (6 dB excursion) in the span;
/// - ACPR: the main channel is centred in the span, `channelWidthHz` wide
///   (a tenth of the span until set in the drawer), its neighbours at ±1 and
///   ±2 × `channelSpacingHz` (the width until set), as far as the span reaches;
/// - noise marker: at the selected marker, else the span's centre.
public struct BenchMeasurementModel: Sendable {
    /// nil: no measurement shown
    public private(set) var kind: BenchMeasurementKind?
    /// ACPR's channel width set in the drawer [Hz]; nil: a tenth of the span
    public private(set) var channelWidthSetting: Double?
    /// ACPR's channel spacing set in the drawer [Hz]; nil: the channel width
    public private(set) var channelSpacingSetting: Double?
    /// the last reading, nil before the first frame
    public private(set) var reading: Reading?

    /// harmonics measured at most (the fundamental's included)
    public static let maximumHarmonics = 10
    /// a peak's excursion for the tones [dB] (the markers' rule)
    public static let excursionDB: Float = 6

    public enum Reading: Sendable, Equatable {
        case harmonics(BenchMeasurements.Harmonics)
        case toi(BenchMeasurements.Intermodulation)
        case acpr(BenchMeasurements.AdjacentChannels)
        case noise(BenchMeasurements.NoiseDensity)
        /// why nothing could be read (no peak, a harmonic beyond the span …)
        case missing(String)
    }

    public init() {}

    /// e: the next measurement, off after the noise marker.
    public mutating func cycle() {
        switch kind {
        case nil: kind = .harmonics
        case .harmonics: kind = .toi
        case .toi: kind = .acpr
        case .acpr: kind = .noise
        case .noise: kind = nil
        }
        reading = nil
    }

    public mutating func show(_ wanted: BenchMeasurementKind?) {
        kind = wanted
        reading = nil
    }

    /// ACPR's main channel width in `span` [Hz]: the drawer's, else a tenth of the span.
    public func channelWidthHz(span: FrequencyRange) -> Double { channelWidthSetting ?? span.spanHz / 10 }
    /// ACPR's channel spacing [Hz]: the drawer's, else the channel width.
    public func channelSpacingHz(span: FrequencyRange) -> Double { channelSpacingSetting ?? channelWidthHz(span: span) }

    /// Sets ACPR's channel width or spacing [Hz] (nil: back to following the span); false for a non-positive value.
    @discardableResult
    public mutating func setChannel(widthHz: Double? = nil, spacingHz: Double? = nil) -> Bool {
        for value in [widthHz, spacingHz].compactMap({ $0 }) where !(value.isFinite && value > 0) { return false }
        if let widthHz { channelWidthSetting = widthHz }
        if let spacingHz { channelSpacingSetting = spacingHz }
        return true
    }

    /// Forgets the reading (a retune: the old one belongs to another band).
    public mutating func clearReading() { reading = nil }

    /// Measures the shown trace `frame` in the `visible` band; `markerHz` is the selected marker's frequency.
    public mutating func measure(_ frame: SpectrumFrame, visible: FrequencyRange, markerHz: Double?) {
        guard let kind else { return }
        reading = Self.reading(kind, frame: frame, visible: visible, markerHz: markerHz,
                               channelWidthHz: channelWidthHz(span: visible), channelSpacingHz: channelSpacingHz(span: visible))
    }

    static func reading(_ kind: BenchMeasurementKind, frame: SpectrumFrame, visible: FrequencyRange, markerHz: Double?,
                        channelWidthHz: Double, channelSpacingHz: Double) -> Reading {
        let label = { (hz: Double) in FrequencyFormat.label(hz, maxFractionDigits: 4) }
        switch kind {
        case .harmonics:
            guard let fundamental = markerHz ?? peaks(frame, visible: visible, count: 1).first else {
                return .missing("no peak in the span")
            }
            let count = min(Self.maximumHarmonics, Int(visible.upperHz / fundamental))
            guard count >= 2 else { return .missing("H2 at \(label(2 * fundamental)) is beyond the span: widen it") }
            guard let result = BenchMeasurements.harmonics(fundamentalHz: fundamental, count: count, in: frame) else {
                return .missing("no fundamental near \(label(fundamental))")
            }
            return .harmonics(result)
        case .toi:
            let tones = peaks(frame, visible: visible, count: 2)
            guard tones.count == 2 else { return .missing("two tones needed: fewer than two peaks in the span") }
            guard let result = BenchMeasurements.intermodulation(f1: tones[0], f2: tones[1], in: frame) else {
                return .missing("the products 2F1−F2, 2F2−F1 are beyond the span: widen it")
            }
            return .toi(result)
        case .acpr:
            let centre = visible.centerHz
            let offsets = [channelSpacingHz, 2 * channelSpacingHz].filter { centre - $0 - channelWidthHz / 2 >= visible.lowerHz - 1 }
            guard channelSpacingHz >= channelWidthHz, !offsets.isEmpty else {
                return .missing(channelSpacingHz < channelWidthHz ? "the spacing is below the channel width"
                    : "no adjacent channel within the span: narrow the channel (d)")
            }
            guard let result = BenchMeasurements.adjacentChannels(centreHz: centre, widthHz: channelWidthHz, offsetsHz: offsets,
                                                                  adjacentWidthHz: channelWidthHz, in: frame) else {
                return .missing("no channel power in the span")
            }
            return .acpr(result)
        case .noise:
            guard let result = BenchMeasurements.noiseDensity(at: markerHz ?? visible.centerHz, in: frame) else {
                return .missing("the noise marker is outside the trace")
            }
            return .noise(result)
        }
    }

    /// The highest `count` peaks' frequencies (bin centres) within `visible`, highest first.
    static func peaks(_ frame: SpectrumFrame, visible: FrequencyRange, count: Int) -> [Double] {
        guard frame.binWidthHz > 0, !frame.powerDB.isEmpty else { return [] }
        let first = max(0, Int(((visible.lowerHz - frame.startHz) / frame.binWidthHz).rounded(.up)))
        let end = min(frame.powerDB.count, Int(((visible.upperHz - frame.startHz) / frame.binWidthHz).rounded(.down)))
        guard first < end else { return [] }
        return SpectrumMeasurements.peaks(Array(frame.powerDB[first..<end]), excursionDB: excursionDB, count: count)
            .map { frame.binCenterHz($0.bin + first) }
    }

    /// The next value of the 1-2-5 series above (or below) `value`.
    static func oneTwoFive(_ value: Double, up: Bool) -> Double {
        let decade: Double = pow(10, (log10(max(value, 1)) + 1e-9).rounded(.down))
        let steps: [Double] = [decade, 2 * decade, 5 * decade, 10 * decade]
        if up { return steps.first { $0 > value * (1 + 1e-9) } ?? 10 * decade }
        return ([decade / 2] + steps).last { $0 < value * (1 - 1e-9) } ?? decade / 2
    }

    // MARK: what is shown

    /// A label on the plot at a measured frequency, drawn above the trace there.
    public struct Mark: Sendable, Equatable {
        public var hz: Double
        public var label: String
    }

    /// The labels on the plot: F and H2… for harmonics, F1, F2 and IM3 for
    /// TOI, N for the noise marker (ACPR's channels are `channels`).
    public var marks: [Mark] {
        switch reading {
        case .harmonics(let result)?:
            return result.tones.map { Mark(hz: $0.belowNoise ? $0.tone.expectedHz : $0.tone.hz, label: $0.n == 1 ? "F" : "H\($0.n)") }
        case .toi(let result)?:
            return [Mark(hz: result.lower.hz, label: "F1"), Mark(hz: result.upper.hz, label: "F2"),
                    Mark(hz: result.lowerProduct.hz, label: "IM3"), Mark(hz: result.upperProduct.hz, label: "IM3")]
        case .noise(let result)?:
            return [Mark(hz: result.hz, label: "N")]
        default: return []
        }
    }

    /// ACPR's channels on the plot: the main one ("CH") and each neighbour ("−1", "+1", "−2", "+2").
    public var channels: [(band: FrequencyRange, label: String)] {
        guard case .acpr(let result)? = reading else { return [] }
        var bands = [(result.main, "CH")]
        for (index, channel) in result.adjacent.enumerated() {
            bands.append((channel.band, (channel.offsetHz < 0 ? "−" : "+") + "\(index / 2 + 1)"))
        }
        return bands
    }

    /// The table's title: "harmonics", "TOI", …
    public var title: String { kind?.title ?? "" }

    /// The reading as table lines (≤ 32 characters each), the levels in `unit`.
    public func tableLines(unit: PowerUnit) -> [String] {
        guard let reading else { return ["measuring…"] }
        let frequency = { (hz: Double) -> String in Self.padded(FrequencyFormat.label(hz, maxFractionDigits: 4), 13) }
        let unitName = unit.rawValue
        switch reading {
        case .missing(let why):
            return Self.wrapped(why, width: 32)
        case .harmonics(let result):
            let fundamental = result.tones[0].tone.decibels
            var lines = ["n   frequency       level    dBc"]
            for item in result.tones {
                let n = Self.padded(item.n == 1 ? "F" : "H\(item.n)", 4)
                if item.belowNoise {
                    // the bound only: the noise's strongest bin where the harmonic was looked for
                    // under the level and dBc headings: "noise" and the bound, as the text report's "below noise (< X dBc)"
                    lines.append(n + frequency(item.tone.expectedHz) + Self.padded("noise", 7, left: true)
                        + Self.padded("<" + Self.signed(item.tone.decibels - fundamental), 8, left: true))
                } else {
                    lines.append(n + frequency(item.tone.hz) + Self.number(item.tone.decibels, 8)
                        + Self.number(item.tone.decibels - fundamental, 7))
                }
            }
            if let thd = result.thdDB, let percent = result.thdPercent {
                lines.append("THD " + Self.signed(thd) + " dB (" + String(format: "%.3g", percent) + " %)")
            }
            lines.append("levels \(unitName), dBc vs F")
            return lines
        case .toi(let result):
            return [
                "    frequency       level    dBc",
                "F1  " + frequency(result.lower.hz) + Self.number(result.lower.decibels, 8),
                "F2  " + frequency(result.upper.hz) + Self.number(result.upper.decibels, 8),
                "IM3 " + frequency(result.lowerProduct.hz) + Self.number(result.lowerProduct.decibels, 8)
                    + Self.number(result.lowerDBc, 7),
                "IM3 " + frequency(result.upperProduct.hz) + Self.number(result.upperProduct.decibels, 8)
                    + Self.number(result.upperDBc, 7),
                "IM3 " + Self.signed(result.worstDBc) + " dBc",
                "OIP3 " + Self.signed(result.outputInterceptDB) + " " + (unit.isAbsolute ? unitName : "dB (relative)"),
            ]
        case .acpr(let result):
            var lines = ["CH " + FrequencyFormat.label(result.main.centerHz, maxFractionDigits: 4) + " · "
                            + FrequencyFormat.label(result.main.spanHz, maxFractionDigits: 3),
                         "    power " + Self.signed(result.mainDecibels) + " " + unitName,
                         "    offset         power    dBc"]
            for channel in result.adjacent {
                let offset = (channel.offsetHz < 0 ? "−" : "+") + FrequencyFormat.label(abs(channel.offsetHz), maxFractionDigits: 3)
                lines.append(Self.padded(offset, 13, left: true) + "  " + Self.number(channel.decibels, 8)
                    + Self.padded(Self.dBc(channel.dBc), 7, left: true))
            }
            return lines
        case .noise(let result):
            return [FrequencyFormat.label(result.hz, maxFractionDigits: 6),
                    Self.signed(result.decibelsPerHz) + " \(unitName)/Hz",
                    "\(result.bins) bins, NBW " + FrequencyFormat.label(result.noiseBandwidthHz, maxFractionDigits: 1)]
        }
    }

    /// The reading in a few short items for a strip under a narrow plot: "H2 −15.00 dBc", "THD −12.67 dB".
    public func summaryItems(unit: PowerUnit) -> [String] {
        guard let reading else { return ["measuring…"] }
        switch reading {
        case .missing(let why): return [why]
        case .harmonics(let result):
            let fundamental = result.tones[0].tone.decibels
            var items = ["F " + FrequencyFormat.label(result.tones[0].tone.hz, maxFractionDigits: 4) + " "
                            + Self.signed(fundamental) + " " + unit.rawValue]
            items += result.tones.dropFirst().map {
                "H\($0.n) " + ($0.belowNoise ? "< " : "") + Self.dBc($0.tone.decibels - fundamental) + " dBc"
            }
            if let thd = result.thdDB { items.append("THD " + Self.signed(thd) + " dB") }
            return items
        case .toi(let result):
            return ["F1 " + FrequencyFormat.label(result.lower.hz, maxFractionDigits: 4),
                    "F2 " + FrequencyFormat.label(result.upper.hz, maxFractionDigits: 4),
                    "IM3 " + Self.dBc(result.lowerDBc) + " / " + Self.dBc(result.upperDBc) + " dBc",
                    "OIP3 " + Self.signed(result.outputInterceptDB) + " " + (unit.isAbsolute ? unit.rawValue : "dB rel")]
        case .acpr(let result):
            return ["CH " + Self.signed(result.mainDecibels) + " " + unit.rawValue]
                + result.adjacent.enumerated().map { index, channel in
                    (channel.offsetHz < 0 ? "−" : "+") + "\(index / 2 + 1) " + Self.dBc(channel.dBc) + " dBc"
                }
        case .noise(let result):
            return ["N " + FrequencyFormat.label(result.hz, maxFractionDigits: 6) + " " + Self.signed(result.decibelsPerHz)
                        + " \(unit.rawValue)/Hz"]
        }
    }

    static func signed(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        return String(format: "%.2f", value).replacingOccurrences(of: "-", with: "−")
    }

    /// A dBc value with its sign always shown ("+25.67", "−15.00"): a product above its reference stands out.
    static func dBc(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        return String(format: "%+.2f", value).replacingOccurrences(of: "-", with: "−")
    }

    static func number(_ value: Double, _ width: Int) -> String { padded(signed(value), width, left: true) }

    static func padded(_ text: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.unicodeScalars.count))
        return left ? fill + text : text + fill
    }

    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.unicodeScalars.count + 1 + word.unicodeScalars.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
