import Signals

/// Drives a replay from the viewer's loop: plays a seekable capture through
/// `Playback` and refills the waterfall after a jump. File times are Unix
/// seconds; positions are seconds from the capture's first frame (what the
/// status line and a typed time use).
///
/// Like `Playback`, every call takes the current monotonic time [s], so the
/// arithmetic is tested with a synthetic clock.
public final class ReplayDriver {
    public let playback: Playback
    private let reader: any SeekableSpectrumFrameReader
    /// scratch for refills, reused
    private var scratch = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])

    /// Starts at `startOffset` [s from the first frame] with `speed`.
    public init(reader: any SeekableSpectrumFrameReader, speed: Double = 1, startOffset: Double = 0,
                at wallClock: Double) throws {
        self.reader = reader
        playback = try Playback(reader: reader, startingAt: wallClock)
        playback.setSpeed(speed, at: wallClock)
        if startOffset != 0 { try playback.seek(to: start + startOffset, at: wallClock) }
    }

    /// first frame's time [s, Unix]
    public var start: Double { playback.timeRange?.lowerBound ?? 0 }
    /// length from first to last frame [s]
    public var duration: Double { playback.timeRange.map { $0.upperBound - $0.lowerBound } ?? 0 }
    public var speed: Double { playback.speed }
    public var isPaused: Bool { playback.isPaused }

    /// The playhead in file time [s, Unix]: the waterfall's "now".
    public func playhead(at wallClock: Double) -> Double { playback.playhead(at: wallClock) }

    /// The playhead as seconds from the first frame.
    public func position(at wallClock: Double) -> Double { playback.playhead(at: wallClock) - start }

    public func isFinished(at wallClock: Double) -> Bool { playback.isFinished(at: wallClock) }

    /// Hands `deliver` every frame the playhead has reached by `wallClock`.
    public func advance(to wallClock: Double, deliver: (SpectrumFrame) -> Void) throws {
        try playback.frames(upTo: wallClock, into: deliver)
    }

    public func togglePause(at wallClock: Double) { playback.togglePause(at: wallClock) }

    /// Doubles or halves the speed within ×0.25…×64.
    public func stepSpeed(faster: Bool, at wallClock: Double) { playback.stepSpeed(faster: faster, at: wallClock) }

    /// Moves the playhead by `seconds` of file time.
    public func skip(by seconds: Double, at wallClock: Double) throws { try playback.skip(by: seconds, at: wallClock) }

    /// Moves the playhead to `offset` seconds from the first frame (clamped).
    public func seek(toOffset offset: Double, at wallClock: Double) throws {
        try playback.seek(to: start + offset, at: wallClock)
    }

    /// Hands `deliver` the frames of the `seconds` before the playhead
    /// (timestamps in [playhead − seconds, playhead)), oldest first, then
    /// puts the reader back so playing goes on from the playhead: after a
    /// seek this refills the waterfall with the picture of that time.
    public func refill(seconds: Double, at wallClock: Double, deliver: (SpectrumFrame) -> Void) throws {
        let head = playhead(at: wallClock)
        guard seconds > 0, seconds.isFinite else { return }
        try reader.seek(toTime: head - seconds)
        while try reader.next(into: &scratch), scratch.timestamp < head {
            deliver(scratch)
        }
        try playback.seek(to: head, at: wallClock)
    }
}
