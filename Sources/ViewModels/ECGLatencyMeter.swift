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
