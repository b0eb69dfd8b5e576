/// A frame reader that can jump to a time: what `Playback` plays.
public protocol SeekableSpectrumFrameReader: SpectrumFrameReader {
    /// timestamps of the first and last frame [s since the Unix epoch, UTC];
    /// nil for a file without frames
    var timeRange: ClosedRange<Double>? { get }
    var frameCount: Int { get }
    /// Positions the reader so that `next` returns the first frame whose
    /// timestamp is at or after `time` (none if `time` is past the last).
    func seek(toTime time: Double) throws
}
