import ECG
import Foundation

/// The samples --from/--to select.
public struct ECGExcerpt {
    public var samples: Range<Int>
    public var isWhole: Bool
    public var sampleRate: Double

    /// What --from/--to may be; nil when they are usable, else the problem.
    public static func problem(from: Double?, to: Double?) -> String? {
        if let from, !(from.isFinite && from >= 0) { return "--from \(from): expected 0 s or later" }
        if let to, !(to.isFinite && to > 0) { return "--to \(to): expected a time after 0 s" }
        if let from, let to, to <= from { return "--to \(to) must come after --from \(from)" }
        return nil
    }

    public init(record: ECGRecord, from: Double?, to: Double?) throws {
        sampleRate = record.sampleRate
        let first = Int(((from ?? 0) * record.sampleRate).rounded())
        let last = min(record.frameCount, to.map { Int(($0 * record.sampleRate).rounded()) } ?? record.frameCount)
        guard first < last else {
            throw ECGError(file: record.name, String(format: "--from %.3f s is past the end (%.3f s)", from ?? 0, record.duration))
        }
        samples = first..<last
        isWhole = first == 0 && last == record.frameCount
    }

    public var text: String {
        String(format: "%.3f–%.3f s", Double(samples.lowerBound) / sampleRate, Double(samples.upperBound) / sampleRate)
    }
}

/// `ecg score`: QRS detection on a recording scored against reference beats.
public struct ECGScoreRun {
    public var source: ECGSourceRequest
    public var sourcePath: String?
    /// reference beats file (WFDB annotations, or a CSV of samples or times); nil: the record's own
    public var reference: String?
    public var annotator = "atr"
    public var from: Double?
    public var to: Double?
    /// match window [ms]
    public var windowMilliseconds = 150.0
    /// whether to score AF against the reference's rhythm notes (--rhythm)
    public var rhythm = false
    /// the V decision after the classifier's rules (hidden --beat-model: Tools/train-beat-model's
    /// held-out models, for Tools/score-mitdb)
    public var beatModel = BeatModelChoice.committed
    /// beat times to score instead of the detector's (`--beats`, `--rr`)
    public var beats: BeatListRequest?

    public init(source: ECGSourceRequest, sourcePath: String?) {
        self.source = source
        self.sourcePath = sourcePath
    }

