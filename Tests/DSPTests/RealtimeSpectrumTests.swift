import Foundation
import Testing
@testable import DSP

/// The real-time path against arithmetic written out here: a tone's level
/// from the Hann window's coherent gain, every FFT accounted for, the
/// shortest burst certain to read its full level, DC removal.
@Suite struct RealtimeSpectrumTests {
    /// int8 I/Q of a complex tone: `amplitude` [int8 units] at `cyclesPerSample`, on for samples in `on` (all when nil)
    static func tone(samples: Int, amplitude: Double, cyclesPerSample: Double, on: Range<Int>? = nil,
                     dc: (Double, Double) = (0, 0)) -> [Int8] {
        var bytes = [Int8](repeating: 0, count: 2 * samples)
        for k in 0..<samples {
            let a = on.map { $0.contains(k) } ?? true ? amplitude : 0
            let phase = 2 * Double.pi * cyclesPerSample * Double(k)
            bytes[2 * k] = Int8(max(-127, min(127, (a * cos(phase) + dc.0).rounded())))
            bytes[2 * k + 1] = Int8(max(-127, min(127, (a * sin(phase) + dc.1).rounded())))
        }
        return bytes
    }

    /// all frames' levels for `bytes`
    static func frames(_ spectrum: RealtimeSpectrum, _ bytes: [Int8]) -> [(levels: [Float], ffts: Int)] {
        var out: [([Float], Int)] = []
        bytes.withUnsafeBytes { raw in spectrum.consume(raw) { out.append((Array($0), $1)) } }
        return out
    }

    /// |X/N|² of a tone of amplitude A at a bin centre through the window w/128: (A/128 · Σw/N)², in dB
    static func expectedToneDB(amplitude: Double, fftSize n: Int) -> Double {
        var sum = 0.0
        for i in 0..<n { sum += 0.5 * (1 - cos(2 * Double.pi * Double(i) / Double(n - 1))) }
        let coherent = amplitude / 128 * sum / Double(n)
        return 10 * log10(coherent * coherent)
    }

    @Test func aToneReadsTheWindowsCoherentGainAtItsBin() {
        let n = 1024
        // frames of 10e6 / 512 / 1000 ≈ 20 FFTs
        let spectrum = RealtimeSpectrum(fftSize: n, sampleRateHz: 10e6, detector: .average, format: .int8,
                                        framesPerSecond: 1000, removeDC: false)
        let bin = 100  // cycles per N samples: the tone sits on centred bin N/2 + 100
        let frames = Self.frames(spectrum, Self.tone(samples: 40_000, amplitude: 60, cyclesPerSample: Double(bin) / Double(n)))
        let first = try! #require(frames.first)
        let level = Double(first.levels[n / 2 + bin])
        let expected = Self.expectedToneDB(amplitude: 60, fftSize: n)
        // int8 rounding of the tone costs far less than 0.05 dB at amplitude 60
        #expect(abs(level - expected) < 0.05, "tone \(level) dB, coherent gain says \(expected) dB")
        #expect(first.levels.indices.max { first.levels[$0] < first.levels[$1] } == n / 2 + bin)
    }

