import Foundation
import Signals
import Testing
@testable import DSP

/// The CISPR average detector (`--detector cispr-average`) in each engine
/// that detects samples — the HackRF sweep's dwell (`SweepFFT`), the
/// real-time stream (`RealtimeSpectrum`) and the RTL-SDR / SoapySDR hops
/// (`HopPowerSpectrum`) — on a carrier keyed on and off. CISPR 16-1-1's
/// average detector reads the mean of the envelope voltage: a carrier on for
/// a fraction d of the time reads 20·log10(d) below its peak, where the power
/// mean (`average`, `rms`) reads 10·log10(d). The expectations are that
/// arithmetic, not numbers taken from a run.
@Suite struct CISPRAverageDetectorTests {
    /// int8 I/Q of a complex tone of `amplitude` counts at `cyclesPerSample`,
    /// keyed on for the first `onSamples` of every `periodSamples`
    static func keyedCarrier(samples: Int, amplitude: Double, cyclesPerSample: Double,
                             onSamples: Int, periodSamples: Int) -> [Int8] {
        var bytes = [Int8](repeating: 0, count: 2 * samples)
        for k in 0..<samples where k % periodSamples < onSamples {
            let phase = 2 * Double.pi * cyclesPerSample * Double(k)
            bytes[2 * k] = Int8((amplitude * cos(phase)).rounded())
            bytes[2 * k + 1] = Int8((amplitude * sin(phase)).rounded())
        }
        return bytes
    }

    static let duties = [0.1, 0.25, 0.5]

    /// The sweep's dwell: 100 segments of N = 64, the carrier keyed by whole
    /// segments (on for d of every 20), at bin 8's centre.
    @Test(arguments: duties)
    func sweepDwellReadsTwentyLogDutyOnCISPRAverageAndTenLogDutyOnRMS(duty: Double) throws {
        let n = 64, segments = 100, bin = 8
        let period = 20 * n, on = Int((duty * Double(period)).rounded())
        let iq = Self.keyedCarrier(samples: segments * n, amplitude: 100, cyclesPerSample: Double(bin) / Double(n),
                                   onSamples: on, periodSamples: period)
        func level(_ detector: SpectrumDetector) -> Double {
            let fft = SweepFFT(fftSize: n, detector: detector, maxSamples: segments * n)
            #expect(fft.segments == segments)
            return iq.withUnsafeBytes { Double(fft.process($0)[bin]) }
        }
        let peak = level(.peak), cispr = level(.cisprAverage), rms = level(.rms), average = level(.average)
        #expect(abs((cispr - peak) - 20 * log10(duty)) < 0.1, "CISPR average \(cispr - peak) dB below peak")
        #expect(abs((rms - peak) - 10 * log10(duty)) < 0.1, "RMS \(rms - peak) dB below peak")
        #expect(rms == average)
        // the every-detector mode (a sensor's) makes the same four levels from the same block
        let every = SweepFFT(fftSize: n, detector: .cisprAverage, maxSamples: segments * n, keepingEveryDetector: true)
        let kept = iq.withUnsafeBytes { Double(every.process($0)[bin]) }
        #expect(abs(kept - cispr) < 1e-3)
        let quarters = try #require(every.quarters(by: .cisprAverage))
        #expect(quarters.lower.count == n / 4)
    }

    /// A steady carrier reads the same on every detector: the CISPR average
    /// of a constant envelope is that envelope.
    @Test func aSteadyCarrierReadsAlikeOnEveryDetector() {
        let n = 64, segments = 50, bin = 5
        let iq = Self.keyedCarrier(samples: segments * n, amplitude: 90, cyclesPerSample: Double(bin) / Double(n),
                                   onSamples: 1, periodSamples: 1)
        let levels = SpectrumDetector.allCases.map { detector in
            let fft = SweepFFT(fftSize: n, detector: detector, maxSamples: segments * n)
            return iq.withUnsafeBytes { Double(fft.process($0)[bin]) }
        }
        #expect(levels.allSatisfy { abs($0 - levels[0]) < 0.01 }, "\(levels)")
    }

    /// Noise: the envelope of Gaussian noise in a bin is Rayleigh, whose mean
    /// is √(π/4) of its RMS, so the CISPR average reads 10·log10(π/4) =
    /// −1.05 dB from the power mean.
    @Test func noiseReadsOnePointOhFiveDBBelowItsPowerMean() {
        let n = 64, segments = 128
        let iq = IQSynth.block(samples: segments * n, noiseSigma: 30, seed: 11)
        func mean(_ detector: SpectrumDetector) -> Double {
            let fft = SweepFFT(fftSize: n, detector: detector, maxSamples: segments * n)
            let levels = iq.withUnsafeBytes { Array(fft.process($0)) }
            return levels.map(Double.init).reduce(0, +) / Double(n)
        }
        let difference = mean(.cisprAverage) - mean(.average)
        #expect(abs(difference - 10 * log10(Double.pi / 4)) < 0.1, "\(difference) dB")
    }

