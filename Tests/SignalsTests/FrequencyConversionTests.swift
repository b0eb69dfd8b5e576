import Testing
@testable import Signals

/// The converter's arithmetic (issue 44): low-side adds the offset,
/// high-side mirrors about it; a frame's bins follow.
@Suite struct FrequencyConversionTests {
    @Test func lowSideAddsTheOffsetAndBack() throws {
        let lnb = FrequencyConversion(offsetHz: 9.75e9)
        #expect(lnb.realHz(tunedHz: 430e6) == 10_180e6 && lnb.tunedHz(realHz: 10_180e6) == 430e6)
        #expect(lnb.tuned(FrequencyRange(lowerHz: 10_180e6, upperHz: 10_190e6)!) == FrequencyRange(lowerHz: 430e6, upperHz: 440e6))
        #expect(lnb.tuned(FrequencyRange(lowerHz: 100e6, upperHz: 110e6)!) == nil, "below 0 Hz")
        let upconverter = FrequencyConversion(offsetHz: -125e6)
        // a dongle from 27 MHz behind it reaches from 0 Hz, not −98 MHz
        #expect(upconverter.real(FrequencyRange(lowerHz: 27e6, upperHz: 1766e6)!) == FrequencyRange(lowerHz: 0, upperHz: 1641e6))
        #expect(FrequencyConversion(offsetHz: 0).isIdentity && !FrequencyConversion(offsetHz: 0, inverted: true).isIdentity)
    }

    @Test func highSideMirrorsTheBandAndTheBins() throws {
        let conversion = FrequencyConversion(offsetHz: 10.6e9, inverted: true)
        #expect(conversion.real(FrequencyRange(lowerHz: 410e6, upperHz: 420e6)!) == FrequencyRange(lowerHz: 10_180e6, upperHz: 10_190e6))
        #expect(conversion.tuned(FrequencyRange(lowerHz: 10_180e6, upperHz: 10_190e6)!) == FrequencyRange(lowerHz: 410e6, upperHz: 420e6))
        var frame = SpectrumFrame(startHz: 410e6, binWidthHz: 2.5e6, timestamp: 7, powerDB: [1, 2, 3, 4])
        frame.everyDetector = DetectorLevels(peak: [1, 2, 3, 4], average: [5, 6, 7, 8], sample: [9, 10, 11, 12],
                                             cisprAverage: [13, 14, 15, 16])
        conversion.toReal(&frame)
        #expect(frame.startHz == 10_180e6 && frame.stopHz == 10_190e6)
        // the tuned bin 410.0–412.5 MHz is the real 10187.5–10190 MHz: last
        #expect(frame.powerDB == [4, 3, 2, 1])
        #expect(frame.everyDetector == DetectorLevels(peak: [4, 3, 2, 1], average: [8, 7, 6, 5], sample: [12, 11, 10, 9],
                                                      cisprAverage: [16, 15, 14, 13]))
        var plain = SpectrumFrame(startHz: 430e6, binWidthHz: 1e6, timestamp: 0, powerDB: [1, 2])
        FrequencyConversion(offsetHz: 9.75e9).toReal(&plain)
        #expect(plain.startHz == 10_180e6 && plain.powerDB == [1, 2])
    }
}