    /// The report as printed: one line per figure.
    public func run() throws -> String {
        if let beats { return try runBeats(try beats.read(recordPath: sourcePath, rate: source.rate)) }
        let file = try source.readWhole(sourcePath: sourcePath, until: to, annotator: annotator, unused: "not scored")
        let record = file.record
        let lead = try source.detectionLead(file)
        let allReference: [Int]
        if let reference {
            allReference = try BeatReference.read(path: reference, sampleRate: record.sampleRate)
        } else if !file.referenceBeats.isEmpty {
            allReference = file.referenceBeats
        } else {
            let sourceName = sourcePath ?? record.name
            // a WFDB record's reference is its annotation file: name the one that was looked for
            let isRecord = sourcePath != nil && ECGRecordFormat(path: sourceName) == .wfdb && sourceName != "synthetic"
            throw ECGError(file: isRecord ? WFDBRecordReader.recordBase(sourceName) + "." + annotator : sourceName,
                           "no reference beats: give --reference FILE (a WFDB annotation file, or a CSV of sample indices or times)")
        }
        let excerpt = try ECGExcerpt(record: record, from: from, to: to)
        let detections = source.detector.detect(Array(record.samples[lead][excerpt.samples]), sampleRate: record.sampleRate)
        let referenceBeats = allReference.filter { excerpt.samples.contains($0) }.map { $0 - excerpt.samples.lowerBound }
        let window = Int((windowMilliseconds / 1000 * record.sampleRate).rounded())
        let score = BeatScore(reference: referenceBeats, detections: detections, window: window)
        var report = Self.report(record: record, lead: lead, fileLead: file.fileIndices[lead], excerpt: excerpt, score: score,
                                 detector: source.detector)
        // beat classes and rhythm need the reference's codes: a WFDB annotation file
        guard let annotations = try referenceAnnotations(record: record) else { return report }
        let excerptSamples = Array(record.samples[lead][excerpt.samples])
        let filtered = Self.filtered(excerptSamples, sampleRate: record.sampleRate, mains: source.mains)
        let classified = BeatClassifier.classify(filtered, beats: detections, sampleRate: record.sampleRate,
                                                 beatModel: beatModel)
        let referenceClasses: [(sample: Int, beatClass: ReferenceBeatClass)] = annotations.compactMap { annotation in
            guard excerpt.samples.contains(annotation.sample), let beatClass = ReferenceBeatClass(mitCode: annotation.code) else { return nil }
            return (annotation.sample - excerpt.samples.lowerBound, beatClass)
        }
        let percent = { (value: Double) in value.isNaN ? "   —   " : String(format: "%.2f %%", value * 100) }
        for target in [BeatClass.ventricular, .supraventricular] {
            let classScore = BeatClassScore(target: target, reference: referenceClasses, detections: classified, window: window)
            report += "\n\(target.rawValue)   Se \(percent(classScore.sensitivity))  +P \(percent(classScore.positivePredictivity))"
                + "  TP \(classScore.truePositives)  FN \(classScore.falseNegatives)  FP \(classScore.falsePositives)"
        }
        if rhythm {
            let analysis = RhythmAnalysis.analyze(excerptSamples, sampleRate: record.sampleRate, detector: source.detector,
                                                  mains: source.mains, beatModel: beatModel)
            let (rhythmScore, _) = Self.afScore(annotations, from: excerpt.samples.lowerBound, sampleRate: record.sampleRate,
                                                duration: analysis.duration, codes: analysis.secondCodes,
                                                episodes: analysis.episodes)
            report += "\n" + Self.rhythmReport(rhythmScore)
        }
        return report
    }

    /// A beat list scored without a signal: its beats against the reference beats, and with
    /// --rhythm the rhythm engine's AF per second and per episode against the reference's rhythm notes.
    func runBeats(_ list: BeatList) throws -> String {
        let referencePath: String
        if let reference {
            referencePath = reference
        } else if let sourcePath {
            referencePath = WFDBRecordReader.recordBase(sourcePath) + "." + annotator
        } else {
            throw ECGError(file: list.name, "no reference: give the record (REC.\(annotator)) or --reference FILE")
        }
        let bytes = try WFDBRecordReader.contents(of: referencePath)
        let annotations = try WFDBAnnotationReader.read(contents: bytes, file: referencePath)
        let rate = list.sampleRate
        let first = Int(((from ?? 0) * rate).rounded())
        let last = min(list.endSample, to.map { Int(($0 * rate).rounded()) } ?? list.endSample)
        guard first < last else {
            throw ECGError(file: list.name, String(format: "--from %.3f s is past the end (%.3f s)", from ?? 0, list.duration))
        }
        let window = Int((windowMilliseconds / 1000 * rate).rounded())
        let referenceBeats = annotations.filter { $0.isBeat && (first..<last).contains($0.sample) }.map { $0.sample - first }
        let given = list.samples.filter { (first..<last).contains($0) }.map { $0 - first }
        let score = BeatScore(reference: referenceBeats, detections: given, window: window)
        let percent = { (value: Double) in value.isNaN ? "   —   " : String(format: "%.2f %%", value * 100) }
        var report = "\(list.name): \(given.count) beats, "
            + String(format: "%.3f–%.3f s", Double(first) / rate, Double(last) / rate) + " against \(referencePath)"
        // a reference of rhythm notes only (rdann's dump of an AFDB .atr) has no beats to score against
        report += referenceBeats.isEmpty
            ? "\nQRS  not scored: the reference holds no beats"
            : "\nQRS  Se \(percent(score.sensitivity))  +P \(percent(score.positivePredictivity))"
                + "  TP \(score.truePositives)  FN \(score.falseNegatives)  FP \(score.falsePositives)"
        guard rhythm else { return report }
        var excerpt = list
        excerpt.samples = given
        excerpt.classes = list.classes.map { classes in zip(list.samples, classes).filter { (first..<last).contains($0.0) }.map(\.1) }
        excerpt.endSample = last - first
        let analysis = BeatRhythmAnalysis.analyze(excerpt)
        let (rhythmScore, referenceAF) = Self.afScore(annotations, from: first, sampleRate: rate, duration: analysis.duration,
                                                      codes: analysis.secondCodes, episodes: analysis.episodes)
        let unreadable = analysis.unreadableSeconds
        report += "\n" + Self.rhythmReport(rhythmScore)
            + "\nunreadable   \(unreadable) s of \(analysis.secondCodes.count)"
            + "; AF burden " + (analysis.afBurden.map { String(format: "%.4f", $0) } ?? "—")
            + String(format: ", reference %.4f", referenceAF.reduce(0) { $0 + $1.upperBound - $1.lowerBound } / analysis.duration)
        return report
    }

