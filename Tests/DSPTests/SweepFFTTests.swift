import Signals
import Foundation
import Testing
@testable import DSP

@Suite struct SweepFFTTests {
    /// Runs one block through a fresh SweepFFT and copies the dB out.
    func spectrum(_ iq: [Int8], fftSize: Int, segments: Int = 1) -> [Float] {
        let fft = SweepFFT(fftSize: fftSize, segments: segments)
        return iq.withUnsafeBytes { Array(fft.process($0)) }
    }

    func linearMean(_ decibels: some Sequence<Float>) -> Double {
        var sum = 0.0
        var count = 0
        for value in decibels { sum += pow(10, Double(value) / 10); count += 1 }
        return sum / Double(count)
    }

    @Test(arguments: [(1020, 100), (1020, 800), (100, 7), (100, 93), (8180, 2000), (8180, 6000)])
    func toneLandsInItsBinAtTheExpectedLevel(fftSize: Int, bin: Int) {
        let amplitude = 100.0  // int8 counts
        // No FFT shift: bin k ≥ N/2 holds frequency (k − N)·fs/N.
        let signedBin = bin >= fftSize / 2 ? bin - fftSize : bin
        let iq = IQSynth.block(amplitude: amplitude, cyclesPerSample: Double(signedBin) / Double(fftSize))
        let db = spectrum(iq, fftSize: fftSize)
        let loudest = db.indices.max { db[$0] < db[$1] }
        #expect(loudest == bin)
        let expected = 20 * log10(amplitude / 128 * 0.5)
        #expect(abs(Double(db[bin]) - expected) < 0.5, "bin \(bin): \(db[bin]) dB, expected \(expected) dB")
    }

    @Test func onlyTheLastSamplesOfTheBlockCount() {
        let n = 1020
        let tone = IQSynth.block(amplitude: 100, cyclesPerSample: 50.0 / Double(n))
        let tail = Array(tone.suffix(2 * n))
        var garbled = tone
        // Garbage before the last N samples must not show.
        for i in 0..<(garbled.count - 2 * n) { garbled[i] = 127 }
        let same = spectrum(garbled, fftSize: n) == spectrum(tail, fftSize: n)
        #expect(same)
        // ...and the tail really is what is analysed: garbling it changes the result.
        garbled[garbled.count - n] = -128  // mid-window (the Hann ends weigh 0)
        #expect(spectrum(garbled, fftSize: n) != spectrum(tail, fftSize: n))
    }

    /// Per bin E|X/N|² = σ²/128² · Σw²/N² for complex noise with E|x|² = σ².
    func expectedNoiseFloorDB(sigma: Double, fftSize n: Int) -> Double {
        var sumSquares = 0.0
        for i in 0..<n {
            let w = Double(Float(0.5 * (1 - cos(2 * Double.pi * Double(i) / Double(n - 1)))))
            sumSquares += w * w
        }
        // Rounding to int8 adds 1/12 count² per component.
        let variance = sigma * sigma + 2.0 / 12.0
        return 10 * log10(variance / (128 * 128) * sumSquares / Double(n * n))
    }

    @Test(arguments: [1020, 8180])
    func noiseFloorMatchesTheory(fftSize: Int) {
        let sigma = 20.0
        let db = spectrum(IQSynth.block(noiseSigma: sigma, seed: 7), fftSize: fftSize)
        let measured = 10 * log10(linearMean(db))
        let expected = expectedNoiseFloorDB(sigma: sigma, fftSize: fftSize)
        #expect(abs(measured - expected) < 0.5, "floor \(measured) dB, theory \(expected) dB")
    }

    @Test func welchSegmentsLowerTheVarianceAndKeepTheMean() {
        let n = 1020
        let iq = IQSynth.block(noiseSigma: 20, seed: 11)
        let single = spectrum(iq, fftSize: n, segments: 1)
        let averaged = spectrum(iq, fftSize: n, segments: 8)
        let expected = expectedNoiseFloorDB(sigma: 20, fftSize: n)
        #expect(abs(10 * log10(linearMean(averaged)) - expected) < 0.5)
        func relativeVariance(_ db: [Float]) -> Double {
            let linear = db.map { pow(10, Double($0) / 10) }
            let mean = linear.reduce(0, +) / Double(linear.count)
            return linear.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(linear.count) / (mean * mean)
        }
        // Exponential bins: relative variance ≈ 1; averaging 8 segments ≈ 1/8.
        #expect(relativeVariance(single) > 0.7)
        #expect(relativeVariance(averaged) < 0.25)
    }

    @Test func segmentsAreCappedToWhatFitsInTheBlock() {
        #expect(SweepFFT(fftSize: 8180, segments: 4).segments == 1)
        #expect(SweepFFT(fftSize: 1020, segments: 100).segments == 8)
        #expect(SweepFFT(fftSize: 1020, segments: 0).segments == 1)
    }

