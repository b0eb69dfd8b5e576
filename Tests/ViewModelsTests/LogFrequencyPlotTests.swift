import Foundation
import Signals
import Testing
@testable import ViewModels

/// The plot model on a logarithmic frequency axis: what it asks the device
/// for, and that pan and zoom keep the picture where the user put it.
@Suite struct LogFrequencyPlotTests {
    func model(_ lower: Double, _ upper: Double) -> SpectrumPlotModel {
        var plot = SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 1e6, upperHz: 6e9)!,
                                     visibleBand: FrequencyRange(lowerHz: lower, upperHz: upper)!, pixelColumns: 160)
        plot.apply(.toggleLogFrequency)
        return plot
    }

    @Test func theNarrowestColumnSetsTheBinWidth() {
        let plot = model(30e6, 1e9)
        #expect(plot.frequencyScale.isLogarithmic)
        // the lowest column: 30 MHz × ((1 GHz / 30 MHz)^(1/160) − 1)
        let lowest = 30e6 * (pow(1e9 / 30e6, 1.0 / 160) - 1)
        #expect(abs(plot.tuning.binWidthHz - lowest) < 1)
        #expect(plot.tuning.binWidthHz < (1e9 - 30e6) / 160 / 5)
        var linear = plot
        linear.apply(.toggleLogFrequency)
        #expect(abs(linear.tuning.binWidthHz - (1e9 - 30e6) / 160) < 1e-6)
        // many decades: no more than 16 bins per column over the band
        let wide = model(1e6, 6e9)
        #expect(abs(wide.tuning.binWidthHz - (6e9 - 1e6) / 160 / 16) < 1)
    }

    @Test func panningSlidesByRatioAndZoomKeepsTheAnchor() {
        var plot = model(30e6, 1e9)
        plot.pan(byFractionOfSpan: 0.1)
        let ratio = pow(1e9 / 30e6, 0.1)
        #expect(abs(plot.visibleBand.lowerHz - 30e6 * ratio) < 1)
        #expect(abs(plot.visibleBand.upperHz / plot.visibleBand.lowerHz - 1e9 / 30e6) < 1e-9)
        var zoomed = model(30e6, 1e9)
        let anchor = 100e6
        let before = zoomed.frequencyScale.fraction(ofHz: anchor)
        zoomed.zoom(by: 0.5, around: anchor)
        #expect(abs(zoomed.visibleBand.spanHz - (1e9 - 30e6) / 2) < 1)
        #expect(abs(zoomed.frequencyScale.fraction(ofHz: anchor) - before) < 1e-6)
    }
}
