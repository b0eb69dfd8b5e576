/// Lets through at most `maxFramesPerSecond` frames, on a fixed grid of
/// deadlines so the rate does not drift: each emitted frame moves the next
/// deadline on by exactly one period (not to "now + period"), so frames that
/// arrive a little late are not penalised. When the caller falls more than a
/// period behind, or the clock steps backwards, the grid restarts at the
/// current time instead of releasing a burst of catch-up frames.
public struct FrameRateLimiter: Sendable {
    /// minimum interval between emitted frames [s]; 0 = no limit
    public let period: Double
    /// the next instant a frame may be emitted [s, monotonic]; nil before the first frame
    private var nextDeadline: Double?

    /// `maxFramesPerSecond` ≤ 0, NaN or infinite means no limit.
    public init(maxFramesPerSecond: Double) {
        if maxFramesPerSecond.isFinite, maxFramesPerSecond > 0 {
            period = 1 / maxFramesPerSecond
        } else {
            period = 0
        }
    }

    /// Whether a frame arriving at `monotonicSeconds` should be shown; if so,
    /// the frame counts against the budget.
    public mutating func shouldEmit(at monotonicSeconds: Double) -> Bool {
        guard period > 0 else { return true }
        // Tolerance for rounding in the accumulated deadline [s]; far below
        // any frame period a terminal can show.
        let slack = period * 1e-6
        guard let deadline = nextDeadline else {
            nextDeadline = monotonicSeconds + period
            return true
        }
        if monotonicSeconds < deadline - period - slack {
            // Clock stepped backwards: restart the grid here.
            nextDeadline = monotonicSeconds + period
            return true
        }
        guard monotonicSeconds >= deadline - slack else { return false }
        let following = deadline + period
        nextDeadline = monotonicSeconds >= following ? monotonicSeconds + period : following
        return true
    }

    /// Forget the grid: the next frame is emitted immediately.
    public mutating func reset() { nextDeadline = nil }
}
