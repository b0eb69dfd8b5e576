import DSP
import Signals
import Terminal
import Testing
@testable import ViewModels
@testable import Views

/// A stored reference trace is drawn dimmed behind the live one, and the
/// status line says it is there (or subtracted).
@Suite struct ReferenceTraceTests {
    @Test func theReferenceIsDrawnDimmedWhereTheLiveTraceIsNot() {
        let model = AnalyzerModel(plot: fixedModel(width: 120, height: 30))
        model.setReference([LevelPoint(hz: 100e6, decibels: -40), LevelPoint(hz: 120e6, decibels: -40)])
        let reference = SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: 0,
                                      powerDB: [Float](repeating: -40, count: 2000))
        var buffer = Buffer(width: 120, height: 30)
        AnalyzerScreen().render(model: model, frame: fixedFrame(), reference: reference, status: fixedStatus, now: 0,
                                into: &buffer)
        var dimmed = 0, live = 0
        for y in 0..<30 {
            for x in 0..<120 {
                guard let cell = buffer.cell(x: x, y: y) else { continue }
                if cell.style.foreground == SpectrumPlotView.referenceColor { dimmed += 1 }
                if cell.style.foreground == SpectrumPlotView.traceColor { live += 1 }
            }
        }
        // a flat −40 dB line across the plot, under the −80 dB floor's trace and its two peaks
        #expect(dimmed > 80 && live > 80, "dimmed \(dimmed), live \(live)")
        #expect(buffer.lines[0].contains("│ reference"), "\(buffer.lines[0])")
        model.setReference(model.reference, subtract: true)
        var subtracted = Buffer(width: 120, height: 30)
        AnalyzerScreen().render(model: model, frame: fixedFrame(), status: fixedStatus, now: 0, into: &subtracted)
        #expect(subtracted.lines[0].contains("│ live − reference"), "\(subtracted.lines[0])")
        model.setReference(nil, subtract: true)
        #expect(model.reference == nil && !model.subtractsReference)
    }
}
