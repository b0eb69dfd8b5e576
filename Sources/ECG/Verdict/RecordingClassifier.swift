import Foundation

/// What a recording shows, as a KardiaMobile-style reader gives it after
/// 30 s. A screening aid, not a diagnosis: tscope is not a medical device.
public enum RecordingVerdict: String, Sendable, CaseIterable {
    /// normal sinus rhythm
    case normal
    /// atrial fibrillation
    case af
    /// neither: brady- or tachycardia, frequent ectopy, another irregular rhythm
    case other
    /// unreadable
    case noisy
    /// too little signal to judge
    case tooShort = "too_short"

    /// the CinC 2017 label letter (N, A, O, ~), nil for too_short
    public var challengeLabel: String? {
        switch self {
        case .normal: return "N"
        case .af: return "A"
        case .other: return "O"
        case .noisy: return "~"
        case .tooShort: return nil
        }
    }

    /// The verdict a challenge label (N, A, O, ~) or verdict name means.
    public init?(label: String) {
        switch label.trimmingCharacters(in: .whitespaces) {
        case "N", "normal": self = .normal
        case "A", "af": self = .af
        case "O", "other": self = .other
        case "~", "noisy": self = .noisy
        case "too_short": self = .tooShort
        default: return nil
        }
    }
}

/// A recording's verdict with what it rests on.
public struct RecordingAssessment: Sendable {
    public var verdict: RecordingVerdict
    /// median heart rate [beats/min], nil with fewer than three beats
    public var heartRate: Double?
    public var beatCounts: [BeatClass: Int]
    /// the findings behind the verdict, in words
    public var reasons: [String]
    public var features: RecordingFeatures
    public var analysis: RhythmAnalysis
    /// the model's probability per verdict (normal, af, other, noisy), when the model decided; after a
    /// second look, the mean over the whole recording and its parts
    public var probabilities: [RecordingVerdict: Double]
    /// how many parts of the recording the model also judged because it was unsure of the whole
    /// (`RecordingClassifier.secondLookMargin`); 0 when the whole sufficed
    public var partsJudged = 0
}

/// One verdict per recording (`ecg classify`): the recording runs through the
/// same pipeline as `ecg monitor` (`RhythmAnalysis`), its features
/// (`RecordingFeatures`) go to gradient-boosted trees blended with a small
/// network, both trained on the development half of the CinC 2017 set
/// (`VerdictModel`: `VerdictModelData` and `VerdictNetworkData`, made by
/// Tools/train-ecg-verdict), and the reasons are read off the features.
public enum RecordingClassifier {
    /// less signal than this is too short to judge [s]
    public static let minimumSeconds = 8.0

    /// the verdict model, decoded once (nil only if the committed model is broken, which the tests refuse)
    static let model: VerdictModel? = try? VerdictModel.committed()
    /// the verdict each of the model's classes names (nil for a name that is none), worked out once:
    /// `RecordingVerdict(label:)` trims with Foundation, a two-hundredth of `ecg classify`'s time when
    /// it ran for every class of every recording
    static let modelVerdicts: [RecordingVerdict?] = model?.classNames.map { RecordingVerdict(label: $0) } ?? []
    /// whether the model reads the features `RecordingFeatures` measures, in their order (checked once)
    static let modelReadsTheFeatures = model.map { $0.featureNames == RecordingFeatures.names } ?? false

    /// The QRS detector the verdict model learnt from, so `classify`'s default. Pan–Tompkins alone, not
    /// `auto`: cross-validated on the CinC development half (six fold shuffles, before the second look) the
    /// two models score the same within the shuffles' spread (AF F1 0.834 and 0.834, challenge score 0.825
    /// against 0.827, noisy F1 0.611 against 0.593), and without the wavelet detector running beside it a
    /// recording takes a sixth less time (Docs/ecg.md, "A verdict per recording").
    public static let standardDetector = BeatDetectorKind.panTompkins

