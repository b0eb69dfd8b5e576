import Signals

/// Makes any forward-only `SpectrumFrameReader` seekable for replay, in
/// constant memory: no frames are kept, only one read ahead.
///
/// On open the file is read once to learn its frame count and time range.
/// A seek forward reads on from where the reader is; a seek backward opens
/// the file again and reads forward from its start. Memory stays one frame
/// whatever the file's size; the price is that a backward seek costs a read
/// of the file up to the target (a format whose reader can jump to a byte
/// offset should conform to `SeekableSpectrumFrameReader` itself instead).
public final class ReopeningSeekableReader: SeekableSpectrumFrameReader {
    public let timeRange: ClosedRange<Double>?
    public let frameCount: Int
    public var metadata: CaptureMetadata { reader.metadata }
    public var skipped: Int { reader.skipped }
    public var progress: (done: Int, total: Int?) { reader.progress }

    private let open: () throws -> any SpectrumFrameReader
    private var reader: any SpectrumFrameReader
    /// the frame read ahead by a seek, handed out by the next `next`
    private var lookahead = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
    private var hasLookahead = false
    /// timestamp of the last frame handed out or passed over (not the
    /// lookahead) [s]; nil at the start of the file. Timestamps never
    /// decrease, so every frame before the reader's position is at or before it.
    private var consumedTime: Double?

    /// - Parameter open: opens the file afresh at its first frame (called
    ///   once now for the scan, once to play, and again for each backward seek)
    public init(open: @escaping () throws -> any SpectrumFrameReader) throws {
        self.open = open
        let scan = try open()
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var count = 0
        var first: Double?
        var last: Double?
        while try scan.next(into: &frame) {
            count += 1
            if first == nil { first = frame.timestamp }
            last = frame.timestamp
        }
        frameCount = count
        if let first, let last, first <= last { timeRange = first...last } else { timeRange = nil }
        reader = try open()
    }

    public func next(into frame: inout SpectrumFrame) throws -> Bool {
        if hasLookahead {
            swap(&frame, &lookahead)
            hasLookahead = false
        } else {
            guard try reader.next(into: &frame) else { return false }
        }
        consumedTime = frame.timestamp
        return true
    }

    public func seek(toTime time: Double) throws {
        let canReadOn = consumedTime.map { $0 < time } ?? true
        if canReadOn && hasLookahead {
            if lookahead.timestamp >= time { return }
            consumedTime = lookahead.timestamp
        } else if !canReadOn {
            reader = try open()
            consumedTime = nil
        }
        hasLookahead = false
        while try reader.next(into: &lookahead) {
            if lookahead.timestamp >= time {
                hasLookahead = true
                return
            }
            consumedTime = lookahead.timestamp
        }
    }
}
