/// Sample-to-screen latency of the last few hundred frames: for each drawn
/// frame, the time from the newest drawn sample's arrival in the pipeline to
/// the end of the frame's terminal write. Storage (the ring and the sorting
/// scratch) is allocated at init.
public struct ECGLatencyMeter: Sendable {
    /// recent latencies [s], a ring
    private var samples: [Double]
    /// where the next latency goes
    private var next = 0
    /// latencies recorded, up to the ring size
    public private(set) var count = 0
    private var scratch: [Double]

    public init(capacity: Int = 512) {
        samples = [Double](repeating: 0, count: max(1, capacity))
        scratch = samples
    }

    public mutating func record(seconds: Double) {
        guard seconds.isFinite, seconds >= 0 else { return }
        samples[next] = seconds
        next = (next + 1) % samples.count
        count = min(count + 1, samples.count)
    }

    /// The `fraction` quantile (0…1, nearest rank) of the recorded latencies [s]; nil before any.
    public mutating func quantile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let held = count
        scratch.withUnsafeMutableBufferPointer { sorted in
            var held = UnsafeMutableBufferPointer(rebasing: sorted[0..<held])
            samples.withUnsafeBufferPointer { recorded in
                _ = held.update(fromContentsOf: recorded[0..<held.count])
            }
            held.sort()
        }
        let rank = Int((min(max(fraction, 0), 1) * Double(held)).rounded(.up)) - 1
        return scratch[min(max(rank, 0), held - 1)]
    }

    public mutating func reset() {
        next = 0
        count = 0
    }
}

/// Every latency of a whole run in 1 ms bins (up to 10 s; beyond in the last
/// bin), so a run's quantiles cover all of it in fixed memory: the closing
/// line of `ecg watch`, where `ECGLatencyMeter` keeps only the recent ones.
public struct LatencyHistogram: Sendable {
    /// bin width [s]
    public static let binSeconds = 0.001
    private var bins: [Int]
    /// latencies recorded
    public private(set) var count = 0
    /// the largest recorded [s]
    public private(set) var maximum = 0.0

    public init(maximumSeconds: Double = 10) {
        bins = [Int](repeating: 0, count: Int((maximumSeconds / Self.binSeconds).rounded()) + 1)
    }

    public mutating func record(seconds: Double) {
        guard seconds.isFinite, seconds >= 0 else { return }
        bins[min(bins.count - 1, Int(seconds / Self.binSeconds))] += 1
        count += 1
        maximum = max(maximum, seconds)
    }

    /// The `fraction` quantile (nearest rank) [s], as the upper edge of its bin
    /// (never below the true value, at most 1 ms above); nil before any.
    public func quantile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((min(max(fraction, 0), 1) * Double(count)).rounded(.up)))
        var seen = 0
        for (bin, held) in bins.enumerated() {
            seen += held
            // the last bin holds everything beyond the range: its upper edge is the maximum
            if seen >= rank { return bin == bins.count - 1 ? maximum : min(maximum, Double(bin + 1) * Self.binSeconds) }
        }
        return maximum
    }
}
