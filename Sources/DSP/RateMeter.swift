/// Measures an event rate (frames/s, sweeps/s) over a sliding window for the
/// status line.
///
/// Keeps the times of recent events in a ring allocated once; the rate is
/// (events − 1) / (newest − oldest) over the events inside the window, which
/// is exact for a steady stream even at a few events per second. With fewer
/// than two events in the window the rate is 0. If more events than the
/// ring holds arrive within a window, the ring keeps the newest ones and the
/// estimate stays correct over their shorter span.
public struct RateMeter: Sendable {
    /// length of the window [s]
    public let windowSeconds: Double
    /// event times [s, monotonic], a ring
    private var times: [Double]
    /// index of the oldest stored event
    private var head = 0
    /// stored events
    private var count = 0

    /// - Parameters:
    ///   - windowSeconds: sliding window [s]; non-positive or non-finite → 1 s
    ///   - capacity: most events remembered (≥ 2)
    public init(windowSeconds: Double = 1, capacity: Int = 1024) {
        self.windowSeconds = windowSeconds.isFinite && windowSeconds > 0 ? windowSeconds : 1
        times = [Double](repeating: 0, count: max(2, capacity))
    }

    /// Notes one event at `monotonicSeconds`.
    public mutating func record(at monotonicSeconds: Double) {
        if count == times.count {
            times[head] = monotonicSeconds
            head = (head + 1) % times.count
        } else {
            times[(head + count) % times.count] = monotonicSeconds
            count += 1
        }
    }

    /// Events per second over the window ending at `monotonicSeconds`.
    public mutating func rate(at monotonicSeconds: Double) -> Double {
        let windowStart = monotonicSeconds - windowSeconds
        while count > 0, times[head] <= windowStart {
            head = (head + 1) % times.count
            count -= 1
        }
        guard count >= 2 else { return 0 }
        let newest = times[(head + count - 1) % times.count]
        let span = newest - times[head]
        guard span > 0 else { return 0 }
        return Double(count - 1) / span
    }
}
