import Foundation

/// Atrial fibrillation from the RR intervals of classified beats, after the
/// structure of Petrėnas, Marozas & Sörnmo, "Low-complexity detection of
/// atrial fibrillation in continuous long-term monitoring", Computers in
/// Biology and Medicine 65 (2015) 184–191: ectopic beat filtering, bigeminal
/// suppression, RR irregularity over an 8-beat sliding window, and a smoothed
/// decision with one threshold. Where the paper filters ectopic beats from the
/// RR series alone, tscope uses the beat classes it already has (and keeps the
/// RR-only test for what the classifier let through):
///
/// 1. **Ectopic filtering.** An interval into or out of an S or V beat is
///    not used; the normal-to-normal interval around the ectopic beat(s) is
///    spread evenly over the beats it spans (two intervals for an isolated
///    extrasystole with its compensatory pause), so a ventricular bigeminy or
///    trigeminy reads as the regular rhythm it is.
/// 2. **Bigeminal suppression.** An alternating short-long pattern the
///    classifier did not mark (concealed or unlabelled bigeminy) has small
///    differences between every other interval: each successive difference
///    |r(n) − r(n−1)| is replaced by the smaller of it and |r(n) − r(n−2)|.
/// 3. **Irregularity.** Over the last 8 intervals, the median of those
///    differences divided by the mean interval: about 0.01–0.04 in sinus
///    rhythm, 0.10–0.30 in AF. The median ignores one or two intervals broken
///    by a missed or extra detection.
/// 4. **Decision.** The irregularity is averaged exponentially over beats
///    (α = 0.1, about 10 beats) and compared with a threshold with hysteresis
///    (AF from 0.085, out below 0.065; chosen on the development half of
///    MIT-BIH and of the CinC 2017 set, Docs/ecg.md).
public final class AFDetector {
    public let sampleRate: Double
    static let window = 8
    static let enterAbove = 0.085
    static let leaveBelow = 0.065
    static let smoothing = 0.1

    /// the smoothed irregularity, nil before the first full window
    public private(set) var irregularity: Double?
    /// the instantaneous irregularity of the last window
    public private(set) var lastWindowIrregularity: Double?
    public private(set) var isAF = false

    private var lastNormal: Int?
    private var ectopicsSinceNormal = 0
    /// filtered intervals [samples], oldest first, at most `window` + 2
    private var intervals: [Double] = []
    private var differences: [Double] = []
    private var scratch: [Double] = []

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        intervals.reserveCapacity(Self.window + 3)
        differences.reserveCapacity(Self.window + 3)
        scratch.reserveCapacity(Self.window + 3)
    }

    /// Adds a decided beat; returns whether AF is detected after it.
    @discardableResult
    public func add(_ beat: ClassifiedBeat) -> Bool {
        switch beat.beatClass {
        case .supraventricular, .ventricular:
            ectopicsSinceNormal += 1
            return isAF
        case .unclassifiable:
            // a noisy beat breaks the series: start again from the next normal beat
            lastNormal = nil
            ectopicsSinceNormal = 0
            return isAF
        case .normal:
            break
        }
        defer { lastNormal = beat.sample; ectopicsSinceNormal = 0 }
        guard let previous = lastNormal else { return isAF }
        let span = Double(beat.sample - previous) / Double(ectopicsSinceNormal + 1)
        // a gap over 3 s is a pause or lost signal, not an interval of a rhythm
        guard span <= 3 * sampleRate else {
            intervals.removeAll(keepingCapacity: true)
            differences.removeAll(keepingCapacity: true)
            irregularity = nil
            isAF = false
            return isAF
        }
        for _ in 0...ectopicsSinceNormal { append(span) }
        return isAF
    }

    private func append(_ interval: Double) {
        intervals.append(interval)
        if intervals.count > Self.window + 2 { intervals.removeFirst() }
        let count = intervals.count
        guard count >= 2 else { return }
        var difference = abs(intervals[count - 1] - intervals[count - 2])
        if count >= 3 { difference = min(difference, abs(intervals[count - 1] - intervals[count - 3])) }
        differences.append(difference)
        if differences.count > Self.window { differences.removeFirst() }
        guard differences.count == Self.window else { return }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: differences)
        scratch.sort()
        let median = (scratch[Self.window / 2 - 1] + scratch[Self.window / 2]) / 2
        let mean = intervals.suffix(Self.window).reduce(0, +) / Double(Self.window)
        let value = median / mean
        lastWindowIrregularity = value
        let smoothed = irregularity.map { $0 + Self.smoothing * (value - $0) } ?? value
        irregularity = smoothed
        if smoothed >= Self.enterAbove { isAF = true }
        if smoothed < Self.leaveBelow { isAF = false }
    }

    /// Forgets the rhythm (after lost signal).
    public func reset() {
        lastNormal = nil
        ectopicsSinceNormal = 0
        intervals.removeAll(keepingCapacity: true)
        differences.removeAll(keepingCapacity: true)
        irregularity = nil
        isAF = false
    }
}
