import Signals
import Testing
@testable import ViewModels

@Suite struct AnalyzerModelTests {
    func band(_ lowMHz: Double, _ highMHz: Double) -> FrequencyRange {
        FrequencyRange(lowerHz: lowMHz * 1e6, upperHz: highMHz * 1e6)!
    }

    func model() -> AnalyzerModel {
        AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: band(0, 6000), visibleBand: band(88, 108),
                                              pixelColumns: 200, pixelRows: 80))
    }

    @Test func modesSwitchByNumberAndTab() {
        let analyzer = model()
        analyzer.apply(.show(.meter), now: 0)
        #expect(analyzer.mode == .meter)
        analyzer.apply(.nextMode, now: 0)
        #expect(analyzer.mode == .persistence)
        analyzer.apply(.nextMode, now: 0)
        #expect(analyzer.mode == .occupancy)
        analyzer.apply(.nextMode, now: 0)
        #expect(analyzer.mode == .zerospan)
        analyzer.apply(.nextMode, now: 0)
        #expect(analyzer.mode == .plot)
        analyzer.apply(.nextMode, now: 0)
        #expect(analyzer.mode == .waterfall)
    }

    @Test func tabVisitsEveryViewOnceAndShiftTabGoesBack() {
        var seen: [AnalyzerMode] = []
        var mode = AnalyzerMode.plot
        for _ in AnalyzerMode.allCases {
            seen.append(mode)
            #expect(mode.next.previous == mode, "\(mode)")
            mode = mode.next
        }
        #expect(mode == .plot)
        #expect(seen == AnalyzerMode.allCases)
        #expect(AnalyzerMode.plot.previous == .zerospan)
        #expect(AnalyzerMode(title: "persistence") == .persistence)
        #expect(AnalyzerMode(title: "dpx") == nil)
    }

    @Test func persistenceTimeStepsByKeyAndDrawerAndTypedValue() {
        let analyzer = model()
        analyzer.apply(.show(.persistence), now: 0)
        #expect(analyzer.drawerFields.contains(.persistence))
        #expect(analyzer.value(of: .persistence) == 5)
        analyzer.apply(.stepPersistence(1), now: 0)
        #expect(analyzer.value(of: .persistence) == 10)
        analyzer.apply(.stepPersistence(-2), now: 0)
        #expect(analyzer.value(of: .persistence) == 2)
        analyzer.apply(.toggleDrawer, now: 0)
        analyzer.apply(.drawer(.select(.persistence)), now: 0)
        analyzer.apply(.drawer(.adjust(steps: 1, large: true)), now: 0)
        #expect(analyzer.value(of: .persistence) == .infinity)
        analyzer.apply(.drawer(.edit), now: 0)
        for c in "28" { analyzer.apply(.drawer(.type(c)), now: 0) }
        analyzer.apply(.drawer(.commit), now: 0)
        #expect(analyzer.value(of: .persistence) == 30)   // the nearest listed time
    }

    @Test func resumeJumpsTheWaterfallToNow() {
        let analyzer = model()
        analyzer.apply(.show(.waterfall), now: 0)
        for t in stride(from: 0.0, to: 60, by: 0.5) {
            analyzer.waterfall.add(SpectrumFrame(startHz: 88e6, binWidthHz: 1e6, timestamp: t,
                                                 powerDB: [Float](repeating: -50, count: 20)))
        }
        analyzer.apply(.scrollTime(seconds: 10), now: 60)
        #expect(analyzer.waterfall.offsetSeconds == 10)
        #expect(analyzer.apply(.plot(.togglePause), now: 60) == .paused)
        #expect(analyzer.waterfall.offsetSeconds == 10)
        #expect(analyzer.apply(.plot(.togglePause), now: 60) == .resumed)
        #expect(analyzer.waterfall.offsetSeconds == 0)
    }

    @Test func pauseAndResumeReportTheirEffect() {
        let analyzer = model()
        #expect(analyzer.apply(.plot(.togglePause), now: 0) == .paused)
        #expect(analyzer.isPaused)
        #expect(analyzer.apply(.plot(.togglePause), now: 0) == .resumed)
        #expect(analyzer.apply(.plot(.quit), now: 0) == .quit)
    }

    @Test func drawerTypesStartAndStopInTenKilohertzSteps() {
        let analyzer = model()
        analyzer.apply(.toggleDrawer, now: 0)
        #expect(analyzer.drawer.isOpen)
        for c in "90.123" { analyzer.apply(.drawer(.type(c)), now: 0) }
        #expect(analyzer.drawer.editText == "90.123")
        analyzer.apply(.drawer(.commit), now: 0)
        #expect(analyzer.plot.visibleBand == band(90.12, 108))
        analyzer.apply(.drawer(.focus(1)), now: 0)
        #expect(analyzer.drawer.focus == .rangeStop)
        analyzer.apply(.drawer(.adjust(steps: 1, large: false)), now: 0)
        // 1 % of 17.88 MHz is 178.8 kHz → 18 steps of 10 kHz
        #expect(analyzer.plot.visibleBand.upperHz == 108.18e6)
        // stop below start is refused with a notice
        for c in "50" { analyzer.apply(.drawer(.type(c)), now: 0) }
        analyzer.apply(.drawer(.commit), now: 0)
        #expect(analyzer.notice != nil)
        #expect(analyzer.plot.visibleBand.upperHz == 108.18e6)
        analyzer.apply(.drawer(.cancel), now: 0)
        #expect(!analyzer.drawer.isOpen)
    }

    @Test func autoLevelsAndDetectorAreDrawerChoices() {
        let analyzer = model()
        analyzer.apply(.show(.waterfall), now: 0)
        analyzer.apply(.toggleDrawer, now: 0)
        analyzer.apply(.drawer(.select(.autoLevels)), now: 0)
        // Enter on a choice switches it; switching auto on asks for an autoscale
        #expect(analyzer.apply(.drawer(.edit), now: 0) == .autoscale)
        #expect(analyzer.autoLevels)
        #expect(analyzer.drawer.editText == nil)
        // a level set by hand ends auto mode
        analyzer.apply(.plot(.increaseDisplayGain), now: 0)
        #expect(!analyzer.autoLevels)
        analyzer.apply(.drawer(.adjust(steps: 1, large: false)), now: 0)
        #expect(analyzer.autoLevels)
        analyzer.apply(.shiftLevels(decibels: 5), now: 0)
        #expect(!analyzer.autoLevels)
        analyzer.apply(.drawer(.select(.detector)), now: 0)
        #expect(analyzer.waterfallDetector == .peak)
        analyzer.apply(.drawer(.adjust(steps: -1, large: false)), now: 0)
        #expect(analyzer.waterfallDetector == .mean)
        #expect(analyzer.waterfall.history.combineByMean)
        analyzer.apply(.drawer(.edit), now: 0)
        #expect(analyzer.waterfallDetector == .peak)
        #expect(!analyzer.waterfall.history.combineByMean)
    }

    @Test func drawerHoldsOnlyTheModesSettings() {
        #expect(DrawerField.fields(for: .plot) == [.rangeStart, .rangeStop, .displaySpan, .autoLevels, .trace])
        #expect(DrawerField.fields(for: .waterfall) == [.rangeStart, .rangeStop, .period, .autoLevels, .detector])
        #expect(DrawerField.fields(for: .meter) == [.rangeStart, .rangeStop, .bandStart, .bandStop, .trace])
        let analyzer = model()
        analyzer.apply(.show(.waterfall), now: 0)
        analyzer.apply(.toggleDrawer, now: 0)
        analyzer.apply(.drawer(.select(.period)), now: 0)
        for c in "100" { analyzer.apply(.drawer(.type(c)), now: 0) }
        analyzer.apply(.drawer(.commit), now: 0)
        #expect(analyzer.waterfall.periodSeconds == 120)  // nearest listed period
        analyzer.apply(.show(.plot), now: 0)
        #expect(analyzer.drawer.focus == .rangeStart)      // period is not a plot field
        analyzer.apply(.drawer(.select(.displaySpan)), now: 0)
        for c in "35" { analyzer.apply(.drawer(.type(c)), now: 0) }
        analyzer.apply(.drawer(.commit), now: 0)
        #expect(analyzer.plot.displaySpanDB == 35)
    }

    @Test func meterBandRetunesTheDeviceInTheMeterOnly() {
        let analyzer = model()
        analyzer.apply(.show(.meter), now: 0)
        analyzer.apply(.toggleDrawer, now: 0)
        analyzer.apply(.drawer(.select(.bandStart)), now: 0)
        for c in "100" { analyzer.apply(.drawer(.type(c)), now: 0) }
        analyzer.apply(.drawer(.commit), now: 0)
        #expect(analyzer.meterBand == band(100, 108))
        #expect(analyzer.tuning.band == band(100, 108))
        analyzer.apply(.show(.plot), now: 0)
        #expect(analyzer.tuning.band == band(88, 108))
        analyzer.apply(.setThumb(.rangeStop, hz: 150.004e6), now: 0)
        #expect(analyzer.plot.visibleBand == band(88, 150))
    }
}
