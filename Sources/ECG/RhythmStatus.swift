/// The rhythm classes the monitor reports.
public enum RhythmCode: String, Sendable, CaseIterable {
    case normal
    /// heart rate < 50 beats/min
    case bradycardia
    /// heart rate > 100 beats/min
    case tachycardia
    /// RR intervals vary beyond the irregularity threshold
    case irregular
    /// no beat for more than 2 s
    case pause
    /// flat or railed signal: lead off or source gone
    case signalLost
    /// too much noise to detect beats reliably
    case noisy

    /// true for every state worth an event
    public var isAbnormal: Bool { self != .normal }
}

/// The current rhythm: a code and the text shown to the user.
public struct RhythmStatus: Sendable, Equatable {
    public var code: RhythmCode
    /// e.g. "Bradycardia 42 bpm"
    public var text: String

    public init(code: RhythmCode, text: String) {
        self.code = code
        self.text = text
    }
}

/// A change into an abnormal rhythm, logged once per onset.
public struct RhythmEvent: Sendable, Equatable {
    /// seconds since the source started (sample clock)
    public var time: Double
    public var code: RhythmCode
    /// smoothed heart rate at the onset [beats/min], if known
    public var heartRateBPM: Double?
    /// a pause: the time without a beat so far, or in all once it ended [s]
    public var durationSeconds: Double?

    public init(time: Double, code: RhythmCode, heartRateBPM: Double?, durationSeconds: Double? = nil) {
        self.time = time
        self.code = code
        self.heartRateBPM = heartRateBPM
        self.durationSeconds = durationSeconds
    }
}
