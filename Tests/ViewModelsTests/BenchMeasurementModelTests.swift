import DSP
import Foundation
import Signals
import Testing
@testable import ViewModels

/// `e` in the plot: the measurement it steps to and what it reads, on
/// frames of tones of known level over a flat floor. The frames are
/// device-filtered (no window: each tone's bin holds its level, as a
/// tinySA's trace does), so the truth is the levels written into them.
@Suite struct BenchMeasurementModelTests {
    static func band(_ lowMHz: Double, _ highMHz: Double) -> FrequencyRange {
        FrequencyRange(lowerHz: lowMHz * 1e6, upperHz: highMHz * 1e6)!
    }

    /// bins of `binHz` from `startMHz`, at `floor` dB, each tone (MHz, dB) in the bin holding it
    static func frame(startMHz: Double, stopMHz: Double, binHz: Double, floor: Float, tones: [(Double, Float)]) -> SpectrumFrame {
        let count = Int(((stopMHz - startMHz) * 1e6 / binHz).rounded())
        var power = [Float](repeating: floor, count: count)
        for (mhz, level) in tones { power[Int(((mhz - startMHz) * 1e6 / binHz).rounded(.down))] = level }
        return SpectrumFrame(startHz: startMHz * 1e6, binWidthHz: binHz, timestamp: 0, powerDB: power)
    }

