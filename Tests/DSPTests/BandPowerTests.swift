import Foundation
import Signals
import Testing
@testable import DSP

@Suite struct BandPowerTests {
    // Bins of 100 Hz from 1000 Hz: powers 1, 2, 4, 8 (linear) → dB.
    let frame = SpectrumFrame(
        startHz: 1000, binWidthHz: 100, timestamp: 0,
        powerDB: [1.0, 2, 4, 8].map { Float(10 * log10($0)) }
    )

    func band(_ a: Double, _ b: Double) -> FrequencyRange { FrequencyRange(lowerHz: a, upperHz: b)! }

    @Test func weighsBinsByTheirOverlap() throws {
        // [1050, 1320]: half of bin 0, all of bins 1 and 2, a fifth of bin 3.
        let expected = 10 * log10(0.5 * 1 + 2 + 4 + 0.2 * 8)
        let measured = try #require(BandPower.decibels(in: band(1050, 1320), of: frame))
        #expect(abs(measured - expected) < 1e-4)
    }

    @Test func wholeFrameAndBeyondSumsEverything() throws {
        let measured = try #require(BandPower.decibels(in: band(0, 1e6), of: frame))
        #expect(abs(measured - 10 * log10(15.0)) < 1e-4)
    }

    @Test func insideOneBinIsItsFraction() throws {
        let measured = try #require(BandPower.decibels(in: band(1210, 1235), of: frame))
        #expect(abs(measured - 10 * log10(0.25 * 4)) < 1e-4)
    }

    @Test func noOverlapOrOnlyNaNIsNil() {
        #expect(BandPower.decibels(in: band(0, 999), of: frame) == nil)
        #expect(BandPower.decibels(in: band(1401, 2000), of: frame) == nil)
        #expect(BandPower.decibels(in: band(1e30, 2e30), of: frame) == nil)
        let empty = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [.nan, .nan])
        #expect(BandPower.decibels(in: band(0, 2), of: empty) == nil)
    }

    @Test func theNoiseBandwidthScalesTheIntegral() throws {
        // points 100 Hz apart seen through a 250 Hz noise bandwidth: Σ Pᵢ × 100 / 250
        var wide = frame
        wide.noiseBandwidthHz = 250
        let measured = try #require(BandPower.decibels(in: band(1050, 1320), of: wide))
        #expect(abs(measured - 10 * log10((0.5 * 1 + 2 + 4 + 0.2 * 8) * 100 / 250)) < 1e-4)
        wide.noiseBandwidthHz = 0
        #expect(BandPower.decibels(in: band(1050, 1320), of: wide) == nil)
    }
}
