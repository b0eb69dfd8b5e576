import Foundation
import Signals
import Testing
@testable import Capture

/// Raw I/Q bins are labelled as numpy's `fftshift(fftfreq(N, 1/rate))`,
/// scipy and gqrx label them: bin k of N at centre + (k − ⌊N/2⌋)·rate/N. The
/// reference here is a naive DFT of the same samples, written out in the test.
@Suite struct IQBinConventionTests {
    /// real HackRF cs8 capture, 2 MS/s at 2.475 GHz (Fixtures/README.md)
    static let light = Fixtures.path("iq-rc-car-2g4/light.complex16s")
    static let rate = 2e6
    static let centre = 2.475e9

    /// One reference spectrum: frequencies [Hz] and Hann-windowed power [dB
    /// relative to full scale], ascending in frequency, from `n` cs8 samples.
    static func naiveSpectrum(_ bytes: ArraySlice<UInt8>, n: Int) -> (hertz: [Double], decibels: [Double]) {
        var re = [Double](repeating: 0, count: n), im = re, window = re
        for j in 0..<n {
            window[j] = 0.5 * (1 - cos(2 * Double.pi * Double(j) / Double(n)))
            re[j] = Double(Int8(bitPattern: bytes[bytes.startIndex + 2 * j])) / 128 * window[j]
            im[j] = Double(Int8(bitPattern: bytes[bytes.startIndex + 2 * j + 1])) / 128 * window[j]
        }
        let gain = window.reduce(0, +)
        var hertz: [Double] = [], decibels: [Double] = []
        // frequency index f from −⌊N/2⌋ to N − 1 − ⌊N/2⌋ (numpy's fftshift order)
        for f in -(n / 2)..<(n - n / 2) {
            var sumRe = 0.0, sumIm = 0.0
            for j in 0..<n {
                let angle = -2 * Double.pi * Double(f * j) / Double(n)
                sumRe += re[j] * cos(angle) - im[j] * sin(angle)
                sumIm += re[j] * sin(angle) + im[j] * cos(angle)
            }
            hertz.append(centre + Double(f) * rate / Double(n))
            decibels.append(10 * log10((sumRe * sumRe + sumIm * sumIm) / (gain * gain)))
        }
        return (hertz, decibels)
    }

    @Test(arguments: [64, 63])
    func binsOfARealCaptureMatchANaiveDFTLabelledLikeNumpy(n: Int) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.light)))
        let reader = try IQSpectrumReader(path: Self.light, format: .cs8,
                                          options: IQOptions(sampleRateHz: Self.rate, centerHz: Self.centre,
                                                             fftSize: n, averaging: 1))
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var block = 0
        var compared = 0
        var peaksAgreed = 0
        while try reader.next(into: &frame) {
            let samples = bytes[(block * 2 * n)..<((block + 1) * 2 * n)]
            block += 1
            // 83.5 % of the file is zeroed gaps: compare only blocks with signal
            guard samples.contains(where: { $0 != 0 }), block % 7 == 0 else { continue }
            let reference = Self.naiveSpectrum(samples, n: n)
            #expect(frame.powerDB.count == n)
            for k in 0..<n {
                #expect(abs(frame.binCenterHz(k) - reference.hertz[k]) < 1e-3,
                        "bin \(k): \(frame.binCenterHz(k)) vs \(reference.hertz[k])")
                if reference.decibels[k] > -100 {
                    #expect(abs(Double(frame.powerDB[k]) - reference.decibels[k]) < 0.01, "bin \(k) of block \(block)")
                }
            }
            // the strongest bin drawn is the strongest of the reference (to within float rounding of ties)
            let drawn = frame.powerDB.indices.max { frame.powerDB[$0] < frame.powerDB[$1] }!
            let atDrawn = reference.decibels[reference.hertz.firstIndex { abs($0 - frame.binCenterHz(drawn)) < 1e-3 } ?? 0]
            if atDrawn > reference.decibels.max()! - 0.01 { peaksAgreed += 1 }
            compared += 1
        }
        #expect(block == bytes.count / (2 * n))
        #expect(compared > 20)
        #expect(peaksAgreed == compared)
        // the DC bin ⌊N/2⌋ sits on the tuned centre; the band runs from half a bin below bin 0
        #expect(frame.binCenterHz(n / 2) == Self.centre)
        #expect(reader.metadata.span?.lowerHz == frame.startHz)
    }
}
