import ECG

/// Facts the ECG status line shows that the model does not hold.
public struct ECGMonitorStatus: Sendable, Equatable {
    /// "synthetic", "mitdb-100", "/dev/ttyUSB0"
    public var sourceName: String
    /// smoothed heart rate [beats/min]; nil when unknown
    public var heartRateBPM: Double?
    /// the rhythm now; nil when no detector runs
    public var rhythm: RhythmStatus?
    /// sample-to-screen latency, 99th percentile of recent frames [s]
    public var latencyP99Seconds: Double?
    /// frames drawn per second, measured
    public var framesPerSecond: Double
    /// the record played out
    public var ended: Bool
    /// a one-line problem to show, or nil
    public var message: String?

    public init(sourceName: String, heartRateBPM: Double? = nil, rhythm: RhythmStatus? = nil,
                latencyP99Seconds: Double? = nil, framesPerSecond: Double = 0, ended: Bool = false,
                message: String? = nil) {
        self.sourceName = sourceName
        self.heartRateBPM = heartRateBPM
        self.rhythm = rhythm
        self.latencyP99Seconds = latencyP99Seconds
        self.framesPerSecond = framesPerSecond
        self.ended = ended
        self.message = message
    }
}
