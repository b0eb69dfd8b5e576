import Foundation

/// One second's verdict of `RRAFDetector`.
public struct RRSecond: Sendable, Equatable {
    /// What the second is.
    public enum Code: String, Sendable, Equatable {
        /// atrial fibrillation (the smoothed P(AF) crossed the on threshold and has not fallen below the off one)
        case af
        /// a readable second that is not AF
        case notAF
        /// the beats cannot be judged: too few beats yet, no beat for over `gapSeconds`, or an implausible
        /// window (RR beyond physiology, beats missing). Never AF.
        case unreadable
    }

    /// The sample (beat clock) at which the second ends.
    public let sample: Int
    /// P(AF) of this second's window from the trees; nil when unreadable.
    public let probability: Double?
    public let code: Code
    /// Heart rate of the window [beats/min] (60 / mean RR of the last `windowIntervals` intervals); nil before
    /// there are that many.
    public let heartRate: Double?
    /// Set on the second an AF episode is confirmed (its run of `af` seconds reached `episodeSeconds`): the
    /// sample of the run's first `af` second, which dates the episode. nil otherwise.
    public let episodeOnset: Int?
}

/// Atrial-fibrillation detection from beat times alone (RR intervals), for a Holter export, a chest strap or
/// any beat detector: once a second, irregularity measures of the last `RRAFModelData.windowIntervals` RR
/// intervals (`RRRhythmFeatures`) go through gradient-boosted trees (`RRAFModelData`, trained by
/// Tools/train-af-rr on the automatic beats of the Long-Term AF Database and the MIT-BIH AF Database,
/// validated by record), P(AF) is averaged over the last `smoothingSeconds` readable seconds, and a
/// hysteresis (on above `onThreshold`, off below `offThreshold`) gives the code. An AF episode begins once
/// `af` has held `episodeSeconds` seconds (unreadable seconds do not end a run, a `notAF` second does), dated
/// from the run's first `af` second (`RRSecond.episodeOnset`). Not a medical device.
///
/// Use: `addBeat(at:)` for every beat in time order, and `endOfSecond(at:)` at the end of every whole second
/// of the beat clock, after the beats up to that sample. Per stream (not Sendable: one detector per thread);
/// its storage is allocated in `init` and reused, and the model is read once per process.
public final class RRAFDetector {
    /// the committed model, read once; nil only if the data file does not match this code (a test checks it)
    static let committed: GradientBoostedTrees? = {
        guard let trees = try? GradientBoostedTrees(json: RRAFModelData.json),
              trees.featureNames == RRRhythmFeatures.featureNames, trees.classCount == 1 else { return nil }
        return trees
    }()

    public let sampleRate: Double
    private let trees: GradientBoostedTrees
    private var features: RRRhythmFeatures
    /// the last windowIntervals + 1 beat samples, a ring: `nextBeat` is where the next goes (and, once full,
    /// the oldest)
    private var beats: [Int]
    private var beatCount = 0
    private var nextBeat = 0
    private var lastBeat: Int?
    /// the last smoothingSeconds seconds' P(AF), NaN where unreadable, a ring like `beats`
    private var recent: [Double]
    private var recentCount = 0
    private var nextRecent = 0
    private var inAF = false
    private var runStart: Int?
    private var runAFSeconds = 0
    private var probability: [Double] = [0]

    /// - Parameter sampleRate: samples per second of the clock the beat and second samples count.
    public init(sampleRate: Double) {
        guard let trees = Self.committed else {
            preconditionFailure("RRAFDetector: RRAFModelData does not match RRRhythmFeatures (retrain the model)")
        }
        self.sampleRate = sampleRate
        self.trees = trees
        features = RRRhythmFeatures(sampleRate: sampleRate, windowIntervals: RRAFModelData.windowIntervals)
        beats = Array(repeating: 0, count: RRAFModelData.windowIntervals + 1)
        recent = Array(repeating: .nan, count: RRAFModelData.smoothingSeconds)
    }

    /// Forgets every beat and second (a new recording, or after a long interruption).
    public func reset() {
        beatCount = 0
        nextBeat = 0
        lastBeat = nil
        hasRow = false
        recentCount = 0
        nextRecent = 0
        inAF = false
        runStart = nil
        runAFSeconds = 0
        windowChanged = true
    }

    /// One beat at `sample`; beats must come in increasing sample order (one at or before the last is ignored).
    public func addBeat(at sample: Int) {
        if let lastBeat, sample <= lastBeat { return }
        beats[nextBeat] = sample
        nextBeat = (nextBeat + 1) % beats.count
        beatCount = min(beatCount + 1, beats.count)
        lastBeat = sample
        windowChanged = true
    }

    /// The feature row of the last second (nil before `windowIntervals + 1` beats): for tests and inspection.
    public var lastFeatureRow: [Double]? { hasRow ? features.row : nil }
    private var hasRow = false
    /// The window's measures and P(AF) depend on its beats alone: kept from the last second until a beat
    /// arrives (a second without a new beat, often at rest, measures nothing again).
    private var windowChanged = true
    private var cachedImplausible = false
    /// P(AF) of the unchanged window, nil before the trees read it
    private var cachedProbability: Double?

    /// The verdict of the second ending at `sample` (after every beat at or before it was added).
    public func endOfSecond(at sample: Int) -> RRSecond {
        var unreadable = true
        var heartRate: Double?
        hasRow = false
        if beatCount == beats.count, let lastBeat {
            if windowChanged {
                // once full, the ring's oldest is where the next beat goes
                cachedImplausible = features.measure(beats: beats, oldest: nextBeat)
                cachedProbability = nil
                windowChanged = false
            }
            heartRate = features.row[0]
            hasRow = true
            unreadable = cachedImplausible || Double(sample - lastBeat) > RRAFModelData.gapSeconds * sampleRate
        }
        var p: Double?
        if !unreadable {
            if cachedProbability == nil {
                trees.probabilities(features.row, into: &probability)
                cachedProbability = probability[0]
            }
            p = cachedProbability
        }
        recent[nextRecent] = p ?? .nan
        nextRecent = (nextRecent + 1) % recent.count
        recentCount = min(recentCount + 1, recent.count)
        // the mean of the readable ones, oldest first
        let oldest = recentCount == recent.count ? nextRecent : 0
        var total = 0.0
        var count = 0
        // the slot counted round the ring, not found by a division per value (30 values every second:
        // about a hundredth of `ecg classify`'s time)
        recent.withUnsafeBufferPointer { recent in
            var slot = oldest
            for _ in 0..<recentCount {
                let value = recent[slot]
                if !value.isNaN {
                    total += value
                    count += 1
                }
                slot += 1
                if slot == recent.count { slot = 0 }
            }
        }
        if count > 0 {
            let smoothed = total / Double(count)
            if inAF && smoothed < RRAFModelData.offThreshold {
                inAF = false
            } else if !inAF && smoothed > RRAFModelData.onThreshold {
                inAF = true
            }
        }
        let code: RRSecond.Code = unreadable ? .unreadable : (inAF ? .af : .notAF)
        var onset: Int?
        switch code {
        case .notAF:
            runStart = nil
            runAFSeconds = 0
        case .af:
            if runStart == nil { runStart = sample }
            runAFSeconds += 1
            if runAFSeconds == RRAFModelData.episodeSeconds { onset = runStart }
        case .unreadable:
            break
        }
        return RRSecond(sample: sample, probability: p, code: code, heartRate: heartRate, episodeOnset: onset)
    }
}
