import Testing
import Signals
@testable import ViewModels

@Suite struct SpectrumPlotModelTests {
    private func band(_ lowMHz: Double, _ highMHz: Double) -> FrequencyRange {
        FrequencyRange(lowerHz: lowMHz * 1e6, upperHz: highMHz * 1e6)!
    }

    private func model(_ lowMHz: Double, _ highMHz: Double) -> SpectrumPlotModel {
        SpectrumPlotModel(deviceLimits: band(1, 6000), visibleBand: band(lowMHz, highMHz),
                          pixelColumns: 200, pixelRows: 80)
    }

    @Test func tuningAsksForOneBinPerPixelColumn() {
        let plot = model(88, 108)
        #expect(plot.tuning.band == band(88, 108))
        #expect(plot.tuning.binWidthHz == 20e6 / 200)
    }

    @Test func panMovesByAFractionAndStopsAtTheDeviceEdge() {
        var plot = model(88, 108)
        plot.pan(byFractionOfSpan: 0.1)
        #expect(plot.visibleBand == band(90, 110))
        var low = model(5, 25)
        low.pan(byFractionOfSpan: -1)
        #expect(low.visibleBand == band(1, 21))
        var high = model(5970, 5990)
        high.pan(byFractionOfSpan: 1)
        #expect(high.visibleBand == band(5980, 6000))
    }

    @Test func zoomKeepsTheAnchorInPlace() {
        var plot = model(100, 200)
        plot.zoom(by: 0.5)
        #expect(plot.visibleBand == band(125, 175))
        plot.zoom(by: 0.5, around: 125e6)
        #expect(plot.visibleBand == band(125, 150))
        plot.zoom(by: 4)
        #expect(plot.visibleBand == band(87.5, 187.5))
    }

    @Test func zoomStopsAtMinimumSpanAndDeviceSpan() {
        var plot = model(100, 101)
        for _ in 0..<20 { plot.zoom(by: 0.5) }
        #expect(abs(plot.visibleBand.spanHz - plot.minimumSpanHz) < 1e-6)
        for _ in 0..<40 { plot.zoom(by: 2) }
        #expect(plot.visibleBand == band(1, 6000))
    }

    @Test func displayGainStepsKeepTheCentreLevel() {
        var plot = SpectrumPlotModel(deviceLimits: band(1, 6000), visibleBand: band(88, 108),
                                     referenceLevelDB: 0, displaySpanDB: 100)
        plot.increaseDisplayGain()
        #expect(plot.displaySpanDB == 80)
        #expect(plot.referenceLevelDB == -10)
        #expect(plot.bottomLevelDB == -90)
        for _ in 0..<20 { plot.increaseDisplayGain() }
        #expect(plot.displaySpanDB == 10)
        for _ in 0..<20 { plot.decreaseDisplayGain() }
        #expect(plot.displaySpanDB == 160)
    }

    @Test func autoscalePutsFloorNearTheBottomAndPeakNearTheTop() {
        var plot = model(88, 108)
        plot.autoscale(floorDB: -95, peakDB: -30)
        // 65 dB of signal over the floor: the floor a tenth up, the peak a tenth down, whole dB
        #expect(plot.bottomLevelDB == -104)
        #expect(plot.referenceLevelDB == -21)
        let span = plot.displaySpanDB
        #expect((-95 - plot.bottomLevelDB) / span > 0.09 && (-95 - plot.bottomLevelDB) / span < 0.12)
        #expect((plot.referenceLevelDB - -30) / span > 0.09 && (plot.referenceLevelDB - -30) / span < 0.12)
        // only noise: not stretched over the plot, the minimum span
        plot.autoscale(floorDB: -60, peakDB: -55)
        #expect(plot.displaySpanDB == SpectrumPlotModel.autoMinimumSpanDB)
        #expect(plot.bottomLevelDB == -62)
        // the same levels give the same window whatever the plot's size
        var small = model(88, 108)
        small.resize(pixelColumns: 40, pixelRows: 20)
        var large = model(88, 108)
        large.resize(pixelColumns: 900, pixelRows: 260)
        small.autoscale(floorDB: -40, peakDB: -2)
        large.autoscale(floorDB: -40, peakDB: -2)
        #expect(small.referenceLevelDB == large.referenceLevelDB && small.displaySpanDB == large.displaySpanDB)
    }

    @Test func autoModeMovesTheWindowOnlyBeyondItsTolerance() {
        var plot = model(88, 108)
        plot.autoscale(floorDB: -95, peakDB: -30)
        let quiet = plot.followLevels(floorDB: -94, peakDB: -31)
        #expect(!quiet)
        #expect(plot.referenceLevelDB == -21)
        let moved = plot.followLevels(floorDB: -95, peakDB: -10)
        #expect(moved)
        #expect(plot.referenceLevelDB > -10)
        #expect(plot.bottomLevelDB < -95)
    }

    @Test func pauseToggles() {
        var plot = model(88, 108)
        plot.togglePause()
        #expect(plot.isPaused)
        plot.togglePause()
        #expect(!plot.isPaused)
    }
}

@Suite struct AxisTicksTests {
    @Test func stepsAreOneTwoOrFiveTimesAPowerOfTen() {
        #expect(AxisTicks.niceStep(span: 20e6, targetCount: 5) == 5e6)
        #expect(AxisTicks.niceStep(span: 100, targetCount: 10) == 10)
        #expect(AxisTicks.niceStep(span: 7, targetCount: 4) == 2)
        #expect(AxisTicks.ticks(lower: 88e6, upper: 108e6, targetCount: 4) == [90e6, 95e6, 100e6, 105e6])
        #expect(AxisTicks.ticks(lower: -95, upper: 5, targetCount: 5) == [-80, -60, -40, -20, 0])
    }
}
