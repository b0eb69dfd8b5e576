import ECG

/// One live ECG stream as the views consume it: a source, the `ECGPipeline`
/// after it (filters, QRS on one lead, heart rate, rhythm, events) and the
/// controls the keys reach (pause, the synthetic generator's sample rate).
/// `drain` moves what the source has through the pipeline into a monitor
/// model. Storage is allocated in `init` and on a rate change, not per read.
public final class ECGFeed {
    /// reads of the source per drain at most, so a source faster than real
    /// time cannot starve the screen [reads]
    static let maximumReadsPerDrain = 64
    /// samples per lead per read
    static let chunkCapacity = 1024

    public let source: any ECGSource
    /// "synthetic", the record name, "/dev/ttyUSB0", "stdin"
    public let sourceName: String
    /// lead the QRS detector watches
    public let qrsLead: Int
    /// mains frequency the notch removes [Hz]; nil for no notch
    public let mains: Double?
    /// the QRS detector the pipeline runs
    public let detector: BeatDetectorKind
    public private(set) var pipeline: ECGPipeline
    /// sample-clock indices of reference beats (a WFDB record's `.atr`), ascending
    public let referenceBeats: [Int]
    /// the record's other annotations by sample-clock index, ascending
    public let annotations: [ECGStripAnnotation]
    /// the source has ended (a record played out, stdin closed)
    public private(set) var ended = false
    private var chunk: ECGChunk
    /// reference beats at or before the pipeline's newest sample
    private var referenceCount = 0
    /// trend seconds appended, and how many of them before the pipeline last restarted (a rate change)
    private var trendSeconds = 0
    private var trendSecondsBeforeRestart = 0

    /// beats alone (a heart-rate strap), read instead of `source`, through `beatMonitor`
    public let beatSource: LiveBeatSource?
    private let beatMonitor: BeatRhythmMonitor?
    /// the newest beat taken from `beatSource` [its clock's samples], and the next second to report
    private var newestBeat: Int?
    private var nextBeatSecond = 1
    private var beatBuffer: [Int] = []

    /// A feed of beats alone: the rhythm engine over them (`BeatRhythmMonitor`, as
    /// `ecg monitor --rr` runs it), a trend point and status a second, events; no strip.
    public convenience init(beats: LiveBeatSource, sourceName: String) {
        self.init(source: NoSignalSource(sampleRate: beats.clockRate), sourceName: sourceName, mains: nil, beats: beats)
    }

    public init(source: any ECGSource, sourceName: String, qrsLead: Int = 0, mains: Double? = 50,
                referenceBeats: [Int] = [], annotations: [ECGStripAnnotation] = [],
                detector: BeatDetectorKind = .standard, beats: LiveBeatSource? = nil) {
        beatSource = beats
        beatMonitor = beats.map { BeatRhythmMonitor(liveName: sourceName, sampleRate: $0.clockRate) }
        self.detector = detector
        self.source = source
        self.sourceName = sourceName
        self.qrsLead = qrsLead
        self.mains = mains
        self.referenceBeats = referenceBeats.sorted()
        self.annotations = annotations.sorted { $0.sample < $1.sample }
        pipeline = ECGPipeline(source: source, qrsLead: qrsLead, mains: mains, detector: detector)
        chunk = ECGChunk(leadCount: max(1, source.leadNames.count), capacity: Self.chunkCapacity)
    }

    /// A strip model sized for this source, with its reference beats and annotations.
    public func makeStrip(stripSeconds: Double) -> ECGStripModel {
        var strip = ECGStripModel(leadNames: source.leadNames, sampleRate: source.sampleRate, stripSeconds: stripSeconds)
        strip.referenceBeats = referenceBeats
        strip.annotations = annotations
        return strip
    }
    /// the newest classified beat already marked on the strip (its sample index)
    private var lastMarkedBeat = -1

    /// Reads what the source has, filters it through the pipeline, appends
    /// the filtered samples to `model.strip` and new events to `model.events`.
    /// A linked source's breaks (a sensor's dropped link) are marked on the strip where they happened, and on the trend.
    /// - Returns: when the oldest sample read arrived: a linked source's own arrival time,
    ///   else the clock time of the read; nil if none was read
    public func drain(into model: inout ECGMonitorModel, clock: () -> Double) throws -> Double? {
        if let beatSource, let beatMonitor { return try drainBeats(beatSource, through: beatMonitor, into: &model, clock: clock) }
        var oldest: Double?
        let linked = source as? LinkedECGSource
        for _ in 0..<Self.maximumReadsPerDrain {
            let result = try source.read(into: &chunk)
            if let linked { markGaps(linked.gaps, on: &model) }
            switch result {
            case .samples(let count):
                guard count > 0 else { return oldest }
                if oldest == nil { oldest = linked?.lastReadArrival ?? clock() }
                if let event = pipeline.process(&chunk) { model.events.append(event) }
                // an episode still going on: its length grows in the list, and it shows its end
                if let newest = pipeline.events.events.last { model.events.updateNewest(newest) }
                _ = pipeline.takeEndedEpisodes()
                model.strip.append(chunk)
                for beat in pipeline.classifiedBeats where beat.sample > lastMarkedBeat {
                    if beat.beatClass != .normal { model.strip.markBeat(beat) }
                    lastMarkedBeat = beat.sample
                }
                appendTrend(to: &model.trend)
            case .waiting:
                return oldest
            case .end:
                ended = true
                return oldest
            }
        }
        return oldest
    }

    /// the linked source's breaks already marked on the strip and the trend
    private var gapsMarked = 0