    /// AF per second and per episode of an excerpt starting at sample `first`, against the reference's
    /// rhythm notes clipped to the excerpt; also the reference's AF intervals [s from the excerpt's start].
    static func afScore(_ annotations: [WFDBAnnotation], from first: Int, sampleRate: Double, duration: Double,
                        codes: [RhythmCode], episodes: [RhythmEvent]) -> (AFRhythmScore, [ClosedRange<Double>]) {
        let shifted = annotations.map { annotation -> WFDBAnnotation in
            var moved = annotation
            moved.sample -= first
            return moved
        }
        let referenceAF = AFRhythmScore.referenceAF(shifted, sampleRate: sampleRate, end: duration)
            .compactMap { interval -> ClosedRange<Double>? in
                let lower = max(0, interval.lowerBound), upper = min(duration, interval.upperBound)
                return lower < upper ? lower...upper : nil
            }
        let detected = episodes.filter { $0.code == .af }.map { $0.time...($0.end ?? duration) }
        return (AFRhythmScore(referenceAF: referenceAF, detectedAF: codes.map { $0 == .af }, episodes: detected), referenceAF)
    }

    /// AF per second and per episode, one line each.
    public static func rhythmReport(_ score: AFRhythmScore) -> String {
        let percent = { (value: Double) in value.isNaN ? "   —   " : String(format: "%.2f %%", value * 100) }
        return """
        AF seconds   Se \(percent(score.sensitivity))  Sp \(percent(score.specificity))  PPV \(percent(score.positivePredictivity))  (TP \(score.truePositiveSeconds) FN \(score.falseNegativeSeconds) FP \(score.falsePositiveSeconds) TN \(score.trueNegativeSeconds))
        AF episodes  Se \(percent(score.episodeSensitivity))  PPV \(percent(score.episodePositivePredictivity))  (reference \(score.referenceEpisodes), found \(score.referenceEpisodesFound); detected \(score.detectedEpisodes), true \(score.detectedEpisodesTrue))\(String(format: "; false episodes %.2f per hour", score.falseEpisodesPerHour))
        """
    }

    /// The reference annotations with their codes, when the reference is a WFDB annotation
    /// file (the record's own, --reference NAME.atr, or rdann's text of one); nil for a CSV.
    func referenceAnnotations(record: ECGRecord) throws -> [WFDBAnnotation]? {
        if let reference {
            let bytes = try WFDBRecordReader.contents(of: reference)
            // a CSV of beats has no codes; rdann text (often named .txt) has them
            guard ECGRecordFormat(path: reference) != .csv || WFDBAnnotationText.isText(bytes) else { return nil }
            return try WFDBAnnotationReader.read(contents: bytes, file: reference)
        }
        guard let sourcePath, ECGRecordFormat(path: sourcePath) == .wfdb,
              FileManager.default.fileExists(atPath: WFDBRecordReader.recordBase(sourcePath) + "." + annotator) else { return nil }
        return try WFDBRecordReader.readAnnotations(recordPath: sourcePath, annotator: annotator)
    }

