import DSP
import Foundation
import Signals
import Testing
import ViewModels

/// The status line's warning when an analyzer measures each point through a filter narrower than the
/// step between points (a tinySA at 30 MHz–1 GHz: 450 points of 2.16 MHz through its widest auto RBW,
/// 850 kHz on the Ultra): a tone between points reads low.
@Suite struct PointStepWarningTests {
    func frame(binWidthHz: Double, rbwHz: Double?, windowing: FFTWindowing? = nil) -> SpectrumFrame {
        SpectrumFrame(startHz: 30e6, binWidthHz: binWidthHz, timestamp: 0, powerDB: [Float](repeating: -90, count: 450),
                      noiseBandwidthHz: rbwHz.map { ResolutionFilter.noiseBandwidth(rbwHz: $0) }, windowing: windowing)
    }

    /// A Gaussian filter's reading of a tone `offsetHz` from its centre, below the tone's level [dB]
    func gaussianLossDB(offsetHz: Double, rbwHz: Double) -> Double {
        // power response exp(−4 ln 2 · (f / RBW)²): −3 dB at f = RBW/2
        -10 * log10(exp(-4 * log(2.0) * (offsetHz / rbwHz) * (offsetHz / rbwHz)))
    }

    @Test func aTinySAsWideSpanWarnsWithTheLossMidwayBetweenPoints() throws {
        // 30 MHz–1 GHz over 450 points through the Ultra's widest auto RBW: the loss named is the filter's
        // at half a step, to the dB
        let step = (1000e6 - 30e6) / 450
        let text = try #require(SpectrumStatus.pointStepWarning(frame(binWidthHz: step, rbwHz: 850e3)))
        #expect(text.hasPrefix("RBW 850 kHz < 2.2 MHz step: tones between points read up to "), "\(text)")
        let named = try #require(Int(text.split(separator: " ").drop { $0 != "to" }.dropFirst().first ?? ""), "\(text)")
        let expected = gaussianLossDB(offsetHz: step / 2, rbwHz: 850e3)
        #expect(abs(Double(named) - expected) <= 0.5, "\(named) dB named, \(expected) dB at half a step")
        // 306 points (a 160-column view): past 20 dB, where the line stops counting
        let coarse = (1000e6 - 30e6) / 306
        #expect(gaussianLossDB(offsetHz: coarse / 2, rbwHz: 850e3) > 20)
        let wide = try #require(SpectrumStatus.pointStepWarning(frame(binWidthHz: coarse, rbwHz: 850e3)))
        #expect(wide == "RBW 850 kHz < 3.2 MHz step: tones between points read 20+ dB low", "\(wide)")
    }

    @Test func noWarningWhereTheFilterCoversTheStepOrTheSpectrumIsAnFFTs() {
        // a narrower span: 500 kHz points through the 850 kHz filter
        #expect(SpectrumStatus.pointStepWarning(frame(binWidthHz: 500e3, rbwHz: 850e3)) == nil)
        // exactly one RBW a point: a tone between points is 3 dB down, the filter's own edge
        #expect(SpectrumStatus.pointStepWarning(frame(binWidthHz: 850e3, rbwHz: 850e3)) == nil)
        // no filter stated
        #expect(SpectrumStatus.pointStepWarning(frame(binWidthHz: 2e6, rbwHz: nil)) == nil)
        // an FFT's bins overlap whatever their noise bandwidth says
        #expect(SpectrumStatus.pointStepWarning(frame(binWidthHz: 2e6, rbwHz: 1e6,
                                                      windowing: FFTWindowing(.hann, length: 64))) == nil)
    }
}
