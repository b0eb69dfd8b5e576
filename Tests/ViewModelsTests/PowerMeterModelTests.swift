import Foundation
import Signals
import Testing
@testable import ViewModels

@Suite struct PowerMeterModelTests {
    func band(_ a: Double, _ b: Double) -> FrequencyRange { FrequencyRange(lowerHz: a, upperHz: b)! }

    @Test func bandPowerIsTheLinearSumWeightedByBinWidth() throws {
        // bins of 1 kHz from 100 kHz at 1, 2, 4, 8 mW-equivalent (linear) in dB
        let frame = SpectrumFrame(startHz: 100e3, binWidthHz: 1e3, timestamp: 0,
                                  powerDB: [1.0, 2, 4, 8].map { Float(10 * log10($0)) })
        var meter = PowerMeterModel(band: band(100.5e3, 103.25e3))
        let measured = meter.measure(frame, visible: band(0, 1e6), at: 0)
        #expect(measured)
        // half of bin 0, bins 1 and 2, a quarter of bin 3: 0.5 + 2 + 4 + 2 = 8.5
        let expected = 10 * log10(8.5)
        #expect(abs(try #require(meter.reading) - expected) < 1e-4)
        // the default band is the visible one: everything, 15
        var visible = PowerMeterModel()
        visible.measure(frame, visible: band(100e3, 104e3), at: 0)
        #expect(abs(try #require(visible.reading) - 10 * log10(15)) < 1e-4)
        // a band the frame does not cover leaves no reading
        var outside = PowerMeterModel(band: band(5e6, 6e6))
        let measuredOutside = outside.measure(frame, visible: band(0, 1e6), at: 0)
        #expect(!measuredOutside)
        #expect(outside.reading == nil)
    }

    @Test func minMaxPeakAndReset() {
        var meter = PowerMeterModel()
        meter.record(-50, at: 0)
        meter.record(-30, at: 0.1)
        meter.record(-60, at: 0.2)
        #expect(meter.minimum == -60)
        #expect(meter.maximum == -30)
        #expect(meter.peak == -30)
        #expect(meter.latest == -60)
        // the peak holds for its time, then follows
        meter.record(-55, at: 0.1 + PowerMeterModel.peakHoldSeconds + 0.01)
        #expect(meter.peak == -55)
        meter.resetExtremes()
        #expect(meter.minimum == nil && meter.maximum == nil && meter.peak == nil)
        meter.record(-40, at: 5)
        #expect(meter.minimum == -40 && meter.maximum == -40)
    }

    @Test func readoutSmoothsInLinearPower() throws {
        var meter = PowerMeterModel()
        meter.record(-50, at: 0)
        #expect(meter.reading == -50)
        meter.record(-40, at: PowerMeterModel.smoothingSeconds)
        let alpha = 1 - exp(-1.0)
        let expected = 10 * log10(pow(10, -5) * (1 - alpha) + pow(10, -4) * alpha)
        #expect(abs(try #require(meter.reading) - expected) < 1e-9)
        meter.record(.nan, at: 1)
        #expect(abs(try #require(meter.reading) - expected) < 1e-9)
    }
}
