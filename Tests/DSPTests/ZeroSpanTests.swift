import Foundation
import Signals
import Testing
@testable import DSP

/// Zero span's filter, trace assembly and pulse measurement, each against
/// an independent computation: the filter's −3 dB width from a DFT of its
/// impulse response, its rise time from its step response; pulse timing on
/// envelopes whose crossings are known in closed form.
@Suite struct ZeroSpanTests {
    /// The −3 dB bandwidth of a filter, from its impulse response: |H(f)|² by a direct DFT sum, the
    /// half-power frequency found by bisection, doubled (the filter is symmetric about 0 Hz).
    static func measuredBandwidth(rbwHz: Double, sampleRateHz: Double) throws -> Double {
        var filter = try #require(ZeroSpanRBWFilter(rbwHz: rbwHz, sampleRateHz: sampleRateHz))
        // long enough for the response to die away: 40 time constants of one stage
        let length = Int(40 / filter.alpha) + 64
        var h: [(Double, Double)] = []
        h.reserveCapacity(length)
        for n in 0..<length { h.append(filter.filter(i: n == 0 ? 1 : 0, q: 0)) }
        func power(_ f: Double) -> Double {
            var re = 0.0, im = 0.0
            let w = 2 * Double.pi * f / sampleRateHz
            for (n, (i, q)) in h.enumerated() {
                let c = cos(w * Double(n)), s = sin(w * Double(n))
                re += i * c + q * s
                im += q * c - i * s
            }
            return re * re + im * im
        }
        let dc = power(0)
        var low = 0.0, high = sampleRateHz / 2
        for _ in 0..<40 {
            let mid = (low + high) / 2
            if power(mid) / dc > 0.5 { low = mid } else { high = mid }
        }
        return low + high
    }

    @Test(arguments: [(1e6, 8e6), (100e3, 8e6), (2.5e6, 20e6), (300e3, 2.4e6), (10e3, 2.4e6)])
    func theFiltersMinus3dBBandwidthIsTheRBW(rbw: Double, rate: Double) throws {
        let measured = try Self.measuredBandwidth(rbwHz: rbw, sampleRateHz: rate)
        #expect(abs(measured / rbw - 1) < 0.005, "RBW \(rbw) Hz at \(rate) S/s: −3 dB width \(measured) Hz")
    }

