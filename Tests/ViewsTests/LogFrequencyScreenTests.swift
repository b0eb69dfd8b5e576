import DSP
import Foundation
import Signals
import Terminal
import Testing
@testable import ViewModels
@testable import Views

/// The analyzer screen on a logarithmic frequency axis (`--log-frequency`):
/// the trace's columns, the tick labels, a marker, a click and the band
/// plan's spans all agree on where a frequency is, and that place is the one
/// log f puts it at (worked out here from the definition, not from
/// FrequencyScale).
@Suite struct LogFrequencyScreenTests {
    static let band = FrequencyRange(lowerHz: 30e6, upperHz: 1e9)!

    /// 30 MHz–1 GHz in 100 kHz bins: a floor at −80, tones at 50 and 300 MHz
    static func frame() -> SpectrumFrame {
        var bins = [Float](repeating: -80, count: 9700)
        bins[Int((50e6 - 30e6) / 100e3)] = -30
        bins[Int((300e6 - 30e6) / 100e3)] = -20
        return SpectrumFrame(startHz: 30e6, binWidthHz: 100e3, timestamp: Scene.now, powerDB: bins)
    }

    static func model(width: Int, height: Int) -> AnalyzerModel {
        let (columns, rows) = SpectrumPlotView.plotPixels(width: width, height: height)
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 1e6, upperHz: 6e9)!,
                                                          visibleBand: band, referenceLevelDB: 0, displaySpanDB: 100,
                                                          pixelColumns: columns, pixelRows: rows))
        model.apply(.plot(.toggleLogFrequency), now: Scene.now)
        return model
    }

    /// The cell column of `hz` in `data`, from log f directly.
    static func column(_ hz: Double, in data: Rect) -> Int {
        data.x + Int((log(hz / 30e6) / log(1e9 / 30e6) * Double(data.width)).rounded(.down))
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func traceTicksMarkerAndClickAgree(width: Int, height: Int) throws {
        let model = Self.model(width: width, height: height)
        let frame = Self.frame()
        model.setBandPlan(BandPlan(name: "t", source: "test", allocations: [BandPlan.Allocation(startHz: 88e6, stopHz: 108e6, label: "FM")]))
        var buffer = Buffer(width: width, height: height)
        let screen = AnalyzerScreen()
        screen.render(model: model, frame: frame, status: fixedStatus, now: Scene.now, into: &buffer)
        var data = screen.geometry.data
        var lines = buffer.lines.map { Array($0.unicodeScalars) }
        func braille(_ c: Unicode.Scalar) -> Bool { c.value > 0x2800 && c.value <= 0x28FF }
        // the 300 MHz tone, the strongest: the topmost dots of the trace are in its column
        let tone = Self.column(frame.binCenterHz(Int((300e6 - 30e6) / 100e3)), in: data)
        let row = try #require((data.y..<data.maxY).first { y in (data.x..<data.maxX).contains { braille(lines[y][$0]) } })
        let lit = (data.x..<data.maxX).filter { braille(lines[row][$0]) }
        #expect(lit.contains(tone), "row \(row): \(lit) vs \(tone)")
        // the axis: "100M" centred on 100 MHz's column, ticked there, the edges labelled ("30M" … "1G")
        let labels = String(String.UnicodeScalarView(lines[data.maxY + 1]))
        let label = try #require(labels.range(of: "100M"), "\(labels)")
        let start = labels.unicodeScalars.distance(from: labels.unicodeScalars.startIndex, to: label.lowerBound)
        #expect(abs(start + 2 - Self.column(100e6, in: data)) <= 1, "\(labels)")
        #expect(labels.contains("30M") && labels.trimmingCharacters(in: .whitespaces).hasSuffix("1G"), "\(labels)")
        #expect(lines[data.maxY][Self.column(100e6, in: data)] == "┬")
        // the band plan's FM span starts at 88 MHz's column
        let (_, planRows) = AnalyzerScreen.bandPlanSplit(ScreenLayout(width: width, height: height, drawerOpen: false).main,
                                                         model: model)
        let planRow = lines[try #require(planRows).y]
        #expect(planRow[Self.column(88e6, in: data)] == "├", "\(String(String.UnicodeScalarView(planRow)))")

        // a marker on the tone: its diamond in the same column, and a click there reads a frequency
        // inside that column's log-spaced edges
        model.markers.placeOnHighestPeak([SpectrumMeasurements.Peak(bin: Int((300e6 - 30e6) / 100e3), decibels: -20)], frame: frame)
        screen.render(model: model, frame: frame, status: fixedStatus, now: Scene.now, into: &buffer)
        data = screen.geometry.data
        lines = buffer.lines.map { Array($0.unicodeScalars) }
        let marked = Self.column(frame.binCenterHz(Int((300e6 - 30e6) / 100e3)), in: data)
        #expect((data.y..<data.maxY).contains { lines[$0][marked] == "◆" }, "no marker at column \(marked)")
        let hz = screen.geometry.hz(atColumn: marked)
        let fraction = { (x: Int) in Double(x - data.x) / Double(data.width) }
        #expect(hz >= 30e6 * pow(1e9 / 30e6, fraction(marked)) && hz < 30e6 * pow(1e9 / 30e6, fraction(marked + 1)), "\(hz)")
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func goldenScreens(width: Int, height: Int) throws {
        for mode in [AnalyzerMode.plot, .waterfall] {
            let model = Self.model(width: width, height: height)
            model.apply(.show(mode), now: Scene.now)
            for step in 0..<20 {
                var frame = Self.frame()
                frame.timestamp = Scene.now - 10 + Double(step) / 2
                model.waterfall.add(frame)
            }
            var buffer = Buffer(width: width, height: height)
            AnalyzerScreen().render(model: model, frame: Self.frame(), status: fixedStatus, now: Scene.now, into: &buffer)
            try Golden.check(buffer, name: "logfrequency-\(mode.title)-\(width)x\(height)")
        }
    }
}

/// `l` in every view with a frequency axis: the axis goes logarithmic and back,
/// and the device is asked for the narrowest column's bins.
@Suite struct LogFrequencyKeyTests {
    @Test func lTogglesTheAxisAndRetunes() throws {
        let model = LogFrequencyScreenTests.model(width: 160, height: 48)
        model.apply(.plot(.toggleLogFrequency), now: Scene.now)  // back to linear
        let linear = model.tuning.binWidthHz
        let event = try #require(InputParser.parse(Array("l".utf8)).eventValue)
        let intent = try #require(AnalyzerKeyMap.intent(for: event, model: model))
        #expect(intent == .plot(.toggleLogFrequency))
        model.apply(intent, now: Scene.now)
        #expect(model.plot.frequencyScale.isLogarithmic)
        #expect(model.tuning.binWidthHz < linear / 5)
        model.apply(intent, now: Scene.now)
        #expect(!model.plot.frequencyScale.isLogarithmic && model.tuning.binWidthHz == linear)
    }
}

private extension ParseResult {
    var eventValue: InputEvent? {
        if case .event(let event, _) = self { return event }
        return nil
    }
}
