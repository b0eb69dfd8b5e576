import Foundation
import Signals
import Testing
@testable import DSP

/// CISPR 16-1-1's bandwidths are 6 dB bandwidths; tscope's bins are Hann
/// windowed. The window's widths are measured here on an FFT of a long
/// zero-padded window (a different computation from the DTFT bisection in
/// the code), and the CISPR average detector is checked against the published
/// pulse relation: average 20·log10(d), RMS 10·log10(d) below peak.
@Suite struct CISPRMeasurementTests {
    @Test func hannBinsAreTwoBinsWideAtSixDBAndOneAndAHalfInNoise() {
        // the response on a grid of 1/128 bin: a 256-point Hann zero-padded 128×, by a plain DFT over the first lobe
        let n = 256, pad = 128
        let window = (0..<n).map { SpectralWindow.hann($0, length: n) }
        let dc = window.reduce(0, +)
        var sixDBEdge = 0.0, threeDBEdge = 0.0
        for k in 0..<(2 * pad) {
            let bins = Double(k) / Double(pad)
            var re = 0.0, im = 0.0
            for (i, w) in window.enumerated() {
                re += w * cos(2 * .pi * bins * Double(i) / Double(n))
                im -= w * sin(2 * .pi * bins * Double(i) / Double(n))
            }
            let decibels = 10 * log10((re * re + im * im) / (dc * dc))
            if threeDBEdge == 0, decibels < -3.0103 { threeDBEdge = bins }
            if sixDBEdge == 0, decibels < -6.0206 { sixDBEdge = bins }
        }
        let widths = CISPRMeasurement.hannBandwidths
        // the grid is 1/128 bin (twice that across both edges); the (N−1) Hann of 256 points is N/(N−1) wider than 4096's
        #expect(abs(widths.sixDB - 2 * sixDBEdge) < 0.03, "\(widths.sixDB) vs \(2 * sixDBEdge)")
        #expect(abs(widths.threeDB - 2 * threeDBEdge) < 0.03, "\(widths.threeDB) vs \(2 * threeDBEdge)")
        #expect(abs(widths.sixDB - 2.0) < 0.01 && abs(widths.threeDB - 1.44) < 0.01 && abs(widths.noise - 1.5) < 0.001)
        // band B's 9 kHz at 6 dB: 4.5 kHz bins
        #expect(abs(CISPRBand.b.hannBinWidthHz - 9e3 / widths.sixDB) < 1e-9 && abs(CISPRBand.b.hannBinWidthHz - 4.5e3) < 30)
    }

    @Test func bandsAndTheirBandwidths() {
        #expect(CISPRBand.at(1e6) == .b && CISPRBand.at(100e6) == .c && CISPRBand.at(500e6) == .d && CISPRBand.at(2e9) == .e)
        #expect(CISPRBand.at(5e3) == nil)
        #expect(CISPRBand.covering(FrequencyRange(lowerHz: 150e3, upperHz: 30e6)!) == .b)
        #expect(CISPRBand.covering(FrequencyRange(lowerHz: 30e6, upperHz: 1e9)!)?.sixDBBandwidthHz == 120e3)
        #expect(CISPRBand.allCases.map(\.sixDBBandwidthHz) == [200, 9e3, 120e3, 120e3, 1e6])
    }

    @Test(arguments: [0.1, 0.25, 0.5])
    func aPulsedCarrierReadsTwentyLogDutyOnAverageAndTenLogDutyOnRMS(duty: Double) {
        // a carrier of amplitude 0.3 keyed on for `duty` of each 1000-sample period, over 20 periods, in light noise
        var rng = SeededRandom(seed: 3)
        let period = 1000, on = Int((duty * Double(period)).rounded())
        var powers: [Float] = []
        for i in 0..<(20 * period) {
            let amplitude = i % period < on ? 0.3 : 0.0
            let re = amplitude + Double.random(in: -1e-4...1e-4, using: &rng)
            let im = Double.random(in: -1e-4...1e-4, using: &rng)
            powers.append(Float(re * re + im * im))
        }
        let peak = 10 * log10(Double(powers.max()!))
        let average = CISPRMeasurement.averageDecibels(powers: powers)!
        let rms = 10 * log10(powers.reduce(0.0) { $0 + Double($1) } / Double(powers.count))
        #expect(abs(average - peak - 20 * log10(duty)) < 0.05, "average \(average - peak) dB vs \(20 * log10(duty))")
        #expect(abs(rms - peak - 10 * log10(duty)) < 0.05, "rms \(rms - peak) dB vs \(10 * log10(duty))")
        #expect(CISPRMeasurement.averageDecibels(powers: [Float.nan]) == nil)
    }
}
