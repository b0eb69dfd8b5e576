import Signals

/// Plays a seekable capture against a clock: at the recorded speed times
/// `speed` (0.25…64), with pause, resume and seeking, and reports the
/// playhead (file time, what the waterfall calls "now").
///
/// Pure logic: the caller passes the current monotonic time [s] to every
/// call, so tests drive it with a synthetic clock and the UI loop with the
/// system's monotonic clock. The playhead is an affine function of that time,
/// re-anchored on every change of speed, pause or seek:
///
///     playhead(t) = anchorFile + (t − anchorWall) · speed   (playing)
///     playhead(t) = anchorFile                               (paused)
///
/// clamped to the capture's time range. `frames(upTo:into:)` hands out, in
/// order, every frame whose timestamp the playhead has reached.
public final class Playback {
    /// the speeds offered [× recorded speed]
    public static let speedRange: ClosedRange<Double> = 0.25...64

    public let reader: SeekableSpectrumFrameReader
    /// first and last frame time [s, Unix]; nil for an empty capture
    public let timeRange: ClosedRange<Double>?
    public private(set) var speed: Double = 1
    public private(set) var isPaused = false

    /// monotonic time of the last re-anchoring [s]
    private var anchorWall: Double
    /// playhead at `anchorWall` [s, file time]
    private var anchorFile: Double
    /// the next frame, read ahead of the playhead
    private var pending = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
    private var hasPending = false
    private var readerExhausted = false

    /// Starts playing from the first frame at `wallClock` [s, monotonic].
    public init(reader: SeekableSpectrumFrameReader, startingAt wallClock: Double) throws {
        self.reader = reader
        timeRange = reader.timeRange
        anchorWall = wallClock
        anchorFile = timeRange?.lowerBound ?? 0
        try reader.seek(toTime: anchorFile)
    }

    /// The file time being shown at `wallClock` [s, Unix].
    public func playhead(at wallClock: Double) -> Double {
        let raw = isPaused ? anchorFile : anchorFile + (wallClock - anchorWall) * speed
        return clamped(raw)
    }

    /// Whether every frame has been handed out and the playhead is at the end.
    public func isFinished(at wallClock: Double) -> Bool {
        readerExhausted && !hasPending && playhead(at: wallClock) >= (timeRange?.upperBound ?? 0)
    }

    /// Sets the speed (clamped to `speedRange`) from `wallClock` on.
    public func setSpeed(_ newSpeed: Double, at wallClock: Double) {
        guard newSpeed.isFinite else { return }
        reanchor(at: wallClock)
        speed = min(max(newSpeed, Self.speedRange.lowerBound), Self.speedRange.upperBound)
    }

    /// Doubles (or halves) the speed within `speedRange`: ×0.25, 0.5, 1, 2 … 64.
    public func stepSpeed(faster: Bool, at wallClock: Double) {
        setSpeed(faster ? speed * 2 : speed / 2, at: wallClock)
    }

    public func pause(at wallClock: Double) {
        guard !isPaused else { return }
        reanchor(at: wallClock)
        isPaused = true
    }

    public func resume(at wallClock: Double) {
        guard isPaused else { return }
        isPaused = false
        anchorWall = wallClock
    }

    public func togglePause(at wallClock: Double) {
        isPaused ? resume(at: wallClock) : pause(at: wallClock)
    }

    /// Moves the playhead to file time `time` (clamped to the capture); the
    /// next frames handed out start at the first frame at or after it.
    public func seek(to time: Double, at wallClock: Double) throws {
        guard time.isFinite else { return }
        let target = clamped(time)
        try reader.seek(toTime: target)
        hasPending = false
        readerExhausted = false
        anchorFile = target
        anchorWall = wallClock
    }

    /// Moves the playhead by `seconds` of file time (shift+←/→: ±10 s).
    public func skip(by seconds: Double, at wallClock: Double) throws {
        try seek(to: playhead(at: wallClock) + seconds, at: wallClock)
    }

    /// Hands `deliver` every frame whose timestamp the playhead has reached
    /// by `wallClock`, in order; returns how many. The frame passed is only
    /// valid during the call (its storage is reused).
    @discardableResult
    public func frames(upTo wallClock: Double, into deliver: (SpectrumFrame) -> Void) throws -> Int {
        let head = playhead(at: wallClock)
        var delivered = 0
        while true {
            if !hasPending {
                guard !readerExhausted else { break }
                guard try reader.next(into: &pending) else {
                    readerExhausted = true
                    break
                }
                hasPending = true
            }
            guard pending.timestamp <= head else { break }
            deliver(pending)
            hasPending = false
            delivered += 1
        }
        return delivered
    }

    private func reanchor(at wallClock: Double) {
        anchorFile = playhead(at: wallClock)
        anchorWall = wallClock
    }

    private func clamped(_ time: Double) -> Double {
        guard let timeRange else { return time }
        return min(max(time, timeRange.lowerBound), timeRange.upperBound)
    }
}