    /// a lead through the monitor's filters (as the beat classifier sees it live)
    static func filtered(_ samples: [Float], sampleRate: Double, mains: Double?) -> [Float] {
        var copy = samples
        var last: Float = 0
        for index in copy.indices { if copy[index].isFinite { last = copy[index] } else { copy[index] = last } }
        let chain = ECGFilterChain.standard(sampleRate: sampleRate, mains: mains)
        copy.withUnsafeMutableBufferPointer { chain.process($0) }
        return copy
    }

    /// Percentages to two decimals; `fileLead` is the lead's index in the file.
    static func report(record: ECGRecord, lead: Int, fileLead: Int, excerpt: ECGExcerpt, score: BeatScore,
                       detector: BeatDetectorKind) -> String {
        let percent = { (value: Double) in String(format: "%.2f %%", value * 100) }
        return """
        record \(record.name), lead \(fileLead) (\(record.leadNames[lead])), \(record.frameCount) samples at \(record.sampleRate) Hz\(excerpt.isWhole ? "" : ", excerpt \(excerpt.text)")
        detector \(detector.rawValue) (\(detector.title))
        Se  \(percent(score.sensitivity))
        +P  \(percent(score.positivePredictivity))
        TP  \(score.truePositives)
        FP  \(score.falsePositives)
        FN  \(score.falseNegatives)
        """
    }
}

/// `ecg detect`: the detector's beats written for other tools, as a CSV
/// (`sample,time,type`) or a WFDB annotation file (any other extension).
public struct ECGDetectRun {
    public var source: ECGSourceRequest
    public var sourcePath: String?
    public var output: String
    public var from: Double?
    public var to: Double?
    /// where each classifiable beat's features go as a CSV (`sample,rule,` then
    /// `BeatClassifier.featureNames`; `rule` is the rules' class before the learnt decision):
    /// the rows Tools/train-beat-model learns from
    public var beatFeaturesOutput: String?

    public init(source: ECGSourceRequest, sourcePath: String?, output: String) {
        self.source = source
        self.sourcePath = sourcePath
        self.output = output
    }

    /// Writes the file; returns the line that says what was written.
    public func run() throws -> String {
        let file = try source.readWhole(sourcePath: sourcePath, until: to)
        let record = file.record
        let lead = try source.detectionLead(file)
        let excerpt = try ECGExcerpt(record: record, from: from, to: to)
        let beats = source.detector.detect(Array(record.samples[lead][excerpt.samples]), sampleRate: record.sampleRate)
            .map { $0 + excerpt.samples.lowerBound }
        let filtered = ECGScoreRun.filtered(Array(record.samples[lead][excerpt.samples]), sampleRate: record.sampleRate,
                                            mains: source.mains)
        var featureLines = "sample,rule," + BeatClassifier.featureNames.joined(separator: ",") + "\n"
        let keepFeatures: ((Int, BeatClass, [Double]) -> Void)? = beatFeaturesOutput == nil ? nil : { beat, rule, row in
            featureLines += "\(beat + excerpt.samples.lowerBound),\(rule.rawValue),"
                + row.map { $0.isFinite ? "\($0)" : "" }.joined(separator: ",") + "\n"
        }
        let classified = BeatClassifier.classify(filtered, beats: beats.map { $0 - excerpt.samples.lowerBound },
                                                 sampleRate: record.sampleRate, onFeatures: keepFeatures)
            .map { ClassifiedBeat(sample: $0.sample + excerpt.samples.lowerBound, beatClass: $0.beatClass) }
        if let beatFeaturesOutput, !OutputFile.write(Data(featureLines.utf8), to: beatFeaturesOutput) {
            throw ECGError(file: beatFeaturesOutput, "cannot write (no such directory, or no permission)")
        }
        let bytes: [UInt8]
        if (output as NSString).pathExtension.lowercased() == "csv" {
            bytes = Array(BeatAnnotationWriter.csv(beats: classified, sampleRate: record.sampleRate).utf8)
        } else {
            bytes = BeatAnnotationWriter.wfdb(beats: classified)
        }
        guard OutputFile.write(Data(bytes), to: output) else {
            throw ECGError(file: output, "cannot write (no such directory, or no permission)")
        }
        let counts = BeatClass.allCases.map { beatClass in "\(beatClass.rawValue) \(classified.filter { $0.beatClass == beatClass }.count)" }
        return "\(record.name): \(beats.count) beats on lead \(lead) (\(record.leadNames[lead])), \(counts.joined(separator: " ")) → \(output)"
    }
}

