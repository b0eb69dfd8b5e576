import Signals

/// What a capture store records about one recording session.
public struct CaptureSessionInfo: Sendable, Equatable {
    /// row id in the `sessions` table (1, 2, … in recording order)
    public var id: Int64
    /// start and stop [s since the Unix epoch, UTC]; `stoppedAt` is nil while
    /// recording and after a crash
    public var startedAt: Double
    public var stoppedAt: Double?
    public var label: String?
    public var operatorName: String?
    /// band asked for [Hz]
    public var band: FrequencyRange?
    /// bin width asked for [Hz]
    public var binWidthHz: Double?
    /// frames per second asked for; nil = every frame the device delivered
    public var requestedFrameRate: Double?
    /// frames stored per second of recording
    public var achievedFrameRate: Double?
    public var frames: Int
    /// blocks the device pipeline dropped during the session (DSP fell behind)
    public var droppedBlocks: Int
    /// frames the recorder dropped (the disk fell behind)
    public var droppedFrames: Int
    /// corrupt blocks the device delivered during the session (skipped); 0 in files from before it was stored
    public var badBlocks: Int = 0

    public init(id: Int64 = 0, startedAt: Double, stoppedAt: Double? = nil, label: String? = nil,
                operatorName: String? = nil, band: FrequencyRange? = nil, binWidthHz: Double? = nil,
                requestedFrameRate: Double? = nil, achievedFrameRate: Double? = nil, frames: Int = 0,
                droppedBlocks: Int = 0, droppedFrames: Int = 0) {
        self.id = id
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
        self.label = label
        self.operatorName = operatorName
        self.band = band
        self.binWidthHz = binWidthHz
        self.requestedFrameRate = requestedFrameRate
        self.achievedFrameRate = achievedFrameRate
        self.frames = frames
        self.droppedBlocks = droppedBlocks
        self.droppedFrames = droppedFrames
    }
}

/// How a session ended, stored when the writer finishes.
public struct CaptureSessionOutcome: Sendable, Equatable {
    /// [s since the Unix epoch, UTC]
    public var stoppedAt: Double
    /// frames stored per second of recording
    public var achievedFrameRate: Double
    public var droppedBlocks: Int
    public var droppedFrames: Int
    /// corrupt blocks from the device (skipped, counted)
    public var badBlocks: Int

    public init(stoppedAt: Double, achievedFrameRate: Double, droppedBlocks: Int = 0, droppedFrames: Int = 0,
                badBlocks: Int = 0) {
        self.stoppedAt = stoppedAt
        self.achievedFrameRate = achievedFrameRate
        self.droppedBlocks = droppedBlocks
        self.droppedFrames = droppedFrames
        self.badBlocks = badBlocks
    }
}

/// A time the device delivered nothing during a session (stalled, unplugged,
/// reconnecting): replay shows it as missing, not as a quiet band.
public struct CaptureGap: Sendable, Equatable {
    public var sessionID: Int64
    /// last frame before the gap, Unix time [s]
    public var fromTimestamp: Double
    /// first frame after the gap, Unix time [s]
    public var toTimestamp: Double
    /// e.g. "no data for 1 s", "unplugged"
    public var reason: String

    public init(sessionID: Int64, fromTimestamp: Double, toTimestamp: Double, reason: String) {
        self.sessionID = sessionID
        self.fromTimestamp = fromTimestamp
        self.toTimestamp = toTimestamp
        self.reason = reason
    }
}
