/// The rhythm classes the monitor reports.
public enum RhythmCode: String, Sendable, CaseIterable {
    case normal
    /// heart rate < 50 beats/min
    case bradycardia
    /// heart rate > 100 beats/min
    case tachycardia
    /// atrial fibrillation: the AF engine (`RRAFDetector`) over the RR intervals, second by second
    case af
    /// RR intervals vary beyond the irregularity threshold, yet not as AF does
    case irregular
    /// no beat for more than 2 s
    case pause
    /// flat or railed signal: lead off or source gone
    case signalLost
    /// too much noise to detect beats reliably
    case noisy
    /// a beat list that cannot be a heart's beats here (gaps, beats closer than any rhythm): dropped or
    /// spurious detections, not a rhythm (`BeatListQuality`)
    case unreadable

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

/// An episode of an abnormal rhythm: logged once it has held long enough
/// (`RhythmEventLog`), its duration following it until it ends.
public struct RhythmEvent: Sendable, Equatable {
    /// the episode's start, seconds since the source started (sample clock)
    public var time: Double
    public var code: RhythmCode
    /// smoothed heart rate when the episode was confirmed [beats/min], if known
    public var heartRateBPM: Double?
    /// how long it has held so far, or in all once it ended [s]
    public var durationSeconds: Double?
    /// the episode's end [s since the start]; nil while it goes on
    public var end: Double?
    /// mean and highest heart rate over the episode so far, from its start [beats/min]
    public var meanHeartRateBPM: Double?
    public var maxHeartRateBPM: Double?

    public init(time: Double, code: RhythmCode, heartRateBPM: Double?, durationSeconds: Double? = nil, end: Double? = nil) {
        self.time = time
        self.code = code
        self.heartRateBPM = heartRateBPM
        self.durationSeconds = durationSeconds
        self.end = end
    }
}