    @Test func everyFFTIsCountedOnceAndFramesPartitionThem() {
        let n = 512
        let spectrum = RealtimeSpectrum(fftSize: n, sampleRateHz: 1e6, detector: .peak, format: .int8,
                                        framesPerSecond: 100)
        #expect(spectrum.hop == n / 2 && spectrum.overlap == 0.5)
        let samples = 123_457
        let bytes = Self.tone(samples: samples, amplitude: 10, cyclesPerSample: 0.1)
        var frames: [Int] = []
        // fed in odd-sized pieces, as USB transfers arrive
        var offset = 0
        var piece = 777
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let end = min(raw.count, offset + 2 * piece)
                spectrum.consume(UnsafeRawBufferPointer(rebasing: raw[offset..<end])) { _, ffts in frames.append(ffts) }
                offset = end
                piece = piece * 7 % 5003 + 1
            }
        }
        // windows start every hop samples while a whole window fits: ⌊(S − N)/hop⌋ + 1
        let expectedFFTs = (samples - n) / (n / 2) + 1
        #expect(spectrum.fftCount == expectedFFTs)
        #expect(spectrum.sampleCount == samples)
        // 1e6 / 256 / 100 = 39.06… → 39 FFTs per frame, each frame exactly that many
        #expect(spectrum.fftsPerFrame == 39)
        // what the status line states before any spectrum exists is what the spectrum does
        #expect(RealtimeSpectrum.analysis(fftSize: n, sampleRateHz: 1e6, framesPerSecond: 100) == spectrum.analysis)
        #expect(abs(spectrum.frameSeconds - 39.0 * 256 / 1e6) < 1e-12)
        #expect(frames.allSatisfy { $0 == 39 } && frames.count == expectedFFTs / 39)
    }

    /// A burst of N + hop − 1 samples fills one whole window wherever it
    /// starts, so the peak detector reads the steady tone's level; a burst of
    /// N/2 samples does not (a Hann window half filled reads at least 4 dB low at some alignment).
    @Test func theStatedShortestBurstReadsItsFullLevelAtEveryAlignment() {
        let n = 256
        let probe = RealtimeSpectrum(fftSize: n, sampleRateHz: 1e6, detector: .peak, format: .int8)
        let shortest = Int((probe.fullAmplitudeBurstSeconds * 1e6).rounded())
        #expect(shortest == n + n / 2 - 1)
        let full = Self.expectedToneDB(amplitude: 80, fftSize: n)
        var worstShortest = Double.infinity, worstHalf = Double.infinity
        for start in stride(from: 1000, to: 1000 + n / 2, by: 7) {
            for (length, isShortest) in [(shortest, true), (n / 2, false)] {
                // frames of 40 FFTs (5248 samples): the first holds the whole burst
                let spectrum = RealtimeSpectrum(fftSize: n, sampleRateHz: 1e6, detector: .peak, format: .int8,
                                                framesPerSecond: 1e6 / Double(40 * n / 2), removeDC: false)
                let bytes = Self.tone(samples: 6_000, amplitude: 80, cyclesPerSample: 32.0 / Double(n),
                                      on: start..<(start + length))
                let level = Double(Self.frames(spectrum, bytes)[0].levels[n / 2 + 32])
                if isShortest { worstShortest = min(worstShortest, level) } else { worstHalf = min(worstHalf, level) }
            }
        }
        #expect(abs(worstShortest - full) < 0.05, "shortest stated burst: worst \(worstShortest) dB, full \(full) dB")
        #expect(worstHalf < full - 4, "a burst of N/2: worst \(worstHalf) dB")
    }

    @Test func theDCOffsetIsRemovedAndSignalsBesideItKept() {
        let n = 1024
        let cycles = 200.0 / Double(n)
        let bytes = Self.tone(samples: 200_000, amplitude: 20, cyclesPerSample: cycles, dc: (6, -4))
        func centreAndTone(_ removeDC: Bool) -> (centre: Float, tone: Float) {
            let spectrum = RealtimeSpectrum(fftSize: n, sampleRateHz: 1e6, detector: .average, format: .int8,
                                            framesPerSecond: 10, removeDC: removeDC)
            let last = Self.frames(spectrum, bytes).last!.levels
            return (last[n / 2], last[n / 2 + 200])
        }
        let kept = centreAndTone(false), removed = centreAndTone(true)
        // DC of (6, −4) int8 units: |X/N|² = (√52/128 · Σw/N)², about −31 dB
        #expect(kept.centre > -33, "without removal the centre bin holds the offset: \(kept.centre) dB")
        #expect(removed.centre < kept.centre - 40, "removed: \(removed.centre) dB, kept \(kept.centre) dB")
        #expect(abs(removed.tone - kept.tone) < 0.01, "the tone beside it: \(removed.tone) vs \(kept.tone) dB")
    }

    @Test func uint8SamplesAreCentredOnHalfScaleAsRTLSDRDelivers() throws {
        let n = 512
        var bytes = [UInt8](repeating: 0, count: 2 * 20_000)
        for k in 0..<20_000 {
            let phase = 2 * Double.pi * 50 / Double(n) * Double(k)
            bytes[2 * k] = UInt8((127.5 + 60 * cos(phase)).rounded())
            bytes[2 * k + 1] = UInt8((127.5 + 60 * sin(phase)).rounded())
        }
        // frames of 2.4e6 / 256 / 1000 ≈ 9 FFTs
        let spectrum = RealtimeSpectrum(fftSize: n, sampleRateHz: 2.4e6, detector: .average, format: .uint8,
                                        framesPerSecond: 1000, removeDC: false)
        var levels: [Float] = []
        bytes.withUnsafeBytes { raw in spectrum.consume(raw) { bins, _ in levels = Array(bins) } }
        try #require(levels.count == n)
        let expected = Self.expectedToneDB(amplitude: 60, fftSize: n)
        #expect(abs(Double(levels[n / 2 + 50]) - expected) < 0.1, "\(levels[n / 2 + 50]) vs \(expected)")
    }

    @Test func aBandPlanKeepsTheBinsInsideTheBand() throws {
        let band = try #require(FrequencyRangeFixture.band(430e6, 440e6))
        let plan = RealtimeBandPlan(band: band, centreHz: 435e6, sampleRateHz: 12.5e6, binWidthHz: 50_000)
        // 12.5e6 / 50e3 = 250 → 256 bins of 48.8 kHz
        #expect(plan.fftSize == 256)
        let first = plan.frameStartHz + plan.binWidthHz / 2
        let last = first + Double(plan.keptBins.count - 1) * plan.binWidthHz
        #expect(first >= band.lowerHz && first - plan.binWidthHz < band.lowerHz)
        #expect(last <= band.upperHz && last + plan.binWidthHz > band.upperHz)
    }

    @Test func modeAutoIsRealtimeOnlyWhereTheBandFits() {
        #expect(AnalysisMode.auto.watchesInRealTime(widthHz: 20e6, realtimeLimitHz: 20e6))
        #expect(!AnalysisMode.auto.watchesInRealTime(widthHz: 20.1e6, realtimeLimitHz: 20e6))
        #expect(!AnalysisMode.auto.watchesInRealTime(widthHz: 1e6, realtimeLimitHz: nil))
        #expect(!AnalysisMode.sweep.watchesInRealTime(widthHz: 1e6, realtimeLimitHz: 20e6))
        #expect(AnalysisMode.realtime.watchesInRealTime(widthHz: 40e6, realtimeLimitHz: 20e6))
    }
}