/// `ecg convert`: a record between WFDB, EDF/EDF+ and CSV, by extension.
public struct ECGConvertRun {
    public var input: String
    public var output: String
    /// leads to keep (labels or indices); empty: all
    public var leads: [String] = []
    public var annotator = "atr"
    /// a CSV input's sample rate [Hz], checked against its time column
    public var rate: Double?
    /// refuse an EDF cut short instead of converting its complete records
    public var strict = false
    /// the excerpt to write [s from the record's start]: `--from`, `--to` (nil: the whole record)
    public var from: Double?
    public var to: Double?

    public init(input: String, output: String) {
        self.input = input
        self.output = output
    }

    /// Converts; what was left out goes to stderr; returns what was written.
    public func run() throws -> String {
        var recording = try ECGRecordFormat.readRecording(path: input, annotator: annotator, declaredRate: rate,
                                                          strict: strict)
        var written: [String]
        for note in recording.notes { printError("\(input): \(note)") }
        if from != nil || to != nil {
            recording = try recording.excerpt(from: from ?? 0, to: to, file: input)
            for note in recording.notes { printError("\(output): \(note)") }
        }
        if !leads.isEmpty {
            let chosen = try leads.map { try LeadSelector($0).resolve(in: recording.labels, file: input) }
            recording.signals = chosen.map { recording.signals[$0] }
        }
        switch ECGRecordFormat(path: output) {
        case .edf:
            try EDFWriter.write(recording, to: output)
            written = recording.signals.map { "\($0.label) \(Self.rate($0.sampleRate)) Hz" }
        case .wfdb:
            try WFDBWriter.write(recording, to: output)
            written = recording.signals.map { "\($0.label) \(Self.rate($0.sampleRate)) Hz" }
        case .csv:
            let (record, _, others) = try recording.record(lead: leads.first.map(LeadSelector.init), file: input)
            if !others.isEmpty { printError("\(output): at another rate than \(record.sampleRate) Hz, not written: \(others.joined(separator: ", "))") }
            if !recording.annotations.isEmpty { printError("\(output): CSV holds no annotations: \(recording.annotations.count) left out") }
            try CSVRecordWriter.write(record, to: output)
            written = record.leadNames.map { "\($0) \(Self.rate(record.sampleRate)) Hz" }
            recording.annotations = []
        }
        let length = recording.signals.map { Double($0.digital.count) / $0.sampleRate }.max() ?? 0
        let excerpt = from != nil || to != nil ? String(format: " (%.3f s from %g s)", length, from ?? 0) : ""
        return "\(input)\(excerpt) → \(output): \(written.joined(separator: ", ")); \(recording.annotations.count) annotations"
    }

    /// a rate as people write it: 360, 0.9765625, 360 for a CSV's measured 359.99999996
    static func rate(_ hz: Double) -> String { String(format: "%.9g", hz) }
}
