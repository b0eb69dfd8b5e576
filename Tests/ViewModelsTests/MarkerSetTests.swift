import DSP
import Foundation
import Signals
import Testing
@testable import ViewModels

@Suite struct MarkerSetTests {
    /// bins of 1 kHz from 0: peaks at 2 (−10), 5 (−30), 8 (−20)
    static let frame = SpectrumFrame(startHz: 0, binWidthHz: 1000, timestamp: 0,
                                     powerDB: [-90, -80, -10, -80, -90, -30, -90, -80, -20, -90])
    static var peaks: [SpectrumMeasurements.Peak] {
        SpectrumMeasurements.peaks(frame.powerDB, excursionDB: 6, count: 10)
    }

    @Test func mPlacesMarkerOneOnTheHighestPeakAndNMovesItPeakByPeak() {
        var markers = MarkerSet()
        markers.placeOnHighestPeak(Self.peaks, frame: Self.frame)
        #expect(markers.markers.map(\.hz) == [2500])
        markers.moveToNextPeak(right: true, Self.peaks, frame: Self.frame)
        #expect(markers.markers[0].hz == 5500)
        markers.moveToNextPeak(right: true, Self.peaks, frame: Self.frame)
        markers.moveToNextPeak(right: true, Self.peaks, frame: Self.frame)  // none further right: stays
        #expect(markers.markers[0].hz == 8500)
        markers.moveToNextPeak(right: false, Self.peaks, frame: Self.frame)
        #expect(markers.markers[0].hz == 5500)
    }

    @Test func capitalMAddsMarkersOnTheNextHighestPeaksAndXMakesADelta() {
        var markers = MarkerSet()
        markers.placeOnHighestPeak(Self.peaks, frame: Self.frame)
        markers.cycle(Self.peaks, frame: Self.frame)
        #expect(markers.markers.map(\.hz) == [2500, 8500] && markers.selected == 1)
        markers.cycleKind()
        let table = markers.table(frame: Self.frame, unit: .dB)
        #expect(table == [" 1  2.5 kHz  −10.00 dB", "▸Δ2 +6 kHz  −10.00 dB"], "\(table)")
        // x again: a noise marker, −20 dB in a 1 kHz bin (no window given: the bin width) = −50 dB/Hz
        markers.cycleKind()
        #expect(markers.table(frame: Self.frame, unit: .dBm)[1] == "▸N2 8.5 kHz  −50.00 dBm/Hz")
        var windowed = Self.frame
        windowed.noiseBandwidthHz = 1500  // a Hann window: 1.5 bins
        let perHz = -20 - 10 * log10(1500.0)
        #expect(markers.table(frame: windowed, unit: .dB)[1] == "▸N2 8.5 kHz  " + String(format: "%.2f", perHz).replacingOccurrences(of: "-", with: "−") + " dB/Hz")
        markers.cycleKind()
        #expect(markers.markers[1].kind == .normal)
        markers.cycle(Self.peaks, frame: Self.frame)
        markers.cycle(Self.peaks, frame: Self.frame)
        // three peaks, all marked: M now only cycles the selection
        #expect(markers.markers.count == 3 && markers.selected == 0)
        markers.cycleKind()  // marker 1 is the reference, never a delta: normal → noise
        #expect(markers.markers[0].kind == .noise)
    }
}

/// The plot drawer's trace field cycles the trace mode as `t` does.
@Suite struct TraceDrawerFieldTests {
    @Test func theDrawersTraceFieldCyclesTheMode() {
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 0, upperHz: 6e9)!,
                                                          visibleBand: FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!))
        _ = model.apply(.toggleDrawer, now: 0)
        #expect(model.drawerFields.last == .trace)
        for _ in 0..<(model.drawerFields.count - 1) { _ = model.apply(.drawer(.focus(1)), now: 0) }
        #expect(model.apply(.drawer(.adjust(steps: 1, large: false)), now: 0) == .traceChanged(.max))
        #expect(model.apply(.drawer(.edit), now: 0) == .traceChanged(.min))
        #expect(model.apply(.drawer(.adjust(steps: -1, large: false)), now: 0) == .traceChanged(.max))
        #expect(model.traceMode == .max && model.value(of: .trace) == 1)
    }
}

/// Markers on an FFT-made frame read a tone's level: a Hann-windowed tone of
/// −20 dB half a bin off a bin centre reads about −27.4 dB in its bin, and the
/// marker −20.00 dB at the tone's frequency (bins from a direct DFT here).
@Suite struct MarkerToneReadingTests {
    @Test func aMarkerOnAToneBetweenBinsReadsTheTone() {
        let n = 128, toneBin = 30.5
        let windowing = FFTWindowing(.hann, length: n)
        let bins: [Float] = (0..<n).map { k in
            var re = 0.0, im = 0.0
            for t in 0..<n {
                let phase = 2 * Double.pi * (toneBin - Double(k)) * Double(t) / Double(n)
                re += 0.1 * windowing.weight(t) * cos(phase)
                im += 0.1 * windowing.weight(t) * sin(phase)
            }
            return Float(10 * log10((re * re + im * im) / Double(n * n)))
        }
        // bin k centred on k kHz
        let frame = SpectrumFrame(startHz: -500, binWidthHz: 1000, timestamp: 0, powerDB: bins, windowing: windowing)
        var markers = MarkerSet()
        markers.placeOnHighestPeak(SpectrumMeasurements.peaks(bins, excursionDB: 6, count: 5), frame: frame)
        let traceLevel = markers.level(at: markers.markers[0].hz, frame)
        #expect(abs(traceLevel + 27.44) < 0.1, "the trace keeps the bin's level: \(traceLevel)")
        #expect(markers.table(frame: frame, unit: .dB) == ["▸1  30.5 kHz  −20.00 dB"], "\(markers.table(frame: frame, unit: .dB))")
        var device = frame
        device.windowing = nil
        let asItIs = MarkerSet.decibels(traceLevel, unit: "dB", signed: false)
        #expect(markers.table(frame: device, unit: .dB)[0].hasSuffix(asItIs), "a device's RBW frame reads as it is")
    }
}