    static func model(_ lowMHz: Double, _ highMHz: Double) -> AnalyzerModel {
        AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: band(0, 6000), visibleBand: band(lowMHz, highMHz),
                                              pixelColumns: 200, pixelRows: 80))
    }

    /// the row of the table starting with `label`, its numbers
    static func row(_ label: String, _ lines: [String]) -> [Double] {
        let line = lines.first { $0.hasPrefix(label + " ") } ?? ""
        return line.split(separator: " ").dropFirst().compactMap { Double($0.replacingOccurrences(of: "−", with: "-")) }
    }

    @Test func eStepsThroughTheMeasurementsAndOffFromAnyView() {
        let analyzer = Self.model(50, 450)
        analyzer.apply(.show(.waterfall), now: 0)
        var seen: [BenchMeasurementKind?] = []
        for _ in 0..<5 {
            #expect(analyzer.apply(.cycleMeasurement, now: 0) == .measurementChanged)
            seen.append(analyzer.measurement.kind)
        }
        #expect(seen == [.harmonics, .toi, .acpr, .noise, nil])
        // the measurements read the plot's trace: e from the waterfall showed the plot
        #expect(analyzer.mode == .plot)
    }

    @Test func harmonicsTakeTheHighestPeakOrTheSelectedMarkerAsTheFundamental() throws {
        // 100 MHz at −20 dB, harmonics at −35, −42, −38 dB (dBc −15, −22, −18) over a −90 dB floor
        let frame = Self.frame(startMHz: 0, stopMHz: 500, binHz: 100e3, floor: -90,
                               tones: [(100, -20), (200, -35), (300, -42), (400, -38)])
        let analyzer = Self.model(50, 450)
        analyzer.apply(.cycleMeasurement, now: 0)
        analyzer.measure(frame)
        let lines = analyzer.measurement.tableLines(unit: .dBm)
        // the span reaches 450 MHz: the fundamental and harmonics 2–4
        #expect(lines.filter { $0.hasPrefix("H") }.count == 3, "\(lines)")
        for (label, dBc) in [("H2", -15.0), ("H3", -22.0), ("H4", -18.0)] {
            let numbers = Self.row(label, lines)
            #expect(numbers.count == 3 && abs(numbers[2] - dBc) < 0.01, "\(label): \(lines)")
        }
        // THD from the truth: 10·log10 of the harmonics' power over the fundamental's
        let thd = 10 * log10([-15.0, -22, -18].map { pow(10, $0 / 10) }.reduce(0, +))
        let thdLine = try #require(lines.first { $0.hasPrefix("THD ") })
        #expect(thdLine.contains(String(format: "%.2f", thd).replacingOccurrences(of: "-", with: "−")), "\(thdLine)")
        #expect(analyzer.measurement.marks.map(\.label) == ["F", "H2", "H3", "H4"])

        // a marker on the 200 MHz tone makes it the fundamental: its H2 is the 400 MHz tone, −3 dBc
        let peaks = [SpectrumMeasurements.Peak(bin: 2000, decibels: -35)]
        analyzer.markers.placeOnHighestPeak(peaks, frame: frame)
        analyzer.measure(frame)
        let marked = analyzer.measurement.tableLines(unit: .dBm)
        #expect(abs((Self.row("H2", marked).last ?? 0) - -3) < 0.01 && Self.row("H3", marked).isEmpty, "\(marked)")
    }

    /// A harmonic that is not in the frame (flat floor at 400 MHz): "noise" under level and its bound
    /// under dBc in the drawer, "<" in the bar's summary, left out of THD.
    @Test func aHarmonicUnderTheFloorShowsItsBoundNotALevel() throws {
        let frame = Self.frame(startMHz: 0, stopMHz: 500, binHz: 100e3, floor: -90,
                               tones: [(100, -20), (200, -35), (300, -42)])
        let analyzer = Self.model(50, 450)
        analyzer.apply(.cycleMeasurement, now: 0)
        analyzer.measure(frame)
        let lines = analyzer.measurement.tableLines(unit: .dBm)
        let fourth = try #require(lines.first { $0.hasPrefix("H4 ") }, "\(lines)")
        #expect(fourth.hasSuffix("noise <−70.00"), "\(fourth)")
        #expect(fourth.count == lines.first { $0.hasPrefix("H3 ") }?.count, "the columns line up: \(lines)")
        #expect(analyzer.measurement.summaryItems(unit: .dBm).contains("H4 < −70.00 dBc"),
                "\(analyzer.measurement.summaryItems(unit: .dBm))")
        let thd = 10 * log10([-15.0, -22].map { pow(10, $0 / 10) }.reduce(0, +))
        let thdLine = try #require(lines.first { $0.hasPrefix("THD ") })
        #expect(thdLine.contains(String(format: "%.2f", thd).replacingOccurrences(of: "-", with: "−")), "\(thdLine)")
    }

    @Test func toiTakesTheTwoHighestPeaksAndReadsTheProductsAndIntercept() throws {
        // two −30 dB tones 1 MHz apart, products −62 and −65 dB: −32 and −35 dBc; OIP3 = −30 + 32/2 = −14
        let frame = Self.frame(startMHz: 97, stopMHz: 104, binHz: 10e3, floor: -100,
                               tones: [(100, -30), (101, -30), (99, -62), (102, -65)])
        let analyzer = Self.model(97, 104)
        analyzer.apply(.cycleMeasurement, now: 0)
        analyzer.apply(.cycleMeasurement, now: 0)
        analyzer.measure(frame)
        guard case .toi(let result)? = analyzer.measurement.reading else {
            Issue.record("no TOI reading: \(String(describing: analyzer.measurement.reading))")
            return
        }
        #expect(abs(result.lower.hz - 100.005e6) < 1 && abs(result.upper.hz - 101.005e6) < 1)
        #expect(abs(result.lowerDBc - -32) < 0.01 && abs(result.upperDBc - -35) < 0.01)
        let lines = analyzer.measurement.tableLines(unit: .dBm)
        #expect(lines.contains("OIP3 −14.00 dBm") && lines.contains("IM3 −32.00 dBc"), "\(lines)")
        #expect(analyzer.measurement.marks.map(\.label) == ["F1", "F2", "IM3", "IM3"])
        // uncalibrated: the intercept is relative
        #expect(analyzer.measurement.tableLines(unit: .dB).contains("OIP3 −14.00 dB (relative)"))
    }

    @Test func acprTakesTheSpansCentreAndTheDrawersChannel() throws {
        // 99–101 MHz: CW in the 100 MHz channel at −20 dB, at +400 kHz −40 dB, at −800 kHz −45 dB, floor −150 dB/bin
        let frame = Self.frame(startMHz: 98.5, stopMHz: 101.5, binHz: 1e3, floor: -150,
                               tones: [(100, -20), (100.4, -40), (99.2, -45)])
        let analyzer = Self.model(99, 101)
        for _ in 0..<3 { analyzer.apply(.cycleMeasurement, now: 0) }
        #expect(analyzer.measurement.kind == .acpr)
        #expect(analyzer.drawerFields.suffix(2) == [.channelWidth, .channelSpacing])
        // until set, the channel is a tenth of the span: 200 kHz
        #expect(analyzer.value(of: .channelWidth) == 200)
        // the drawer: spacing 400 kHz typed
        analyzer.apply(.toggleDrawer, now: 0)
        analyzer.apply(.drawer(.select(.channelSpacing)), now: 0)
        analyzer.apply(.drawer(.edit), now: 0)
        for character in "400" { analyzer.apply(.drawer(.type(character)), now: 0) }
        #expect(analyzer.apply(.drawer(.commit), now: 0) == .measurementChanged)
        analyzer.measure(frame)
        guard case .acpr(let result)? = analyzer.measurement.reading else {
            Issue.record("no ACPR reading: \(String(describing: analyzer.measurement.reading))")
            return
        }
        #expect(abs(result.mainDecibels - -20) < 0.01)
        #expect(result.adjacent.map(\.offsetHz) == [-400e3, 400e3, -800e3, 800e3])
        #expect(abs(result.adjacent[1].dBc - -20) < 0.01 && abs(result.adjacent[2].dBc - -25) < 0.01)
        // the empty channels: 200 bins of −150 dB, 23 dB over one bin, against −20
        #expect(abs(result.adjacent[0].dBc - (-150 + 10 * log10(200) + 20)) < 0.1)
        #expect(analyzer.measurement.channels.map(\.label) == ["CH", "−1", "+1", "−2", "+2"])
        // ← steps the width down the 1-2-5 series: 100 kHz
        analyzer.apply(.drawer(.select(.channelWidth)), now: 0)
        analyzer.apply(.drawer(.adjust(steps: -1, large: false)), now: 0)
        #expect(analyzer.value(of: .channelWidth) == 100)
        // a channel wider than the span is refused in the drawer
        analyzer.apply(.drawer(.edit), now: 0)
        for character in "5000" { analyzer.apply(.drawer(.type(character)), now: 0) }
        #expect(analyzer.apply(.drawer(.commit), now: 0) == .none && analyzer.notice != nil)
        // off: the channel fields leave the drawer
        analyzer.apply(.cycleMeasurement, now: 0)
        #expect(analyzer.drawerFields == AnalyzerMode.plot.drawerFields)
    }

    @Test func theNoiseMarkerReadsPowerPerHertzAtTheSpansCentre() {
        // −80 dB in each 10 kHz bin: −120 dB/Hz
        let frame = Self.frame(startMHz: 99, stopMHz: 101, binHz: 10e3, floor: -80, tones: [])
        let analyzer = Self.model(99, 101)
        for _ in 0..<4 { analyzer.apply(.cycleMeasurement, now: 0) }
        analyzer.measure(frame)
        guard case .noise(let result)? = analyzer.measurement.reading else {
            Issue.record("no noise reading")
            return
        }
        #expect(abs(result.decibelsPerHz - -120) < 0.01 && result.hz == 100e6)
        #expect(analyzer.measurement.tableLines(unit: .dBm)[1] == "−120.00 dBm/Hz")
    }

    @Test func whatCannotBeReadIsSaid() {
        // one tone at 300 MHz (its bin's centre 300.05 MHz), the span to 450 MHz: H2 at 600.1 MHz is beyond it
        let frame = Self.frame(startMHz: 0, stopMHz: 500, binHz: 100e3, floor: -90, tones: [(300, -20)])
        let analyzer = Self.model(250, 450)
        analyzer.apply(.cycleMeasurement, now: 0)
        analyzer.measure(frame)
        #expect(analyzer.measurement.reading == .missing("H2 at 600.1 MHz is beyond the span: widen it"))
        analyzer.apply(.cycleMeasurement, now: 0)
        analyzer.measure(frame)
        #expect(analyzer.measurement.reading == .missing("two tones needed: fewer than two peaks in the span"))
    }
}
