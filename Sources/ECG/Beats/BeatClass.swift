/// A beat's class in the grouping of ANSI/AAMI EC57 (the one arrhythmia
/// detectors are scored in): N normal (and bundle-branch block, escape beats),
/// S supraventricular ectopic, V ventricular ectopic, Q unclassifiable.
/// (EC57's fifth class, F fusion, is only read from references: tscope never
/// labels a beat F.)
public enum BeatClass: String, Sendable, CaseIterable, Equatable {
    case normal = "N"
    case supraventricular = "S"
    case ventricular = "V"
    case unclassifiable = "Q"

    /// the MIT annotation code written for this class (WFDB ecgcodes.h):
    /// NORMAL 1, SVPB 9, PVC 5, UNKNOWN 13
    public var mitCode: Int {
        switch self {
        case .normal: return 1
        case .supraventricular: return 9
        case .ventricular: return 5
        case .unclassifiable: return 13
        }
    }

    /// true for the ectopic classes (S and V)
    public var isEctopic: Bool { self == .supraventricular || self == .ventricular }
}

/// The EC57 class of a reference beat annotation, by its MIT code.
public enum ReferenceBeatClass: String, Sendable, CaseIterable {
    case normal = "N", supraventricular = "S", ventricular = "V", fusion = "F", unclassifiable = "Q"

    /// N, L, R, e, j → N; A, a, J, S → S; V, E → V; F → F; /, f, Q → Q (EC57 table 1);
    /// nil for codes that are not beats
    public init?(mitCode: Int) {
        switch mitCode {
        case 1, 2, 3, 11, 34: self = .normal          // N L R j e
        case 4, 7, 8, 9, 35: self = .supraventricular // a J A S n
        case 5, 10: self = .ventricular               // V E
        case 6: self = .fusion                        // F
        case 12, 13, 38: self = .unclassifiable       // / Q f
        default: return nil
        }
    }
}

/// A detected beat and its class.
public struct ClassifiedBeat: Sendable, Equatable {
    /// R peak, sample index from the start of the stream
    public var sample: Int
    public var beatClass: BeatClass

    public init(sample: Int, beatClass: BeatClass) {
        self.sample = sample
        self.beatClass = beatClass
    }
}