    @Test(arguments: [(20, 1), (100, 1), (1020, 1), (100, 3)])
    func matchesTheScalarDFTReference(fftSize: Int, segments: Int) {
        let iq = IQSynth.block(amplitude: 60, cyclesPerSample: 0.1234, noiseSigma: 8, seed: 3)
        let fast = spectrum(iq, fftSize: fftSize, segments: segments)
        let reference = ReferenceSpectrum.decibels(iq: iq, fftSize: fftSize, segments: segments)
        var worst = 0.0
        for k in 0..<fftSize where reference[k] > -100 {
            worst = max(worst, abs(Double(fast[k]) - reference[k]))
        }
        #expect(worst < 0.01, "max |ΔdB| = \(worst)")
    }

    @Test func quartersAreHackRFSweepsBinSelection() {
        let fft = SweepFFT(fftSize: 20)
        // hackrf_sweep: 1 + 5N/8 and 1 + N/8, N/4 bins each.
        #expect(fft.lowerQuarterStart == 13)
        #expect(fft.upperQuarterStart == 3)
        #expect(fft.quarterCount == 5)
    }
}

@Suite struct SweepFFTSizeTests {
    /// hackrf_sweep.c (release 2022.09.1), `main`: fftSize = 20000000 / w in
    /// integer arithmetic on the uint32 `-w`; refuse fftSize < 4 or > 8180;
    /// then fftSize++ while (fftSize + 4) % 8 != 0.
    func hackrfSweepRule(_ width: UInt32) -> Int? {
        var fftSize = Int(20_000_000 / width)
        if fftSize < 4 || fftSize > 8180 { return nil }
        while (fftSize + 4) % 8 != 0 { fftSize += 1 }
        return fftSize
    }

    @Test func literalCases() {
        #expect(SweepFFTSize.forBinWidth(2445) == 8180)      // 8179 → 8180
        #expect(SweepFFTSize.forBinWidth(2444) == nil)       // 8183 > 8180
        #expect(SweepFFTSize.forBinWidth(5_000_000) == 4)
        #expect(SweepFFTSize.forBinWidth(5_000_001) == nil)  // 3 < 4, refused before padding
        #expect(SweepFFTSize.forBinWidth(6_000_000) == nil)
        #expect(SweepFFTSize.forBinWidth(1_000_000) == 20)
        #expect(SweepFFTSize.forBinWidth(100_000) == 204)    // 200 → 204
        #expect(SweepFFTSize.forBinWidth(0) == nil)
        #expect(SweepFFTSize.forBinWidth(-5) == nil)
        #expect(SweepFFTSize.forBinWidth(.nan) == nil)
        #expect(SweepFFTSize.forBinWidth(.infinity) == nil)
    }

    @Test func agreesWithHackRFSweepOverIntegerWidths() {
        var widths: [UInt32] = Array(2400...2500) + Array(4_999_990...5_000_010) + Array(6_666_660...6_666_670)
        var rng = SeededRandom(seed: 5)
        for _ in 0..<2000 { widths.append(UInt32.random(in: 1...7_000_000, using: &rng)) }
        for width in widths {
            #expect(SweepFFTSize.forBinWidth(Double(width)) == hackrfSweepRule(width), "width \(width) Hz")
        }
    }
}

@Suite struct FastDecibelsTests {
    @Test func fastLogStaysWithinAHundredthOfADecibelOfHackRFSweepsFormula() {
        var rng = SeededRandom(seed: 17)
        var worst: Float = 0
        for _ in 0..<200_000 {
            // Powers from 1e-30 to 1e3 (full scale is 1), log-uniform.
            let power = Float(pow(10, Double.random(in: -30...3, using: &rng)))
            worst = max(worst, abs(FastDecibels.decibels(power) - FastDecibels.reference(power)))
        }
        #expect(worst < 1e-4, "max |ΔdB| = \(worst)")
    }

    @Test func edgeCasesFollowTheReference() {
        #expect(FastDecibels.decibels(0) == -.infinity)
        #expect(FastDecibels.decibels(1) == 0)
        #expect(FastDecibels.decibels(.nan).isNaN)
        #expect(FastDecibels.decibels(.infinity) == .infinity)
        let subnormal = Float.leastNormalMagnitude / 4
        #expect(FastDecibels.decibels(subnormal) == FastDecibels.reference(subnormal))
    }

    @Test func bulkConversionMatchesOneByOneIncludingSpecialValues() {
        var rng = SeededRandom(seed: 23)
        var powers = (0..<1000).map { _ in Float(pow(10, Double.random(in: -20...2, using: &rng))) }
        powers[3] = 0
        powers[500] = .nan
        powers[777] = Float.leastNormalMagnitude / 8
        powers[999] = .infinity
        var bulk = [Float](repeating: 0, count: powers.count)
        powers.withUnsafeBufferPointer { p in
            bulk.withUnsafeMutableBufferPointer { FastDecibels.convert(p.baseAddress!, into: $0.baseAddress!, count: p.count) }
        }
        let single = powers.map(FastDecibels.decibels)
        let agree = zip(bulk, single).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }
        #expect(agree)
        #expect(bulk[3] == -.infinity && bulk[500].isNaN && bulk[999] == .infinity)
    }

    @Test func shortBlockGivesNaNNotACrash() {
        let fft = SweepFFT(fftSize: 100)
        let db = [Int8](repeating: 1, count: 150).withUnsafeBytes { Array(fft.process($0)) }
        #expect(db.count == 100 && db.allSatisfy(\.isNaN))
    }
}
