/// Detector accuracy against reference beats, the standard way (ANSI/AAMI EC57):
/// a detection matches an unmatched reference beat within the match window.
public struct BeatScore: Sendable, Equatable {
    public var truePositives: Int
    public var falsePositives: Int
    public var falseNegatives: Int

    /// sensitivity TP / (TP + FN), in 0…1
    public var sensitivity: Double {
        let total = truePositives + falseNegatives
        return total == 0 ? 1 : Double(truePositives) / Double(total)
    }

    /// positive predictivity TP / (TP + FP), in 0…1
    public var positivePredictivity: Double {
        let total = truePositives + falsePositives
        return total == 0 ? 1 : Double(truePositives) / Double(total)
    }

    /// Matches sorted detections to sorted reference beats (sample indices)
    /// one-to-one: each reference takes the nearest free detection within `window` samples.
    public init(reference: [Int], detections: [Int], window: Int) {
        var used = [Bool](repeating: false, count: detections.count)
        var matched = 0
        var start = 0
        for beat in reference {
            while start < detections.count && detections[start] < beat - window { start += 1 }
            var best: Int?
            var index = start
            while index < detections.count && detections[index] <= beat + window {
                if !used[index], best.map({ abs(detections[index] - beat) < abs(detections[$0] - beat) }) ?? true {
                    best = index
                }
                index += 1
            }
            if let best {
                used[best] = true
                matched += 1
            }
        }
        truePositives = matched
        falseNegatives = reference.count - matched
        falsePositives = detections.count - matched
    }
}