    /// The envelope's 10–90 % rise time of the step response, against the analog prototype's 0.683/RBW.
    @Test(arguments: [(1e6, 8e6), (100e3, 8e6), (300e3, 2.4e6)])
    func riseTimeIsAboutPoint68OverRBW(rbw: Double, rate: Double) throws {
        var filter = try #require(ZeroSpanRBWFilter(rbwHz: rbw, sampleRateHz: rate))
        // each crossing interpolated between the samples either side of it
        var ten: Double?, ninety: Double?, previous = 0.0
        for n in 0..<Int(20 * rate / rbw) {
            let y = filter.filter(i: 1, q: 0).i
            if ten == nil, y >= 0.1 { ten = Double(n) - (y - 0.1) / (y - previous) }
            if ninety == nil, y >= 0.9 { ninety = Double(n) - (y - 0.9) / (y - previous); break }
            previous = y
        }
        let rise = (try #require(ninety) - (try #require(ten))) / rate
        #expect(abs(rise * rbw / ZeroSpanRBWFilter.riseTimeTimesRBW - 1) < 0.03, "rise \(rise * 1e6) µs at RBW \(rbw)")
    }

    /// dB of a power trace built from an amplitude envelope: pulses rising linearly over `ramp`, flat,
    /// falling over `ramp`, on a −80 dB floor; one point per `dt`.
    static func trapezoids(starts: [Double], flat: Double, ramp: Double, dt: Double, count: Int,
                           peakDB: Double = -10) -> [Float] {
        (0..<count).map { k in
            let t = Double(k) * dt
            var amplitude = 0.0
            for start in starts {
                let x = t - start
                if x >= 0, x < ramp { amplitude = max(amplitude, x / ramp) }
                if x >= ramp, x <= ramp + flat { amplitude = 1 }
                if x > ramp + flat, x < 2 * ramp + flat { amplitude = max(amplitude, 1 - (x - ramp - flat) / ramp) }
            }
            let power = amplitude * amplitude * pow(10, peakDB / 10) + 1e-8
            return Float(10 * log10(power))
        }
    }

    @Test func pulseWidthPeriodDutyRiseAndFallOfTrapezoids() {
        // three pulses every 300 µs, ramps 10 µs, flat 50 µs, points every 0.1 µs
        let ramp = 10e-6, flat = 50e-6, dt = 0.1e-6
        let levels = Self.trapezoids(starts: [20e-6, 320e-6, 620e-6], flat: flat, ramp: ramp, dt: dt, count: 9000)
        let train = PulseMeasurement.measure(levelsDB: levels, pointSeconds: dt, sampleSeconds: dt)
        #expect(train.pulses.count == 3)
        // closed form: −3 dB where the amplitude is 1/√2: 0.7071 of the way up, 0.2929 of the way down
        let up = ramp / 2.0.squareRoot()
        let width = flat + ramp + ramp * (1 - 1 / 2.0.squareRoot()) - up
        for (k, pulse) in train.pulses.enumerated() {
            #expect(abs(pulse.startSeconds - (20e-6 + 300e-6 * Double(k) + up)) < 0.05e-6, "start \(pulse.startSeconds)")
            #expect(abs(pulse.widthSeconds - width) < 0.05e-6, "width \(pulse.widthSeconds) vs \(width)")
            #expect(abs(pulse.peakDB - -10) < 0.01)
            // 10–90 % of the amplitude: 0.8 of the ramp, each way
            #expect(abs((pulse.riseSeconds ?? 0) - 0.8 * ramp) < 0.3e-6, "rise \(pulse.riseSeconds ?? .nan)")
            #expect(abs((pulse.fallSeconds ?? 0) - 0.8 * ramp) < 0.3e-6, "fall \(pulse.fallSeconds ?? .nan)")
        }
        #expect(abs((train.periodSeconds ?? 0) - 300e-6) < 0.05e-6)
        #expect(abs((train.duty ?? 0) - width / 300e-6) < 1e-3)
        #expect(abs(train.floorDB - -80) < 0.1)
    }

    @Test func aPulseCutByTheTraceEdgeIsLeftOutAndAFlatTraceHasNone() {
        let dt = 1e-6
        let cut = Self.trapezoids(starts: [-20e-6, 100e-6], flat: 40e-6, ramp: 2e-6, dt: dt, count: 400)
        let train = PulseMeasurement.measure(levelsDB: cut, pointSeconds: dt, sampleSeconds: dt)
        #expect(train.pulses.count == 1)
        #expect(train.periodSeconds == nil && train.duty == nil)
        let flat = [Float](repeating: -50, count: 100)
        #expect(PulseMeasurement.measure(levelsDB: flat, pointSeconds: dt, sampleSeconds: dt).pulses.isEmpty)
    }

    /// With a floor within 30 dB of the peak the 10 % level is lost in it: no rise or fall, the width still read.
    @Test func aLowPulseHasAWidthButNoRiseTime() {
        let dt = 0.1e-6
        let levels = Self.trapezoids(starts: [10e-6], flat: 20e-6, ramp: 1e-6, dt: dt, count: 600, peakDB: -60)
        let pulse = PulseMeasurement.measure(levelsDB: levels, pointSeconds: dt, sampleSeconds: dt).pulses.first
        #expect(pulse != nil && pulse?.riseSeconds == nil && pulse?.fallSeconds == nil)
    }

    @Test func triggerSyntax() {
        #expect(ZeroSpanTrigger(parsing: "-40") == ZeroSpanTrigger(levelDB: -40, slope: .rising))
        #expect(ZeroSpanTrigger(parsing: "-40:falling") == ZeroSpanTrigger(levelDB: -40, slope: .falling))
        for bad in ["", "x", "-40:up", "-40:rising:1", "nan", ":rising"] { #expect(ZeroSpanTrigger(parsing: bad) == nil, "\(bad)") }
    }

    @Test func aTriggeredTraceHoldsThePreTriggerPointsBeforeTheCrossing() {
        var builder = ZeroSpanTraceBuilder(points: 10, preTriggerPoints: 3, trigger: ZeroSpanTrigger(levelDB: -30))
        let levels: [Float] = [-50, -50, -50, -50, -50, -20, -20, -50, -50, -50, -50, -50, -50, -50, -50]
        var finished: [(Int, [Float])] = []
        for (k, level) in levels.enumerated() where builder.add(level, firstSample: 100 * k) {
            finished.append((builder.firstSample, builder.levelsDB))
        }
        #expect(finished.count == 1)
        // the crossing at point 5 lands 3 points in: the trace starts at point 2
        #expect(finished.first?.0 == 200)
        #expect(finished.first?.1 == Array(levels[2..<12]))
    }

    @Test func fallingSlopeAndFreeRun() {
        var falling = ZeroSpanTraceBuilder(points: 4, preTriggerPoints: 1, trigger: ZeroSpanTrigger(levelDB: -30, slope: .falling))
        let levels: [Float] = [-20, -20, -20, -50, -50, -50, -50]
        let done = levels.enumerated().filter { falling.add($0.element, firstSample: $0.offset) }.map(\.offset)
        #expect(done == [5])
        #expect(falling.firstSample == 2)
        var free = ZeroSpanTraceBuilder(points: 3, trigger: nil)
        let traces = (0..<10).filter { free.add(Float($0), firstSample: $0) }
        #expect(traces == [2, 5, 8])
    }

    @Test func planChecksEachLimitInOneLine() throws {
        let range = FrequencyRange(lowerHz: 1e6, upperHz: 6e9)!
        func plan(_ f: Double, _ rbw: Double, _ sweep: Double) throws(ZeroSpanError) -> ZeroSpanPlan {
            try ZeroSpanPlan(frequencyHz: f, rbwHz: rbw, sweepSeconds: sweep, sampleRateHz: 8e6, tunableRange: range,
                             device: "the HackRF One")
        }
        #expect(throws: ZeroSpanError.self) { try plan(305e6, 2e6, 1e-3) }
        #expect(throws: ZeroSpanError.self) { try plan(305e6, 1e6, 10e-6) }
        #expect(throws: ZeroSpanError.self) { try plan(305e6, 1e6, 100) }
        #expect(throws: ZeroSpanError.self) { try plan(7e9, 1e6, 1e-3) }
        let ok = try plan(305e6, 1e6, 5e-3)
        #expect(ok.samplesPerPoint == 40 && abs(ok.sweepSeconds - 5e-3) < 1e-12 && ok.tunedHz == 307e6)
    }

    /// The detector end to end on synthetic int8 I/Q: a carrier fs/4 below the radio's tuning, keyed on
    /// for 200 samples in 1000; the trace's pulse is as wide as the burst to within the filter's rise time.
    @Test func detectorReadsASyntheticBurst() throws {
        let rate = 8e6, rbw = 1e6
        let filter = try #require(ZeroSpanRBWFilter(rbwHz: rbw, sampleRateHz: rate))
        let detector = ZeroSpanDetector(filter: filter, format: .int8, samplesPerPoint: 2)
        var bytes = [Int8](repeating: 0, count: 2 * 20_000)
        for n in 0..<20_000 where n % 1000 >= 400 && n % 1000 < 600 {
            // e^{−jπn/2}: the wanted frequency at −fs/4, amplitude 64 (−6 dBFS)
            let phase = -Double.pi / 2 * Double(n)
            bytes[2 * n] = Int8((64 * cos(phase)).rounded())
            bytes[2 * n + 1] = Int8((64 * sin(phase)).rounded())
        }
        var levels: [Float] = []
        bytes.withUnsafeBytes { raw in
            detector.consume(raw) { power, _ in levels.append(Float(10 * log10(max(power, 1e-12)))) }
        }
        let train = PulseMeasurement.measure(levelsDB: levels, pointSeconds: 2 / rate, sampleSeconds: 1 / rate)
        #expect(train.pulses.count >= 18)
        for pulse in train.pulses {
            #expect(abs(pulse.widthSeconds - 25e-6) < filter.riseTimeSeconds, "width \(pulse.widthSeconds)")
            #expect(abs(pulse.peakDB - 20 * log10(0.5)) < 0.2, "peak \(pulse.peakDB)")
        }
        #expect(abs((train.periodSeconds ?? 0) - 125e-6) < 1e-9)
    }
}
