import Foundation

/// Everything after the source for one ECG stream: per-lead filters and
/// history rings, QRS detection on one lead, heart rate, rhythm status and the
/// event log. Storage is allocated in `init`; `process` allocates nothing.
///
/// AF is decided by the same engine as over a beat list (`RRAFDetector`, as
/// `BeatRhythmMonitor` runs it): at the end of every whole second of the
/// sample clock, from the times of the beats detected so far.
public final class ECGPipeline {
    public let leadNames: [String]
    public let sampleRate: Double
    /// lead the QRS detector and the signal-quality meter watch
    public let qrsLead: Int
    /// filtered history per lead (newest `historySeconds`)
    public private(set) var history: ECGLeadRings
    /// recent R peaks (sample indices), oldest first
    public private(set) var beats: [Int] = []
    public private(set) var events: RhythmEventLog
    public var status: RhythmStatus { monitor.status }
    public var heartRate: Double? { monitor.heartRate }
    /// the rhythm monitor: beat class counts, AF burden, ectopic beats per minute
    public var rhythm: RhythmMonitor { monitor }
    /// recent classified beats (R peak and class), oldest first, decided two beats late
    public private(set) var classifiedBeats: [ClassifiedBeat] = []
    /// every classified beat since the start, when `keepsEveryBeat` (an off-line analysis); else empty
    public private(set) var everyClassifiedBeat: [ClassifiedBeat] = []
    /// every beat by the classifier's rules alone, when `keepsEveryBeat`; else empty
    public private(set) var everyRuledBeat: [ClassifiedBeat] = []
    public var keepsEveryBeat = false
    /// samples seen per lead since the start
    public private(set) var sampleCount = 0
    /// missing (NaN) samples replaced by the previous value, all leads
    public private(set) var missingSamples = 0

    private let filters: [ECGFilterChain]
    private let detector: any BeatDetector
    /// which QRS detector runs on `qrsLead`
    public let detectorKind: BeatDetectorKind
    private let monitor: RhythmMonitor
    /// AF from the detected beats' RR intervals, judged once a second
    private let afEngine: RRAFDetector
    /// whole seconds of the sample clock judged by `afEngine` so far
    private var judgedSeconds = 0
    /// the last judged second's P(AF) from the trees, nil where the beats were unreadable or too few
    public private(set) var afProbability: Double?
    private var quality: SignalQualityMeter
    /// each lead's last finite sample [mV], NaN before the first
    private var lastValues: [Float]
    private var newBeats: [Int] = []
    private let classifier: BeatClassifier
    /// detected beats whose window (±0.25 s of filtered signal) is not complete yet
    private var unclassified: [Int] = []
    private var window: [Float]
    private var decided: [ClassifiedBeat] = []
    /// the same beats by the classifier's rules alone (what the rhythm rules read), a beat sooner
    private var ruled: [ClassifiedBeat] = []
    static let beatCapacity = 64

    public init(leadNames: [String], sampleRate: Double, qrsLead: Int = 0, historySeconds: Double = 10,
                detector: BeatDetectorKind = .standard, beatModel: BeatModelChoice = .committed,
                filters: (Int) -> ECGFilterChain) {
        self.leadNames = leadNames
        self.sampleRate = sampleRate
        self.qrsLead = min(max(qrsLead, 0), max(leadNames.count - 1, 0))
        history = ECGLeadRings(leadCount: leadNames.count, capacity: Int(historySeconds * sampleRate))
        self.filters = leadNames.indices.map(filters)
        self.detector = detector.make(sampleRate: sampleRate)
        detectorKind = detector
        monitor = RhythmMonitor(sampleRate: sampleRate)
        afEngine = RRAFDetector(sampleRate: sampleRate)
        quality = SignalQualityMeter(sampleRate: sampleRate)
        classifier = BeatClassifier(sampleRate: sampleRate, beatModel: beatModel)
        window = Array(repeating: .nan, count: classifier.windowLength)
        unclassified.reserveCapacity(16)
        decided.reserveCapacity(16)
        ruled.reserveCapacity(16)
        classifiedBeats.reserveCapacity(Self.beatCapacity + 8)
        events = RhythmEventLog()
        lastValues = Array(repeating: .nan, count: leadNames.count)
        beats.reserveCapacity(Self.beatCapacity + 8)
        newBeats.reserveCapacity(8)
    }

    /// A pipeline with the standard chain (0.5 Hz high-pass, mains notch, 40 Hz low-pass) on every lead.
    public convenience init(source: ECGSource, qrsLead: Int = 0, mains: Double? = 50, historySeconds: Double = 10,
                            detector: BeatDetectorKind = .standard) {
        let rate = source.sampleRate
        self.init(leadNames: source.leadNames, sampleRate: rate, qrsLead: qrsLead, historySeconds: historySeconds,
                  detector: detector) { _ in
            ECGFilterChain.standard(sampleRate: rate, mains: mains)
        }
    }