    public static func assess(_ samples: [Float], sampleRate: Double, detector: BeatDetectorKind = standardDetector,
                              mains: Double? = 50) -> RecordingAssessment {
        let analysis = RhythmAnalysis.analyze(samples, sampleRate: sampleRate, detector: detector, mains: mains)
        let features = RecordingFeatures(analysis)
        var counts: [BeatClass: Int] = [:]
        for beat in analysis.beats { counts[beat.beatClass, default: 0] += 1 }
        let heartRate = features["heart_rate_bpm"].isFinite ? features["heart_rate_bpm"] : nil
        var assessment = RecordingAssessment(verdict: .normal, heartRate: heartRate, beatCounts: counts, reasons: [],
                                             features: features, analysis: analysis, probabilities: [:])
        let readable = analysis.duration * (1 - (features["noisy_fraction"].isFinite ? features["noisy_fraction"] : 0))
        if analysis.duration < minimumSeconds {
            assessment.verdict = .tooShort
            assessment.reasons = [printfFormatted("%.1f s of signal, %.0f s needed", analysis.duration, minimumSeconds)]
            return assessment
        }
        if features["noisy_fraction"] > 0.5 || features["beat_count"] < 4 || readable < minimumSeconds {
            // unreadable whatever the model says: it learnt from recordings that are nearly all readable
            // (9 of the 2999 in the development half are like this, 8 of them labelled noisy)
            assessment.verdict = .noisy
        } else if let model, modelReadsTheFeatures {
            var probabilities = model.probabilities(features.values)
            assessment.partsJudged = secondLook(samples, sampleRate: sampleRate, detector: detector, mains: mains,
                                                model: model, probabilities: &probabilities)
            var best = 0
            for index in probabilities.indices where probabilities[index] > probabilities[best] { best = index }
            for (index, verdict) in modelVerdicts.enumerated() {
                if let verdict { assessment.probabilities[verdict] = probabilities[index] }
            }
            assessment.verdict = modelVerdicts[best] ?? ruleVerdict(features, readable: readable)
        } else {
            assessment.verdict = ruleVerdict(features, readable: readable)
        }
        assessment.reasons = reasons(features, verdict: assessment.verdict, counts: counts)
        if assessment.partsJudged > 0 {
            assessment.reasons.append(printfFormatted("unsure of the whole (two likeliest within %.2f): judged with "
                                                + "\(assessment.partsJudged) half-length parts too", secondLookMargin))
        }
        return assessment
    }

    /// A second look when the model is unsure: if its two likeliest classes are within this of each other,
    /// the verdict is the mean of the model's probabilities over the whole recording and three half-length
    /// parts of it (its start, middle and end). The model trained on such parts (Tools/make-ecg-crops), so
    /// a part is a recording to it. Cross-validated over six fold shuffles of the CinC development half,
    /// 7 % of recordings get it: AF F1 0.834 → 0.841, challenge score 0.825 → 0.831, up in all six, for about
    /// a tenth more time (Docs/ecg.md, "A verdict per recording"; `Tools/train-ecg-verdict --second-look 0.2`).
    public static let secondLookMargin = 0.2
    /// the parts: numbers 0, 2 and 4 of five half-length crops spread evenly from start to end, cut as
    /// Tools/make-ecg-crops cuts them (so their features are those of the training crops, digit for digit)
    static let secondLookParts = [0, 2, 4]
    static let secondLookPartCount = 5
    /// a part shorter than this is not judged [s] (make-ecg-crops' --min-seconds: no training crop was shorter)
    static let secondLookShortestPart = 9.0

    /// Averages `probabilities` (the whole recording's) with its parts' when the two largest are within
    /// `secondLookMargin`; returns the number of parts judged (0: none, the whole stands).
    static func secondLook(_ samples: [Float], sampleRate: Double, detector: BeatDetectorKind, mains: Double?,
                           model: VerdictModel, probabilities: inout [Double]) -> Int {
        var largest = -Double.infinity, second = -Double.infinity
        for probability in probabilities {
            if probability > largest { (largest, second) = (probability, largest) } else if probability > second { second = probability }
        }
        let partLength = samples.count / 2
        guard largest - second < secondLookMargin, Double(partLength) >= secondLookShortestPart * sampleRate else { return 0 }
        var sum = probabilities
        for part in secondLookParts {
            // make-ecg-crops: start = round(k · (L − part length) / (count − 1)), Python's round (half to even)
            let start = Int((Double(part * (samples.count - partLength)) / Double(secondLookPartCount - 1))
                            .rounded(.toNearestOrEven))
            let analysis = RhythmAnalysis.analyze(Array(samples[start..<(start + partLength)]), sampleRate: sampleRate,
                                                  detector: detector, mains: mains)
            let partProbabilities = model.probabilities(RecordingFeatures(analysis).values)
            for index in sum.indices { sum[index] += partProbabilities[index] }
        }
        let count = Double(secondLookParts.count + 1)
        probabilities = sum.map { $0 / count }
        return secondLookParts.count
    }

