import Foundation

/// Beat classes against a reference, as an ANSI/AAMI EC57 report gives them
/// for ventricular (V) and supraventricular (S) ectopic beats: over the
/// detections matched to reference beats (`BeatScore`'s matching), a class's
/// Se = TP / reference beats of the class (an unmatched reference beat of the
/// class is missed), +P = TP / matched detections labelled with the class.
/// Reference beats of EC57's classes F (fusion) and Q (unclassifiable) count
/// neither way for +P: a fusion beat called V is not a false V.
public struct BeatClassScore: Sendable, Equatable {
    public var truePositives = 0
    public var falseNegatives = 0
    public var falsePositives = 0

    public var sensitivity: Double { truePositives + falseNegatives == 0 ? .nan : Double(truePositives) / Double(truePositives + falseNegatives) }
    public var positivePredictivity: Double { truePositives + falsePositives == 0 ? .nan : Double(truePositives) / Double(truePositives + falsePositives) }

    /// Scores class `target` (S or V); `reference` sample and class, `detections` sample and class, both sorted.
    public init(target: BeatClass, reference: [(sample: Int, beatClass: ReferenceBeatClass)],
                detections: [ClassifiedBeat], window: Int) {
        let targetReference: ReferenceBeatClass = target == .ventricular ? .ventricular : .supraventricular
        var used = [Bool](repeating: false, count: detections.count)
        var start = 0
        for beat in reference {
            while start < detections.count && detections[start].sample < beat.sample - window { start += 1 }
            var best: Int?
            var index = start
            while index < detections.count && detections[index].sample <= beat.sample + window {
                if !used[index], best.map({ abs(detections[index].sample - beat.sample) < abs(detections[$0].sample - beat.sample) }) ?? true {
                    best = index
                }
                index += 1
            }
            let isTarget = beat.beatClass == targetReference
            guard let best else {
                if isTarget { falseNegatives += 1 }
                continue
            }
            used[best] = true
            let called = detections[best].beatClass == target
            switch (isTarget, called) {
            case (true, true): truePositives += 1
            case (true, false): falseNegatives += 1
            case (false, true) where beat.beatClass != .fusion && beat.beatClass != .unclassifiable: falsePositives += 1
            default: break
            }
        }
    }
}

/// Atrial fibrillation found against a reference's rhythm notes (a WFDB
/// `.atr`'s rhythm changes, "(AFIB" … "(N"): per second, and per episode.
public struct AFRhythmScore: Sendable {
    /// seconds: AF in both, AF only in the reference, only detected, in neither
    public var truePositiveSeconds = 0, falseNegativeSeconds = 0, falsePositiveSeconds = 0, trueNegativeSeconds = 0
    public var referenceEpisodes = 0, referenceEpisodesFound = 0
    public var detectedEpisodes = 0, detectedEpisodesTrue = 0
    public var hours = 0.0

    public var sensitivity: Double { ratio(truePositiveSeconds, truePositiveSeconds + falseNegativeSeconds) }
    public var specificity: Double { ratio(trueNegativeSeconds, trueNegativeSeconds + falsePositiveSeconds) }
    public var positivePredictivity: Double { ratio(truePositiveSeconds, truePositiveSeconds + falsePositiveSeconds) }
    public var episodeSensitivity: Double { ratio(referenceEpisodesFound, referenceEpisodes) }
    public var episodePositivePredictivity: Double { ratio(detectedEpisodesTrue, detectedEpisodes) }
    /// detected AF episodes that overlap no reference AF, per hour
    public var falseEpisodesPerHour: Double { hours > 0 ? Double(detectedEpisodes - detectedEpisodesTrue) / hours : .nan }

    private func ratio(_ a: Int, _ b: Int) -> Double { b == 0 ? .nan : Double(a) / Double(b) }

    public init() {}

    /// `referenceAF`: the reference's AF intervals [s]; `detectedAF`: per
    /// second, whether AF was detected; `episodes`: detected AF episodes [s].
    public init(referenceAF: [ClosedRange<Double>], detectedAF: [Bool], episodes: [ClosedRange<Double>]) {
        for (second, detected) in detectedAF.enumerated() {
            let middle = Double(second) + 0.5
            let reference = referenceAF.contains { $0.contains(middle) }
            switch (reference, detected) {
            case (true, true): truePositiveSeconds += 1
            case (true, false): falseNegativeSeconds += 1
            case (false, true): falsePositiveSeconds += 1
            case (false, false): trueNegativeSeconds += 1
            }
        }
        hours = Double(detectedAF.count) / 3600
        referenceEpisodes = referenceAF.count
        referenceEpisodesFound = referenceAF.filter { reference in episodes.contains { $0.overlaps(reference) } }.count
        detectedEpisodes = episodes.count
        detectedEpisodesTrue = episodes.filter { episode in referenceAF.contains { $0.overlaps(episode) } }.count
    }

    /// Adds another record's counts (gross statistics over a database).
    public mutating func add(_ other: AFRhythmScore) {
        truePositiveSeconds += other.truePositiveSeconds
        falseNegativeSeconds += other.falseNegativeSeconds
        falsePositiveSeconds += other.falsePositiveSeconds
        trueNegativeSeconds += other.trueNegativeSeconds
        referenceEpisodes += other.referenceEpisodes
        referenceEpisodesFound += other.referenceEpisodesFound
        detectedEpisodes += other.detectedEpisodes
        detectedEpisodesTrue += other.detectedEpisodesTrue
        hours += other.hours
    }

    /// The AF intervals of a WFDB reference's rhythm notes: from each "(AFIB"
    /// to the next rhythm change or `end` [s].
    public static func referenceAF(_ annotations: [WFDBAnnotation], sampleRate: Double, end: Double) -> [ClosedRange<Double>] {
        var intervals: [ClosedRange<Double>] = []
        var start: Double?
        for annotation in annotations where annotation.code == WFDBAnnotation.rhythmCode {
            let time = Double(annotation.sample) / sampleRate
            let rhythm = (annotation.aux ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\0 "))
            if let open = start, time > open { intervals.append(open...time) }
            start = rhythm.hasPrefix("(AFIB") ? time : nil
        }
        if let open = start, end > open { intervals.append(open...end) }
        return intervals
    }
}
