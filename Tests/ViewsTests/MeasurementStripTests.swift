import DSP
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// The measurement strip under a narrow plot: readings flow over its rows, and what does not fit is
/// left out whole, never cut or written over by the `e next` key.
@Suite struct MeasurementStripTests {
    @Test func readingsThatDoNotFitAreLeftOutNotOverwritten() {
        // 100 MHz at −20 dB, harmonics at −35 and −42 dB, no fourth: a −90 dB floor
        var power = [Float](repeating: -90, count: 5000)
        for (mhz, level) in [(100, Float(-20)), (200, -35), (300, -42)] { power[mhz * 10] = level }
        let frame = SpectrumFrame(startHz: 0, binWidthHz: 100e3, timestamp: 0, powerDB: power)
        var model = BenchMeasurementModel()
        model.show(.harmonics)
        model.measure(frame, visible: FrequencyRange(lowerHz: 50e6, upperHz: 450e6)!, markerHz: nil)
        let items = model.summaryItems(unit: .dBm)
        #expect(items.contains("H4 < −70.00 dBc"), "\(items)")
        for width in [40, 50, 60, 80] {
            var buffer = Buffer(width: width, height: 2)
            MeasurementOverlay.drawStrip(model, unit: .dBm, in: Rect(x: 0, y: 0, width: width, height: 2), into: &buffer)
            let text = buffer.description
            // every item shown is shown whole
            let shown = items.filter { text.contains($0) }
            #expect(!shown.isEmpty, "\(text)")
            for item in items where !text.contains(item) {
                #expect(!text.contains(String(item.prefix(6))), "width \(width): \(item) cut:\n\(text)")
            }
        }
    }
}