    /// The verdict by plain rules (used when no model is built in, and to
    /// explain): unreadable when most of it is noise or beats are too few;
    /// AF when the AF detector held for most of it; other for rate, ectopy or
    /// irregularity; else normal.
    static func ruleVerdict(_ features: RecordingFeatures, readable: Double) -> RecordingVerdict {
        if features["noisy_fraction"] > 0.5 || features["beat_count"] < 4 || readable < minimumSeconds { return .noisy }
        if features["af_fraction"] >= 0.5 { return .af }
        let rate = features["heart_rate_bpm"]
        if rate < 50 || rate > 100 { return .other }
        if features["ventricular_fraction"] + features["supraventricular_fraction"] > 0.1 { return .other }
        if features["rr_cv"] > 0.15 { return .other }
        return .normal
    }

    /// Findings in words, the ones that bear on the verdict first.
    static func reasons(_ features: RecordingFeatures, verdict: RecordingVerdict, counts: [BeatClass: Int]) -> [String] {
        var reasons: [String] = []
        let noisy = features["noisy_fraction"]
        if noisy > 0.2 { reasons.append(printfFormatted("noisy or lost signal %.0f %% of the time", noisy * 100)) }
        let irregular = features["irregularity_median"]
        if irregular.isFinite {
            let cosen = features["cosen"]
            reasons.append(printfFormatted("RR irregularity %.3f (AF from %.3f)", irregular, AFDetector.enterAbove)
                           + (cosen.isFinite ? printfFormatted(", COSEn %.2f", cosen) : ""))
        }
        let af = features["af_fraction"]
        if af > 0 { reasons.append(printfFormatted("AF detected %.0f %% of the time", af * 100)) }
        let consistency = features["p_wave_consistency"]
        if consistency.isFinite {
            reasons.append(consistency < 0.5 ? printfFormatted("no consistent P wave (P-wave agreement %.2f)", consistency)
                           : printfFormatted("P wave present (P-wave agreement %.2f)", consistency))
        }
        let rate = features["heart_rate_bpm"]
        if rate.isFinite {
            if rate < 50 { reasons.append(printfFormatted("bradycardia %.0f bpm", rate)) }
            if rate > 100 { reasons.append(printfFormatted("tachycardia %.0f bpm", rate)) }
        }
        let ventricular = counts[.ventricular] ?? 0, supraventricular = counts[.supraventricular] ?? 0
        if ventricular > 0 { reasons.append("\(ventricular) ventricular ectopic beat\(ventricular == 1 ? "" : "s")") }
        if supraventricular > 0 { reasons.append("\(supraventricular) supraventricular ectopic beat\(supraventricular == 1 ? "" : "s")") }
        if features["beat_count"] < 4 { reasons.append("\(Int(features["beat_count"])) beats found") }
        return reasons
    }
}

/// `String(format: format, values...)` for a format of floating-point conversions (and `%%`), printed by
/// the C library's `vsnprintf` directly, which Foundation's formatting ends in as well: the same bytes
/// (`ecg classify`'s lines compared over the CinC recordings), without Foundation's machinery, which was
/// about a hundredth of `ecg classify`'s time for a recording's few reasons.
func printfFormatted(_ format: String, _ values: Double...) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        let length = withVaList(values) { vsnprintf(buffer.baseAddress, buffer.count, format, $0) }
        guard length >= 0, Int(length) < buffer.count else { return String(format: format, arguments: values) }
        return String(cString: buffer.baseAddress!)
    }
}
