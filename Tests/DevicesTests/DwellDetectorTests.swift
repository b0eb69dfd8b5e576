import DSP
import Foundation
import Signals
import Testing
@testable import Devices

/// Detectors over the whole dwell against a pulsed carrier on the emulated
/// HackRF (firmware timing: one kept 8192-sample block per tuning step after
/// two discarded ones). The fraction of sweeps that show the pulse must match
/// the dwell arithmetic (`DwellTiming`), within the statistical error of 600
/// sweeps.
@Suite struct DwellDetectorTests {
    static let pulseHz = 2402.5e6
    static let width = 20e-6
    static let period = 1e-3

    /// sweeps of 2400–2420 MHz at 1 MHz bins (N = 20) in which the pulse's
    /// bins rise 10 dB over the frame's median
    func fractionShowingThePulse(_ detector: SpectrumDetector, sweeps: Int = 600) throws -> (Double, DwellTiming) {
        let scene = DemoScene(seed: 9, noiseSigma: 1, pulsedCarriers: [
            .init(frequencyHz: Self.pulseHz, amplitude: 20, widthSeconds: Self.width, periodSeconds: Self.period),
        ])
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 2400, stopMHz: 2420)], binWidthHz: 1e6)
        let sweep = try SynchronousSweep(scene: scene, plan: plan, detector: detector)
        let frames = try sweep.frames(sweeps)
        let shown = frames.filter { peak(in: $0, near: Self.pulseHz) > median($0.powerDB) + 10 }.count
        let timing = DwellTiming.hackRFSweep(fftSize: plan.fftSize, detector: detector,
                                             steps: plan.stepFrequenciesHz.count)
        return (Double(shown) / Double(frames.count), timing)
    }

    @Test func thePeakDetectorCatchesAPulseAsOftenAsTheDwellAllows() throws {
        let (fraction, timing) = try fractionShowingThePulse(.peak)
        let expected = timing.interceptFraction(pulseWidthSeconds: Self.width, periodSeconds: Self.period)
        // 409 segments of 20 samples: 409 µs of every step, so (409 + 20) / 1000 of sweeps
        #expect(abs(timing.dwellSeconds - 409e-6) < 1e-6)
        let sigma = (expected * (1 - expected) / 600).squareRoot()
        #expect(abs(fraction - expected) < 4 * sigma + 0.01, "peak: \(fraction) of sweeps, dwell arithmetic \(expected)")
    }

    @Test func theSampleDetectorMissesWhatHackRFSweepMisses() throws {
        let (fraction, timing) = try fractionShowingThePulse(.sample)
        // hackrf_sweep's last 20 samples: 1 µs of every step; a pulse shows when it overlaps
        // them, and the Hann window's tapered edges make that a little less than (1 + 20) / 1000
        let most = timing.interceptFraction(pulseWidthSeconds: Self.width, periodSeconds: Self.period)
        let least = Self.width / Self.period * 0.8
        #expect(fraction <= most + 0.012 && fraction >= least - 0.012, "sample: \(fraction), expected \(least)…\(most)")
        let (peakFraction, _) = try fractionShowingThePulse(.peak, sweeps: 300)
        #expect(peakFraction > 10 * fraction, "peak \(peakFraction) vs sample \(fraction)")
    }

    /// Welch over the dwell: the floor's scatter across bins falls as 1/√K,
    /// and white noise of known power reads that power.
    @Test func averagingTheDwellNarrowsTheFloorAndKeepsItsPower() throws {
        let scene = DemoScene(seed: 3, noiseSigma: 4)
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 1000, stopMHz: 1100)], binWidthHz: 200_000)
        func floor(_ detector: SpectrumDetector) throws -> (std: Double, meanPower: Double) {
            let frames = try SynchronousSweep(scene: scene, plan: plan, detector: detector).frames(3)
            let values = frames.flatMap(\.powerDB).filter(\.isFinite).map(Double.init)
            let mean = values.reduce(0, +) / Double(values.count)
            let std = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
            let meanPower = values.map { pow(10, $0 / 10) }.reduce(0, +) / Double(values.count)
            return (std, meanPower)
        }
        let single = try floor(.sample)
        let averaged = try floor(.average)
        let segments = Double(HackRFProtocol.samplesAfterHeader / plan.fftSize)
        let ratio = single.std / averaged.std
        // dB scatter of an average of K exponential powers: 5.57 dB for K = 1, about 4.34/√K dB for large K
        let expectedRatio = 5.57 / (4.34 / segments.squareRoot())
        #expect(abs(ratio / expectedRatio - 1) < 0.2, "std \(single.std) → \(averaged.std) dB, K = \(segments)")
        // white noise of σ per component [int8 units]: power per bin = 2σ²/128² × Σw²/N (Hann, |X/N|²)
        let sigma = 4.0 / 128
        let hann = SpectralWindow.hannMeanSquare(length: plan.fftSize)
        let expectedPower = 2 * sigma * sigma * hann / Double(plan.fftSize)
        let readDB = 10 * log10(averaged.meanPower), expectedDB = 10 * log10(expectedPower)
        #expect(abs(readDB - expectedDB) < 0.5, "average reads \(readDB) dB, white noise is \(expectedDB) dB")
    }
}

/// The RTL-SDR's hops take `--detector` too: `peak` keeps each bin's largest
/// FFT power over a pass, the others rtl_power's mean.
@Suite struct RTLSDRDetectorTests {
    /// `transforms` FFT-sized u8 I/Q segments: noise-free silence, with a tone
    /// at FFT bin `bin` in the first segment only (a burst in one transform).
    static func segments(fftSize n: Int, transforms: Int, bin: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 128, count: 2 * n * transforms)
        for k in 0..<n {
            let phase = 2 * Double.pi * Double(bin * k) / Double(n)
            bytes[2 * k] = UInt8(128 + 100 * cos(phase))
            bytes[2 * k + 1] = UInt8(128 + 100 * sin(phase))
        }
        return bytes
    }

    @Test func peakKeepsABurstInOneTransformAtItsLevelAndTheMeanDilutesIt() throws {
        let plan = try RTLSDRHopPlan(lowerHz: 100_000_000, upperHz: 101_000_000, maxBinHz: 10_000, crop: 0)
        let n = plan.fftSize
        let bytes = Self.segments(fftSize: n, transforms: 8, bin: n / 8)
        func level(_ detector: SpectrumDetector) -> Float {
            let accumulator = RTLSDRHopAccumulator(plan: plan, window: .rectangle, detector: detector)
            bytes.withUnsafeBytes { accumulator.add(hop: 0, iq: $0) }
            return accumulator.hopDecibels(0).max() ?? -.infinity
        }
        let peak = level(.peak), mean = level(.sample)
        // one transform in eight holds the tone: the mean is 10·log10(8) ≈ 9.03 dB lower
        #expect(abs(Double(peak - mean) - 10 * log10(8.0)) < 0.1, "peak \(peak) dB, mean \(mean) dB")
        #expect(level(.average) == mean && level(.rms) == mean)
    }
}
