import Foundation
import Signals
import Testing
@testable import DSP

@Suite struct BandPowerAverageTests {
    private func frame(_ decibels: Float) -> SpectrumFrame {
        SpectrumFrame(startHz: 100e6, binWidthHz: 1e6, timestamp: 0, powerDB: [decibels, decibels, decibels, decibels])
    }

    @Test func averagesEveryFrameInLinearPowerNotThePeak() {
        let band = FrequencyRange(lowerHz: 101e6, upperHz: 103e6)!  // two whole bins
        var average = BandPowerAverage(band: band)
        average.add(frame(-30))
        average.add(frame(-40))
        // two bins of 1e-3 and of 1e-4: band powers 2e-3 and 2e-4, mean 1.1e-3
        let reading = average.take()
        #expect(reading?.frames == 2)
        #expect(abs((reading?.decibels ?? 0) - 10 * log10(1.1e-3)) < 1e-9)
        #expect(average.take() == nil)
    }

    @Test func mailboxAveragesWhatItPeakHolds() throws {
        let mailbox = FrameMailbox()
        mailbox.measuredBand = FrequencyRange(lowerHz: 100e6, upperHz: 104e6)
        mailbox.post(frame(-20))
        mailbox.post(frame(-40))
        var drawn = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
        #expect(mailbox.take(into: &drawn) == 2)
        #expect(drawn.powerDB == [-20, -20, -20, -20])  // the drawn frame holds the peak…
        let reading = try #require(mailbox.takeBandPower())
        // …the meter gets the mean: 4 bins × (1e-2 + 1e-4) / 2
        let expected: Double = 10 * log10(4 * (1e-2 + 1e-4) / 2)
        #expect(abs(reading.decibels - expected) < 1e-9)
        // a new band starts a new average; clear forgets it too
        mailbox.post(frame(-20))
        mailbox.measuredBand = FrequencyRange(lowerHz: 100e6, upperHz: 101e6)
        #expect(mailbox.takeBandPower() == nil)
        mailbox.post(frame(-20))
        mailbox.clear()
        #expect(mailbox.takeBandPower() == nil)
    }
}
