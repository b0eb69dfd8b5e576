/// A scripted change of rhythm for the synthetic ECG.
public struct RhythmEpisode: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// heart rate 40 beats/min
        case bradycardia
        /// heart rate 140 beats/min
        case tachycardia
        /// RR intervals vary ±35 % beat to beat
        case irregular
        /// atrial fibrillation's irregularly irregular rhythm: RR intervals ±35 % beat to beat
        case af
        /// no beat for the episode's duration (sinus arrest)
        case pause
    }

    public var kind: Kind
    /// start [s since the source started]
    public var start: Double
    /// length [s]
    public var duration: Double

    public init(_ kind: Kind, start: Double, duration: Double) {
        self.kind = kind
        self.start = start
        self.duration = duration
    }

    public func contains(_ time: Double) -> Bool { time >= start && time < start + duration }
}

/// What the synthetic ECG generator produces.
public struct SyntheticECGSettings: Sendable, Equatable {
    /// mean heart rate [beats/min]
    public var heartRate: Double = 70
    /// beat-to-beat RR variability, standard deviation as a fraction of RR
    public var heartRateVariability: Double = 0.03
    /// white measurement noise, standard deviation [mV]
    public var noise: Double = 0.01
    /// baseline wander amplitude (respiration, 0.25 Hz) [mV]
    public var baselineWander: Double = 0.1
    /// mains hum amplitude [mV]
    public var mainsAmplitude: Double = 0
    /// mains frequency [Hz]
    public var mainsFrequency: Double = 50
    /// leads, 1…12: 1 gives lead II, 12 the standard I, II, III, aVR, aVL, aVF, V1–V6
    public var leadCount: Int = 1
    /// samples per second per lead [Hz]
    public var sampleRate: Double = 250
    public var episodes: [RhythmEpisode] = []
    public var seed: UInt64 = 1

    public init() {}

    /// A two-minute demonstration: each scripted rhythm once, between normal stretches.
    public static let demoEpisodes: [RhythmEpisode] = [
        RhythmEpisode(.bradycardia, start: 20, duration: 15),
        RhythmEpisode(.tachycardia, start: 50, duration: 15),
        // two minutes: the AF engine reads 32 beats and smooths 30 s before it says AF (about 40 s), and AF
        // must then hold 30 s to be an episode (RRAFDetector)
        RhythmEpisode(.af, start: 80, duration: 120),
        RhythmEpisode(.pause, start: 215, duration: 3),
    ]
}
