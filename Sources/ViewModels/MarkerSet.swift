import DSP
import Foundation
import Signals

/// A bench analyzer's markers on the plot: up to four, each at a frequency,
/// reading the shown trace's level there; one selected (the keys move it);
/// any but the first may be a delta marker, read against marker 1; any may be
/// a noise marker, reading level per Hz (the bin's power over its noise
/// bandwidth: dB/Hz, dBm/Hz on a calibrated analyzer).
public struct MarkerSet: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case normal
        /// reads Δf and ΔdB against marker 1
        case delta
        /// reads the level per Hz
        case noise
    }

    public struct Marker: Sendable, Equatable {
        /// where it sits [Hz] (a bin centre)
        public var hz: Double
        public var kind: Kind
        public var isDelta: Bool { kind == .delta }
    }

    public static let maximumCount = 4

    public private(set) var markers: [Marker] = []
    /// index of the marker the keys move
    public private(set) var selected = 0

    public init() {}

    public var isEmpty: Bool { markers.isEmpty }

    /// the selected marker's frequency [Hz]; nil without markers
    public var selectedHz: Double? { markers.indices.contains(selected) ? markers[selected].hz : nil }

    /// m: the selected marker (marker 1 if there is none) onto the highest peak.
    public mutating func placeOnHighestPeak(_ peaks: [SpectrumMeasurements.Peak], frame: SpectrumFrame) {
        guard let highest = peaks.first else { return }
        place(at: frame.binCenterHz(highest.bin))
    }

    /// n / N: the selected marker onto the nearest peak to its right (or left).
    public mutating func moveToNextPeak(right: Bool, _ peaks: [SpectrumMeasurements.Peak], frame: SpectrumFrame) {
        guard !markers.isEmpty else { return placeOnHighestPeak(peaks, frame: frame) }
        let here = markers[selected].hz
        let candidates = peaks.map { frame.binCenterHz($0.bin) }.filter { right ? $0 > here : $0 < here }
        guard let next = right ? candidates.min() : candidates.max() else { return }
        markers[selected].hz = next
    }

    /// M: selects the next marker, adding one (at the highest peak not yet
    /// marked) until there are four.
    public mutating func cycle(_ peaks: [SpectrumMeasurements.Peak], frame: SpectrumFrame) {
        if markers.count < Self.maximumCount, selected == markers.count - 1 || markers.isEmpty {
            let marked = Set(markers.map(\.hz))
            if let free = peaks.map({ frame.binCenterHz($0.bin) }).first(where: { !marked.contains($0) }) {
                markers.append(Marker(hz: free, kind: .normal))
                selected = markers.count - 1
                return
            }
        }
        if !markers.isEmpty { selected = (selected + 1) % markers.count }
    }

    /// x: the selected marker's kind cycles normal → delta → noise → normal;
    /// marker 1 is the delta reference, so it goes normal → noise → normal.
    public mutating func cycleKind() {
        guard selected < markers.count else { return }
        switch markers[selected].kind {
        case .normal: markers[selected].kind = selected == 0 ? .noise : .delta
        case .delta: markers[selected].kind = .noise
        case .noise: markers[selected].kind = .normal
        }
    }

    /// Forgets every marker.
    public mutating func clear() {
        markers.removeAll()
        selected = 0
    }

    private mutating func place(at hz: Double) {
        if markers.isEmpty {
            markers.append(Marker(hz: hz, kind: .normal))
            selected = 0
        } else {
            markers[selected].hz = hz
        }
    }

    /// One line of the marker table: "1  98.390625 MHz  -8.08 dB" or
    /// "Δ2 +1.25 MHz  -3.40 dB". A normal or delta marker reads a tone's
    /// level and frequency at its bin (`reading`); a noise marker reads the
    /// bin's power per Hz.
    public func table(frame: SpectrumFrame, unit: PowerUnit) -> [String] {
        let reference = markers.first.map { reading(at: $0.hz, frame) }
        return markers.enumerated().map { index, marker in
            let pointer = index == selected ? "▸" : " "
            if marker.kind == .noise {
                // power per Hz: the bin's power over its noise bandwidth (the window's, else the bin width)
                let bandwidth = frame.noiseBandwidthHz ?? frame.binWidthHz
                let perHz = level(at: marker.hz, frame) - Float(10 * log10(max(bandwidth, 1e-9)))
                return "\(pointer)N\(index + 1) \(FrequencyFormat.label(marker.hz, maxFractionDigits: 6))  "
                    + Self.decibels(perHz, unit: "\(unit)/Hz", signed: false)
            }
            let tone = reading(at: marker.hz, frame)
            if marker.isDelta, let reference {
                let df = tone.hz - reference.hz
                let sign = df >= 0 ? "+" : "−"
                return "\(pointer)Δ\(index + 1) \(sign)\(FrequencyFormat.label(abs(df), maxFractionDigits: 6))  "
                    + Self.decibels(tone.decibels - reference.decibels, unit: "dB", signed: true)
            }
            return "\(pointer)\(index + 1)  \(FrequencyFormat.label(tone.hz, maxFractionDigits: 6))  "
                + Self.decibels(tone.decibels, unit: unit.rawValue, signed: false)
        }
    }

    /// the frame's level in the bin holding `hz`, as the trace draws it (NaN outside it)
    public func level(at hz: Double, _ frame: SpectrumFrame) -> Float {
        let index = Self.bin(holding: hz, frame)
        return frame.powerDB.indices.contains(index) ? frame.powerDB[index] : .nan
    }

    /// What a marker at `hz` reads: on a peak of an FFT-made frame the tone's
    /// own level and frequency (`ToneLevel`: the window's coherent gain and
    /// scalloping taken out); elsewhere the bin's level, less the coherent
    /// gain where the frame was windowed; on a device-filtered frame the bin
    /// as it is.
    public func reading(at hz: Double, _ frame: SpectrumFrame) -> ToneLevel.Reading {
        let index = Self.bin(holding: hz, frame)
        guard frame.powerDB.indices.contains(index) else { return ToneLevel.Reading(hz: hz, decibels: .nan) }
        return ToneLevel.read(bin: index, of: frame)
    }

    private static func bin(holding hz: Double, _ frame: SpectrumFrame) -> Int {
        guard frame.binWidthHz > 0, hz.isFinite else { return -1 }
        let index = ((hz - frame.startHz) / frame.binWidthHz).rounded(.down)
        return index.magnitude < Double(Int.max / 2) ? Int(index) : -1
    }

    static func decibels(_ value: Float, unit: String, signed: Bool) -> String {
        guard value.isFinite else { return "— \(unit)" }
        let text = String(format: signed ? "%+.2f" : "%.2f", value).replacingOccurrences(of: "-", with: "−")
        return "\(text) \(unit)"
    }
}
