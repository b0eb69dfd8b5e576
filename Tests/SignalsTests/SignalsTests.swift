import Testing
@testable import Signals

@Suite struct FrequencyRangeTests {
    @Test func rejectsEmptyAndReversedBands() {
        #expect(FrequencyRange(lowerHz: 10, upperHz: 10) == nil)
        #expect(FrequencyRange(lowerHz: 20, upperHz: 10) == nil)
        #expect(FrequencyRange(lowerHz: .nan, upperHz: 10) == nil)
        let band = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)
        #expect(band?.spanHz == 20e6)
        #expect(band?.centerHz == 98e6)
    }

    @Test func labelsPickTheUnitAndTrimZeros() {
        #expect(FrequencyFormat.label(88.1e6) == "88.1 MHz")
        #expect(FrequencyFormat.label(2.4e9) == "2.4 GHz")
        #expect(FrequencyFormat.label(781.25) == "781.25 Hz")
        #expect(FrequencyFormat.label(500e3) == "500 kHz")
        #expect(FrequencyFormat.label(0) == "0 Hz")
    }

    @Test func frameBinGeometry() {
        let frame = SpectrumFrame(startHz: 100, binWidthHz: 10, timestamp: 0, powerDB: [0, 0, 0, 0])
        #expect(frame.stopHz == 140)
        #expect(frame.binCenterHz(0) == 105)
        #expect(frame.binCenterHz(3) == 135)
    }
}