    /// The real-time stream, 50 % overlapped windows: a frame spans one whole
    /// keying period of 1000 hops; the windows straddling the edges see part
    /// of a burst, and the mean envelope still comes out at d (a tone at a
    /// bin centre adds linearly in |X|, and shifted Hann windows sum to a
    /// constant), the mean power within 0.1 dB of d.
    @Test(arguments: duties)
    func realtimeFramesReadTwentyLogDutyOnCISPRAverage(duty: Double) throws {
        let n = 64, hop = 32, bin = 40
        let periodHops = 1000, fs = 1e6
        let framesPerSecond = fs / Double(hop * periodHops)
        let period = periodHops * hop, on = Int((duty * Double(period)).rounded())
        let iq = Self.keyedCarrier(samples: 4 * period, amplitude: 100, cyclesPerSample: Double(bin - n / 2) / Double(n),
                                   onSamples: on, periodSamples: period)
        func level(_ detector: SpectrumDetector) throws -> Double {
            let spectrum = RealtimeSpectrum(fftSize: n, sampleRateHz: fs, detector: detector, format: .int8,
                                            framesPerSecond: framesPerSecond, removeDC: false)
            #expect(spectrum.fftsPerFrame == periodHops)
            var levels: [Double] = []
            iq.withUnsafeBytes { raw in spectrum.consume(raw) { frame, _ in levels.append(Double(frame[bin])) } }
            // the first frame's windows start with the stream; a later one is any phase of the keying
            return try #require(levels.dropFirst().first)
        }
        let peak = try level(.peak), cispr = try level(.cisprAverage), rms = try level(.rms)
        #expect(abs((cispr - peak) - 20 * log10(duty)) < 0.1, "CISPR average \(cispr - peak) dB below peak")
        #expect(abs((rms - peak) - 10 * log10(duty)) < 0.1, "RMS \(rms - peak) dB below peak")
        // every detector kept at once gives the same CISPR average
        let every = RealtimeSpectrum(fftSize: n, sampleRateHz: fs, detector: .peak, format: .int8,
                                     framesPerSecond: framesPerSecond, removeDC: false, keepEveryDetector: true)
        var kept: [Double] = []
        iq.withUnsafeBytes { raw in
            every.consume(raw) { _, _ in kept.append(Double(every.levels(by: .cisprAverage)![bin])) }
        }
        #expect(abs(try #require(kept.dropFirst().first) - cispr) < 1e-3)
    }

    /// The hops (RTL-SDR, SoapySDR): the accumulator sums envelopes; the
    /// caller's mean of them, squared, is the CISPR average.
    @Test(arguments: duties)
    func hopAccumulationReadsTwentyLogDutyOnCISPRAverage(duty: Double) {
        let n = 32, transforms = 200, bin = 3
        let period = 20 * n, on = Int((duty * Double(period)).rounded())
        // u8 offset binary: the int8 carrier moved to 127.5 ± amplitude (rounded down: ±0.5 count of DC)
        let signed = Self.keyedCarrier(samples: transforms * n, amplitude: 100, cyclesPerSample: Double(bin) / Double(n),
                                       onSamples: on, periodSamples: period)
        let unsigned = signed.map { UInt8(Int($0) + 128) }
        func level(_ combination: PowerSpectrumFFT.Combination, as detector: SpectrumDetector) -> Double {
            let spectrum = HopPowerSpectrum(fftSize: n, window: .hamming, combination: combination)
            var accumulator = [Float](repeating: 0, count: n)
            let count = unsigned.withUnsafeBytes { raw in
                accumulator.withUnsafeMutableBufferPointer { spectrum.accumulate(raw, into: $0.baseAddress!) }
            }
            #expect(count == transforms)
            return 10 * log10(Double(detector.accumulatedPower(accumulator[bin], transforms: count)))
        }
        let peak = level(.maximum, as: .peak)
        let cispr = level(.sumOfEnvelopes, as: .cisprAverage)
        let mean = level(.sum, as: .average)
        #expect(abs((cispr - peak) - 20 * log10(duty)) < 0.1, "CISPR average \(cispr - peak) dB below peak")
        #expect(abs((mean - peak) - 10 * log10(duty)) < 0.1, "mean power \(mean - peak) dB below peak")
    }

    /// The detectors each combine as their names say; a new case must say how.
    @Test func everyDetectorHasAPlaneAndACombination() {
        let planes = Set(SpectrumDetector.allCases.map(\.everyDetectorPlane))
        #expect(planes == Set(0..<SpectrumDetector.everyDetectorPlaneCount))
        #expect(SpectrumDetector(rawValue: "cispr-average") == .cisprAverage)
        #expect(SpectrumDetector.cisprAverage.accumulatedPower(6, transforms: 3) == 4)  // (6/3)²
        #expect(SpectrumDetector.average.accumulatedPower(6, transforms: 3) == 2)
        #expect(SpectrumDetector.cisprAverage.columnDetector == .peak && SpectrumDetector.rms.columnDetector == .mean)
    }
}