import Signals

enum FrequencyRangeFixture {
    static func band(_ lower: Double, _ upper: Double) -> FrequencyRange? { FrequencyRange(lowerHz: lower, upperHz: upper) }
}

/// Every detector kept at once (a sensor serving viewers that ask for
/// different detectors): each plane equals what a spectrum running that
/// detector alone makes from the same samples — swept blocks and a
/// real-time stream alike — on a signal whose detectors disagree (a tone
/// switched on for part of the dwell over noise).
@Suite struct EveryDetectorTests {
    /// noise of ±20 int8 units, a tone of 70 on samples `on`
    static func signal(samples: Int, on: Range<Int>) -> [Int8] {
        var random = SystemRandomNumberGenerator()
        let tone = RealtimeSpectrumTests.tone(samples: samples, amplitude: 70, cyclesPerSample: 0.125, on: on)
        return tone.map { Int8(clamping: Int($0) + Int.random(in: -20...20, using: &random)) }
    }

    @Test(arguments: [SpectrumDetector.peak, .average, .sample])
    func sweptPlanesEqualEachDetectorAlone(primary: SpectrumDetector) throws {
        let n = 400, usable = 8187
        // the tone in the first third of the block only: peak sees it, sample (the last N) does not
        let block = Self.signal(samples: usable, on: 0..<2700)
        let every = SweepFFT(fftSize: n, detector: primary, maxSamples: usable, keepingEveryDetector: true)
        let returned = block.withUnsafeBytes { Array(every.process($0)) }
        let quarters = Dictionary(uniqueKeysWithValues: [SpectrumDetector.peak, .average, .sample].map { detector in
            (detector, try! #require(every.quarters(by: detector)))
        })
        for detector in [SpectrumDetector.peak, .average, .sample] {
            let alone = SweepFFT(fftSize: n, detector: detector, maxSamples: usable)
            let expected = block.withUnsafeBytes { Array(alone.process($0)) }
            let plane = quarters[detector]!
            let lower = Array(plane.lower), upper = Array(plane.upper)
            #expect(zip(lower, expected[alone.lowerQuarterStart...]).allSatisfy { abs($0 - $1) < 1e-3 }, "\(detector)")
            #expect(zip(upper, expected[alone.upperQuarterStart...]).allSatisfy { abs($0 - $1) < 1e-3 }, "\(detector)")
            if detector == primary || (detector == .average && primary == .rms) {
                #expect(zip(returned, expected).allSatisfy { abs($0 - $1) < 1e-3 }, "process returns \(primary)'s")
            }
        }
        // the planes disagree where the tone is (else the test could not fail on a swapped plane)
        let peak = quarters[.peak]!, sample = quarters[.sample]!
        let joinedPeak = Array(peak.upper) + Array(peak.lower), joinedSample = Array(sample.upper) + Array(sample.lower)
        let toneBin = joinedPeak.indices.max { joinedPeak[$0] < joinedPeak[$1] }!
        #expect(joinedPeak[toneBin] - joinedSample[toneBin] > 10, "peak \(joinedPeak[toneBin]), sample \(joinedSample[toneBin]) dB")
        #expect(SweepFFT(fftSize: n, detector: .peak, maxSamples: usable).quarters(by: .peak) == nil)
    }

    @Test(arguments: [SpectrumDetector.peak, .average, .sample])
    func realtimePlanesEqualEachDetectorAlone(primary: SpectrumDetector) throws {
        let n = 512
        // frames of 39 FFTs (10 000 samples); the tone on for 1000 of every 5120 samples
        let samples = 5120 * 6
        var bytes = Self.signal(samples: samples, on: 0..<0)
        let tone = RealtimeSpectrumTests.tone(samples: samples, amplitude: 70, cyclesPerSample: 0.125)
        for k in 0..<samples where k % 5120 < 1000 {
            bytes[2 * k] = Int8(clamping: Int(bytes[2 * k]) + Int(tone[2 * k]))
            bytes[2 * k + 1] = Int8(clamping: Int(bytes[2 * k + 1]) + Int(tone[2 * k + 1]))
        }
        func spectrum(_ detector: SpectrumDetector, every: Bool) -> RealtimeSpectrum {
            RealtimeSpectrum(fftSize: n, sampleRateHz: 1e6, detector: detector, format: .int8, framesPerSecond: 100,
                             removeDC: false, keepEveryDetector: every)
        }
        let every = spectrum(primary, every: true)
        var planes: [[SpectrumDetector: [Float]]] = []
        var returned: [[Float]] = []
        bytes.withUnsafeBytes { raw in
            every.consume(raw) { levels, _ in
                returned.append(Array(levels))
                planes.append(Dictionary(uniqueKeysWithValues: [SpectrumDetector.peak, .average, .sample].map {
                    ($0, Array(every.levels(by: $0)!))
                }))
            }
        }
        #expect(planes.count >= 3)
        for detector in [SpectrumDetector.peak, .average, .sample] {
            let alone = RealtimeSpectrumTests.frames(spectrum(detector, every: false), bytes).map(\.levels)
            #expect(alone.count == planes.count)
            for (frame, expected) in zip(planes, alone) {
                #expect(zip(frame[detector]!, expected).allSatisfy { abs($0 - $1) < 1e-3 }, "\(detector)")
            }
            if detector == primary {
                for (got, expected) in zip(returned, alone) {
                    #expect(zip(got, expected).allSatisfy { abs($0 - $1) < 1e-3 }, "consume gives \(primary)'s")
                }
            }
        }
        // peak and average differ at the tone's bin (n/2 + n/8) in every frame
        for frame in planes {
            #expect(frame[.peak]![n / 2 + n / 8] - frame[.average]![n / 2 + n / 8] > 3)
        }
        #expect(spectrum(.peak, every: false).levels(by: .peak) == nil)
    }
}
