/// One pulse of a zero-span trace.
public struct MeasuredPulse: Sendable, Equatable {
    /// where its power first reaches 3 dB below its peak, from the trace's first point [s]
    public var startSeconds: Double
    /// between the −3 dB crossings of its rising and falling edges [s]
    public var widthSeconds: Double
    /// its largest point [dB]
    public var peakDB: Double
    /// the envelope's (voltage's) 10–90 % on the rising edge: from 20 dB to 0.915 dB below the peak [s];
    /// nil when the floor is within 30 dB of the peak or the edge lies outside the trace
    public var riseSeconds: Double?
    /// the same on the falling edge [s]
    public var fallSeconds: Double?
}

/// A trace's pulses and what they add up to.
public struct PulseTrain: Sendable, Equatable {
    /// every pulse whose both −3 dB crossings lie in the trace, in time order
    public var pulses: [MeasuredPulse]
    /// mean spacing of consecutive pulses' starts [s]; nil with fewer than two
    public var periodSeconds: Double?
    /// mean width ÷ period; nil without a period
    public var duty: Double?
    /// means over the pulses that have them [s]
    public var riseSeconds: Double?
    public var fallSeconds: Double?
    /// the trace's floor: its 10th-percentile level [dB]
    public var floorDB: Double
}

/// Pulse timing over a zero-span power trace, as a bench analyzer's pulse
/// measurements read it (pure functions; Keysight's and IEEE 181's
/// conventions: width at −3 dB of the peak, i.e. half power; rise and fall
/// 10–90 % of the envelope's voltage).
///
/// A pulse is a run of points at or above the detection level, halfway in
/// dB between the trace's floor (10th percentile) and its highest point;
/// a trace whose highest point is less than 10 dB over the floor has none.
/// Crossings are interpolated linearly in dB between points. The points are
/// positive peaks over `pointSeconds`: on a rising edge a point's value is
/// its last sample's, on a falling edge its first's, and the crossings are
/// timed so (`sampleSeconds` is one sample), which removes the detector's
/// widening of a pulse by one point.
public enum PulseMeasurement {
    /// levels below the peak of the envelope's 10 % and 90 % voltage [dB]
    static let tenPercentDB = -20.0
    /// 20·log10(0.9)
    static let ninetyPercentDB = -0.9151498112135022

    public static func measure(levelsDB: [Float], pointSeconds: Double, sampleSeconds: Double) -> PulseTrain {
        levelsDB.withUnsafeBufferPointer { measure($0, pointSeconds: pointSeconds, sampleSeconds: sampleSeconds) }
    }

    public static func measure(_ levels: UnsafeBufferPointer<Float>, pointSeconds: Double,
                               sampleSeconds: Double) -> PulseTrain {
        let finite = levels.filter { $0.isFinite }.sorted()
        guard let top = finite.last else { return PulseTrain(pulses: [], floorDB: -.infinity) }
        let floor = Double(finite[finite.count / 10])
        var train = PulseTrain(pulses: [], floorDB: floor)
        guard Double(top) - floor >= 10 else { return train }
        let detection = (floor + Double(top)) / 2
        let edges = Edges(levels: levels, pointSeconds: pointSeconds, sampleSeconds: sampleSeconds)
        var k = 0
        while k < levels.count {
            guard Double(levels[k]) >= detection else { k += 1; continue }
            var end = k
            var peak = Double(levels[k])
            while end + 1 < levels.count, Double(levels[end + 1]) >= detection {
                end += 1
                peak = max(peak, Double(levels[end]))
            }
            let run = k...end
            k = end + 1
            guard let on = edges.rising(to: peak - 3, run: run, detection: detection),
                  let off = edges.falling(to: peak - 3, run: run, detection: detection) else { continue }
            var pulse = MeasuredPulse(startSeconds: on, widthSeconds: off - on, peakDB: peak)
            if peak + tenPercentDB >= floor + 10 {
                if let low = edges.rising(to: peak + tenPercentDB, run: run, detection: detection),
                   let high = edges.rising(to: peak + ninetyPercentDB, run: run, detection: detection) {
                    pulse.riseSeconds = high - low
                }
                if let high = edges.falling(to: peak + ninetyPercentDB, run: run, detection: detection),
                   let low = edges.falling(to: peak + tenPercentDB, run: run, detection: detection) {
                    pulse.fallSeconds = low - high
                }
            }
            train.pulses.append(pulse)
        }
        let pulses = train.pulses
        if pulses.count >= 2 {
            let period = (pulses.last!.startSeconds - pulses.first!.startSeconds) / Double(pulses.count - 1)
            train.periodSeconds = period
            train.duty = pulses.map(\.widthSeconds).reduce(0, +) / Double(pulses.count) / period
        }
        train.riseSeconds = mean(pulses.compactMap(\.riseSeconds))
        train.fallSeconds = mean(pulses.compactMap(\.fallSeconds))
        return train
    }

    private static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// Where a pulse's edges cross a level, outermost first: a level at or above the detection level is
    /// sought inside the run from its ends (a dip in the pulse's top is not an edge); one below it
    /// outside the run, from the run outwards.
    private struct Edges {
        let levels: UnsafeBufferPointer<Float>
        let pointSeconds: Double
        let sampleSeconds: Double

        func value(_ k: Int) -> Double { Double(levels[k]) }
        /// a peak point's time on a rising edge: its last sample
        func risingTime(_ k: Double) -> Double { (k + 1) * pointSeconds - sampleSeconds }
        /// on a falling edge: its first sample
        func fallingTime(_ k: Double) -> Double { k * pointSeconds }

        /// the fractional point between `below` (under `level`) and `above` (at or over it)
        func between(_ below: Int, _ above: Int, _ level: Double) -> Double {
            let a = value(below), b = value(above)
            let f = b > a ? (level - a) / (b - a) : 1
            return Double(below) + f * Double(above - below)
        }

        func rising(to level: Double, run: ClosedRange<Int>, detection: Double) -> Double? {
            if level >= detection {
                guard let over = run.first(where: { value($0) >= level }), over > 0 else { return nil }
                return risingTime(between(over - 1, over, level))
            }
            var k = run.lowerBound - 1
            while k >= 0, value(k) >= level { k -= 1 }
            guard k >= 0 else { return nil }
            return risingTime(between(k, k + 1, level))
        }

        func falling(to level: Double, run: ClosedRange<Int>, detection: Double) -> Double? {
            if level >= detection {
                guard let over = run.reversed().first(where: { value($0) >= level }), over + 1 < levels.count else {
                    return nil
                }
                return fallingTime(between(over + 1, over, level))
            }
            var k = run.upperBound + 1
            while k < levels.count, value(k) >= level { k += 1 }
            guard k < levels.count else { return nil }
            return fallingTime(between(k, k - 1, level))
        }
    }
}
