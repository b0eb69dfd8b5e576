import Foundation
import Testing
@testable import ECG
import Signals

@Suite struct FilterTests {
    /// Plain direct-form-I reference: y[n] = b0 x[n] + b1 x[n−1] + b2 x[n−2] − a1 y[n−1] − a2 y[n−2].
    static func reference(_ biquad: Biquad, _ input: [Double]) -> [Double] {
        var output = [Double](repeating: 0, count: input.count)
        for n in input.indices {
            let x1 = n >= 1 ? input[n - 1] : 0, x2 = n >= 2 ? input[n - 2] : 0
            let y1 = n >= 1 ? output[n - 1] : 0, y2 = n >= 2 ? output[n - 2] : 0
            output[n] = biquad.b0 * input[n] + biquad.b1 * x1 + biquad.b2 * x2 - biquad.a1 * y1 - biquad.a2 * y2
        }
        return output
    }

    /// steady-state gain of `stage` for a sine of `frequency` [dB]
    static func gain(_ stage: ECGFilterStage, frequency: Double, sampleRate: Double) -> Double {
        let count = Int(sampleRate * 20)
        var signal = (0..<count).map { Float(sin(2 * Double.pi * frequency * Double($0) / sampleRate)) }
        signal.withUnsafeMutableBufferPointer { stage.process($0) }
        let tail = signal.suffix(Int(sampleRate * 5))
        let rms = (tail.reduce(0.0) { $0 + Double($1 * $1) } / Double(tail.count)).squareRoot()
        return 20 * log10(rms * 2.0.squareRoot())
    }

    @Test func biquadMatchesTheDirectFormReference() {
        var random = SeededRandom(seed: 3)
        let input = (0..<2000).map { _ in random.gaussian() }
        for design in [Biquad.lowPass(cutoff: 40, sampleRate: 360), .highPass(cutoff: 0.5, sampleRate: 1000),
                       .notch(centre: 50, sampleRate: 250, q: 25)] {
            var fast = design
            let output = input.map { fast.process($0) }
            let expected = Self.reference(design, input)
            #expect(zip(output, expected).allSatisfy { abs($0 - $1) < 1e-9 })
        }
    }

    @Test func stagesPassTheECGBandAndStopTheRest() {
        let rate = 500.0
        #expect(Self.gain(BiquadStage.highPass(sampleRate: rate), frequency: 0.05, sampleRate: rate) < -30)
        #expect(abs(Self.gain(BiquadStage.highPass(sampleRate: rate), frequency: 10, sampleRate: rate)) < 0.1)
        #expect(Self.gain(BiquadStage.notch(mains: 50, sampleRate: rate), frequency: 50, sampleRate: rate) < -30)
        #expect(abs(Self.gain(BiquadStage.notch(mains: 60, sampleRate: rate), frequency: 10, sampleRate: rate)) < 0.1)
        #expect(Self.gain(BiquadStage.notch(mains: 60, sampleRate: rate), frequency: 60, sampleRate: rate) < -30)
        #expect(Self.gain(BiquadStage.lowPass(sampleRate: rate), frequency: 150, sampleRate: rate) < -30)
        #expect(abs(Self.gain(BiquadStage.lowPass(sampleRate: rate), frequency: 10, sampleRate: rate)) < 0.1)
    }

    @Test func clipLimitsAndKeepsMissingSamples() {
        var samples: [Float] = [-3, -1, 0, 2, 5, .nan]
        samples.withUnsafeMutableBufferPointer { ClipStage(lower: -2, upper: 2).process($0) }
        #expect(Array(samples.prefix(5)) == [-2, -1, 0, 2, 2])
        #expect(samples[5].isNaN)
    }

    @Test func zeroPhaseKeepsAPulseWhereItWas() {
        let rate = 360.0
        // a QRS-like Gaussian at 2.0 s on a 1 mV offset
        var signal = (0..<Int(rate * 4)).map { n -> Float in
            let t = Double(n) / rate - 2
            return Float(1 + exp(-t * t / (2 * 0.012 * 0.012)))
        }
        let causal = ECGFilterChain.standard(sampleRate: rate)
        var delayed = signal
        causal.process(&delayed)
        ECGFilterChain.standard(sampleRate: rate).zeroPhase(&signal)
        let peak = signal.indices.max { signal[$0] < signal[$1] }!
        let delayedPeak = delayed.indices.max { delayed[$0] < delayed[$1] }!
        #expect(peak == 720)
        #expect(delayedPeak > 720)
        // the offset is gone, the pulse kept most of its height
        #expect(abs(signal[100]) < 0.05)
        #expect(signal[peak] > 0.6)
    }

    @Test func causalChainGivesTheSameResultInAnyChunking() {
        var random = SeededRandom(seed: 11)
        let input = (0..<3000).map { _ in Float(random.gaussian()) }
        var whole = input
        ECGFilterChain.standard(sampleRate: 250, mains: 60).process(&whole)
        let chain = ECGFilterChain.standard(sampleRate: 250, mains: 60)
        var pieces = input
        pieces.withUnsafeMutableBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = min(buffer.count, start + 1 + start % 37)
                chain.process(UnsafeMutableBufferPointer(rebasing: buffer[start..<end]))
                start = end
            }
        }
        #expect(pieces == whole)
        #expect(chain.names == ["highpass", "notch60", "lowpass"])
    }

    /// The chain runs its biquad stages sample by sample together: the same
    /// Float output, to the bit, as running each stage over the whole block in
    /// turn, with missing samples (NaN) and an overflow (∞) that each stage
    /// must pass through without touching its state.
    @Test(arguments: [50.0, nil] as [Double?])
    func fusedBiquadStagesGiveStageByStageOutputToTheBit(mains: Double?) {
        let rate = 300.0
        var signal = (0..<3000).map { index -> Float in
            let t = Double(index) / rate
            return Float(sin(2 * .pi * 1.3 * t) + 0.4 * sin(2 * .pi * 50 * t) + 0.2 * sin(2 * .pi * 17 * t) + 0.3)
        }
        signal[700] = .nan
        signal[701] = .nan
        signal[1500] = .infinity
        // with the notch: the layout written out for speed; without: the general loop
        let fused = ECGFilterChain.standard(sampleRate: rate, mains: mains)
        var together = signal
        // in uneven blocks, as a live source delivers them
        var start = 0
        for length in [1, 7, 300, 299, 1000, 1393] {
            together.withUnsafeMutableBufferPointer { buffer in
                fused.process(UnsafeMutableBufferPointer(rebasing: buffer[start..<(start + length)]))
            }
            start += length
        }
        let alone = ECGFilterChain.standard(sampleRate: rate, mains: mains)
        var oneByOne = signal
        oneByOne.withUnsafeMutableBufferPointer { buffer in
            // primed as the chain primes, then each stage over the whole block
            var value = signal[0]
            for stage in alone.stages {
                stage.prime(with: value)
                value = stage.steadyOutput(for: value)
            }
            for stage in alone.stages { stage.process(buffer) }
        }
        #expect(together.count == oneByOne.count)
        let differing = zip(together, oneByOne).enumerated().filter { $0.element.0.bitPattern != $0.element.1.bitPattern }
        #expect(differing.isEmpty, "\(differing.prefix(5))")
        #expect(together[700].isNaN && together[1500].isInfinite)
        #expect(together[2999].isFinite)
    }
}