    /// Takes the beats that arrived into the rhythm engine; every whole second they
    /// pass gives a trend point, the status, and an event when the rhythm turns abnormal.
    private func drainBeats(_ beats: LiveBeatSource, through monitor: BeatRhythmMonitor,
                            into model: inout ECGMonitorModel, clock: () -> Double) throws -> Double? {
        beatBuffer.removeAll(keepingCapacity: true)
        try beats.takeBeats(into: &beatBuffer)
        markGaps(beats.gaps, on: &model)
        guard !beatBuffer.isEmpty else { return nil }
        let arrival = beats.lastReadArrival ?? clock()
        for beat in beatBuffer {
            monitor.append(beatAt: beat)
            newestBeat = beat
        }
        while let newestBeat, monitor.sample(atSecond: nextBeatSecond) <= newestBeat {
            if let event = monitor.advance(toSecond: nextBeatSecond) { model.events.append(event) }
            if let newest = monitor.events.events.last { model.events.updateNewest(newest) }
            _ = monitor.takeEndedEpisodes()
            model.trend.append(measured: monitor.heartRate, reference: nil, inAF: monitor.status.code == .af,
                               afBurden: monitor.rhythm.afBurden)
            nextBeatSecond += 1
        }
        return arrival
    }

    /// Marks each new break of the stream on the strip ("gap 3.2 s" at the sample after which it came)
    /// and on the heart-rate trend, before its next second: nothing arrived while the link was down,
    /// so the break lies between the newest second the trend has and the next.
    private func markGaps(_ gaps: [ECGStreamGap], on model: inout ECGMonitorModel) {
        guard gaps.count > gapsMarked else { return }
        for gap in gaps[gapsMarked...] {
            model.strip.annotations.append(ECGStripAnnotation(sample: gap.afterSample, text: String(format: "gap %.1f s", gap.seconds)))
            model.trend.markGap(lasting: gap.seconds)
        }
        gapsMarked = gaps.count
    }

    /// the stream's breaks so far (a sensor's dropped links)
    public var gapCount: Int { gapsMarked }

    /// what a linked source says about its link now (reconnecting, a clock off its rate)
    public var linkNote: String? { beatSource?.linkNote ?? (source as? LinkedECGSource)?.linkNote }

    /// Appends a trend point for every whole second of signal the pipeline has
    /// passed: only what arrived since the last one.
    private func appendTrend(to trend: inout ECGHeartRateTrend) {
        let rate = pipeline.sampleRate
        while Double(pipeline.sampleCount) >= Double(trendSeconds - trendSecondsBeforeRestart + 1) * rate {
            let end = Double(trendSeconds - trendSecondsBeforeRestart + 1) * rate
            while referenceCount < referenceBeats.count, Double(referenceBeats[referenceCount]) < end { referenceCount += 1 }
            let reference = ECGHeartRateTrend.referenceRate(beats: referenceBeats[0..<referenceCount], sampleRate: rate)
            trend.append(measured: pipeline.heartRate, reference: reference, inAF: pipeline.status.code == .af,
                         afBurden: pipeline.rhythm.afBurden)
            trendSeconds += 1
        }
    }

    /// smoothed heart rate [beats/min]; nil until enough beats were seen
    public var heartRateBPM: Double? { beatMonitor?.heartRate ?? pipeline.heartRate }
    public var status: RhythmStatus { beatMonitor?.status ?? pipeline.status }

    /// Samples skipped so far: unparsable or NaN lines of a line source, and
    /// missing samples held over in the pipeline.
    public var skippedCount: Int {
        let lines = (source as? LineStreamSource).map { $0.garbageLines + $0.nonFiniteLines } ?? 0
        return lines + pipeline.missingSamples
    }

    /// Pauses or resumes a paced source (a record or the synthetic generator
    /// continue from the sample where they stopped); a live device runs on.
    public func setPaused(_ paused: Bool) {
        guard let paced = source as? PacedSource else { return }
        if paused { paced.pause() } else { paced.resume() }
    }

    /// Sets a replayed record's speed [× real time]; false for a source that
    /// is not replayed (a device, stdin or the generator run in real time).
    public func setPlaybackSpeed(_ speed: Double) -> Bool {
        guard let paced = source as? PacedSource, paced.source is RecordSource else { return false }
        paced.speed = speed
        return true
    }

    /// The generator whose rate the rate keys change, if the source is one.
    private var generator: SyntheticECG? {
        (source as? SyntheticECG) ?? ((source as? PacedSource)?.source as? SyntheticECG)
    }

    public var canChangeSampleRate: Bool { generator != nil }

    /// Makes the synthetic generator deliver `hz` samples per second from the
    /// next read on; the pipeline restarts at the new rate (its filters and
    /// detector are designed for one rate). The event history stays in the model.
    public func setSampleRate(_ hz: Double) throws {
        guard let generator else {
            throw ECGError(file: sourceName, "rate fixed by the source")
        }
        guard hz.isFinite, hz >= 50, hz <= 10_000 else {
            throw ECGError(file: sourceName, "sample rate \(hz) Hz not offered: choose 50–10000 Hz")
        }
        generator.sampleRate = hz
        pipeline = ECGPipeline(source: source, qrsLead: qrsLead, mains: mains, detector: detector)
        trendSecondsBeforeRestart = trendSeconds
    }
}

/// The signal of a feed of beats alone: one silent lead at the beats' clock, so
/// the strip and pipeline a feed carries exist; nothing is ever read from it.
final class NoSignalSource: ECGSource {
    let leadNames = ["RR"]
    let sampleRate: Double
    init(sampleRate: Double) { self.sampleRate = sampleRate }
    func read(into chunk: inout ECGChunk) throws -> ECGReadResult { .waiting }
}