    /// Filters the chunk in place (live, causal) and updates beats, status and events.
    /// - Returns: the event logged for this chunk (a fresh abnormal rhythm), if any
    @discardableResult
    public func process(_ chunk: inout ECGChunk) -> RhythmEvent? {
        let count = chunk.count
        guard count > 0 else { return nil }
        for lead in 0..<min(chunk.leads.count, leadNames.count) {
            chunk.leads[lead].withUnsafeMutableBufferPointer { whole in
                let samples = UnsafeMutableBufferPointer(rebasing: whole[0..<count])
                holdMissing(samples, lead: lead)
                if lead == qrsLead {
                    newBeats.removeAll(keepingCapacity: true)
                    detector.process(UnsafeBufferPointer(samples), beats: &newBeats)
                }
                filters[lead].process(samples)
                if lead == qrsLead { quality.add(UnsafeBufferPointer(samples)) }
            }
        }
        history.write(chunk)
        sampleCount += count
        for beat in newBeats {
            monitor.beat(at: beat)
            if beats.count == Self.beatCapacity { beats.removeFirst() }
            beats.append(beat)
            unclassified.append(beat)
            afEngine.addBeat(at: beat)
        }
        judgeWholeSeconds()
        classifyReadyBeats()
        let status = monitor.update(now: sampleCount - 1, quality: quality.quality)
        let pause = status.code == .pause ? monitor.secondsSinceLastBeat(now: sampleCount - 1) : nil
        return events.observe(status.code, time: Double(sampleCount) / sampleRate, heartRate: monitor.heartRate,
                              duration: pause)
    }

    /// Runs the AF engine for each whole second the samples have passed: a second ends at sample
    /// round(s × rate), as over a beat list. Its beats are those the detector has reported by then
    /// (a beat comes up to about 0.6 s after its R peak, `BeatDetector.maximumDelay`). Beats too few,
    /// too far apart or implausibly close read not-AF here: the signal's own quality says noisy.
    private func judgeWholeSeconds() {
        while true {
            let end = Int((Double(judgedSeconds + 1) * sampleRate).rounded())
            guard end <= sampleCount else { return }
            let verdict = afEngine.endOfSecond(at: end)
            afProbability = verdict.probability
            monitor.afFromEngine = verdict.code == .af
            judgedSeconds += 1
        }
    }

    /// Classifies the detected beats whose ±0.25 s of filtered signal is in
    /// the history (`atEnd`: all, the missing end NaN); the classifier decides each two beats later.
    private func classifyReadyBeats(atEnd: Bool = false) {
        guard qrsLead < history.leads.count else { return }
        let ring = history.leads[qrsLead]
        let newest = sampleCount - 1
        decided.removeAll(keepingCapacity: true)
        ruled.removeAll(keepingCapacity: true)
        while let beat = unclassified.first, atEnd || beat + classifier.windowHalf <= newest {
            unclassified.removeFirst()
            for offset in 0..<window.count {
                let age = newest - (beat - classifier.windowHalf + offset)
                window[offset] = age >= 0 && age < ring.count ? ring[fromNewest: age] : .nan
            }
            window.withUnsafeBufferPointer { classifier.add(beat: beat, window: $0, decided: &decided, ruled: &ruled) }
        }
        record(decided, ruled: ruled)
    }

    private func record(_ decided: [ClassifiedBeat], ruled: [ClassifiedBeat]) {
        for beat in ruled {
            monitor.ruled(beat)
            if keepsEveryBeat { everyRuledBeat.append(beat) }
        }
        for beat in decided {
            monitor.classified(beat)
            if classifiedBeats.count == Self.beatCapacity { classifiedBeats.removeFirst() }
            classifiedBeats.append(beat)
            if keepsEveryBeat { everyClassifiedBeat.append(beat) }
        }
    }

    /// Replaces NaN and infinities by the lead's previous value, counting them.
    /// Before a lead's first finite sample they stay NaN (drawn as nothing,
    /// skipped by the filters and the detector): holding 0 there would be a
    /// step from zero to the lead's baseline that the detector takes for a beat.
    private func holdMissing(_ samples: UnsafeMutableBufferPointer<Float>, lead: Int) {
        var last = lastValues[lead]
        for index in samples.indices {
            if samples[index].isFinite {
                last = samples[index]
            } else {
                samples[index] = last
                missingSamples += 1
            }
        }
        lastValues[lead] = last
    }

    /// The episodes that ended since the last call (each once).
    public func takeEndedEpisodes() -> [RhythmEvent] { events.takeEnded() }

    /// Ends the input: the last beats are classified and every open episode
    /// ends at the last sample; returns the episodes that ended.
    public func finish() -> [RhythmEvent] {
        decided.removeAll(keepingCapacity: true)
        newBeats.removeAll(keepingCapacity: true)
        detector.finish(beats: &newBeats)
        for beat in newBeats where beat < sampleCount {
            monitor.beat(at: beat)
            unclassified.append(beat)
            afEngine.addBeat(at: beat)
        }
        newBeats.removeAll(keepingCapacity: true)
        classifyReadyBeats(atEnd: true)
        decided.removeAll(keepingCapacity: true)
        ruled.removeAll(keepingCapacity: true)
        classifier.finish(decided: &decided, ruled: &ruled)
        record(decided, ruled: ruled)
        events.finishAll(at: Double(sampleCount) / sampleRate)
        return events.takeEnded()
    }

    /// Deletes the selected event from the log (the viewer's `x`).
    public func deleteSelectedEvent() { events.deleteSelected() }
    public func selectEvent(_ index: Int) { events.select(index) }
}
