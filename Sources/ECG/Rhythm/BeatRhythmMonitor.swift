import Foundation

/// What a per-second rhythm report reads: the live pipeline over a signal
/// (`ECGPipeline`), or the rhythm engine over beat times (`BeatRhythmMonitor`).
public protocol RhythmReporting: AnyObject {
    var status: RhythmStatus { get }
    /// smoothed heart rate [beats/min], nil before two beats
    var heartRate: Double? { get }
    var rhythm: RhythmMonitor { get }
    /// samples of the clock elapsed since the start
    var sampleCount: Int { get }
    var sampleRate: Double { get }
    var events: RhythmEventLog { get }
}

extension ECGPipeline: RhythmReporting {}

/// The rhythm engine over beat times alone (a WFDB annotation file, a Holter
/// export, RR intervals from a strap): the same monitor, episodes and AF
/// burden as `ECGPipeline`, with the beat list's clock for the signal's.
///
/// Second by second (`advance(toSecond:)`): the beats up to the second's end
/// go in, AF and readability come from `RRAFDetector` (RR irregularity through
/// the trees trained by Tools/train-af-rr), heart rate, brady- and
/// tachycardia, pauses and ectopy counts from `RhythmMonitor` as over a
/// signal. A beat's class is the file's label where it has one, else normal.
/// Where the beats cannot be a heart's (gaps over 3 s, intervals beyond
/// physiology, a beat rate that collapses as when a detector drops beats) the
/// second reads "unreadable", never AF.
public final class BeatRhythmMonitor: RhythmReporting {
    public let sampleRate: Double
    public private(set) var sampleCount = 0
    public private(set) var events = RhythmEventLog()
    public var status: RhythmStatus { monitor.status }
    public var heartRate: Double? { monitor.heartRate }
    public var rhythm: RhythmMonitor { monitor }
    /// beats read so far
    public private(set) var beatCount = 0
    /// seconds judged unreadable so far
    public private(set) var unreadableSeconds = 0
    /// whole seconds judged so far
    public private(set) var seconds = 0
    /// the last second's P(AF) from the trees, nil where unreadable
    public private(set) var afProbability: Double?

    private let monitor: RhythmMonitor
    private let detector: RRAFDetector
    private var list: BeatList
    private var nextBeat = 0

    public init(_ list: BeatList) {
        self.list = list
        sampleRate = list.sampleRate
        monitor = RhythmMonitor(sampleRate: list.sampleRate)
        detector = RRAFDetector(sampleRate: list.sampleRate)
    }

    /// the end of the beat list's recording [samples]
    public var endSample: Int { list.endSample }

    /// A monitor fed beat by beat as beats arrive (a heart-rate strap's RR intervals), on a clock of `sampleRate`.
    public convenience init(liveName name: String, sampleRate: Double) {
        self.init(BeatList(name: name, sampleRate: sampleRate, samples: []))
    }

    /// Adds a beat at `sample` (after every beat before it), for the seconds not yet judged.
    public func append(beatAt sample: Int) {
        guard sample > (list.samples.last ?? -1) else { return }
        list.samples.append(sample)
        if list.classes != nil { list.classes?.append(.normal) }
        list.endSample = max(list.endSample, sample + 1)
    }

    /// the clock's sample at the end of whole second `second`
    public func sample(atSecond second: Int) -> Int { Int((Double(second) * sampleRate).rounded()) }

    /// Judges every whole second up to `second` (the beats at or before each one's end go in first).
    /// - Returns: the episode logged now (an abnormal rhythm that has held long enough), if any
    @discardableResult
    public func advance(toSecond second: Int) -> RhythmEvent? {
        var logged: RhythmEvent?
        while seconds < second {
            seconds += 1
            let end = sample(atSecond: seconds)
            addBeats(through: end)
            let verdict = detector.endOfSecond(at: end)
            afProbability = verdict.probability
            // before the detector's first full window the list is not unreadable, only young
            let young = beatCount <= RRAFModelData.windowIntervals
            let readable = verdict.code != .unreadable || young
            monitor.afFromEngine = verdict.code == .af
            if !readable { unreadableSeconds += 1 }
            sampleCount = end
            let status = monitor.update(now: end, quality: readable ? .good : .unreadable)
            let pause = status.code == .pause ? monitor.secondsSinceLastBeat(now: end) : nil
            logged = events.observe(status.code, time: Double(seconds), heartRate: monitor.heartRate, duration: pause) ?? logged
        }
        return logged
    }

    private func addBeats(through end: Int) {
        while nextBeat < list.samples.count, list.samples[nextBeat] <= end {
            let at = list.samples[nextBeat]
            let beatClass = list.classes?[nextBeat] ?? .normal
            monitor.beat(at: at)
            detector.addBeat(at: at)
            let beat = ClassifiedBeat(sample: at, beatClass: beatClass)
            monitor.ruled(beat)
            monitor.classified(beat)
            nextBeat += 1
            beatCount += 1
        }
    }

    /// The episodes that ended since the last call (each once).
    public func takeEndedEpisodes() -> [RhythmEvent] { events.takeEnded() }

    /// Ends the input: every open episode ends at the last second judged; returns the episodes that ended.
    public func finish() -> [RhythmEvent] {
        events.finishAll(at: Double(seconds))
        return events.takeEnded()
    }
}

/// A whole beat list through `BeatRhythmMonitor`, a second at a time: what
/// `ecg score --rhythm --beats` scores.
public struct BeatRhythmAnalysis: Sendable {
    /// the rhythm at the end of each whole second
    public var secondCodes: [RhythmCode]
    /// episodes, in start order
    public var episodes: [RhythmEvent]
    public var afBurden: Double?
    /// median of the per-second heart rates of readable seconds [beats/min]
    public var heartRate: Double?
    public var classCounts: [BeatClass: Int]
    /// length of the recording [s]
    public var duration: Double

    public static func analyze(_ list: BeatList) -> BeatRhythmAnalysis {
        let monitor = BeatRhythmMonitor(list)
        var codes: [RhythmCode] = []
        codes.reserveCapacity(Int(list.duration) + 1)
        var rates: [Double] = []
        var second = 1
        while monitor.sample(atSecond: second) <= list.endSample {
            monitor.advance(toSecond: second)
            codes.append(monitor.status.code)
            if let heartRate = monitor.heartRate, monitor.status.code != .unreadable { rates.append(heartRate) }
            second += 1
        }
        _ = monitor.finish()
        var episodes = monitor.events.events
        episodes.sort { $0.time < $1.time }
        rates.sort()
        return BeatRhythmAnalysis(secondCodes: codes, episodes: episodes, afBurden: monitor.rhythm.afBurden,
                                  heartRate: rates.isEmpty ? nil : rates[rates.count / 2],
                                  classCounts: monitor.rhythm.classCounts, duration: list.duration)
    }
}

extension BeatRhythmAnalysis {
    /// seconds judged unreadable
    public var unreadableSeconds: Int { secondCodes.reduce(0) { $0 + ($1 == .unreadable ? 1 : 0) } }

    /// A verdict per recording from its beats, as a Holter summary gives one: too_short under 33 beats
    /// (the AF window) or 30 s; af with an AF episode (AF held 30 s in readable beats, however much else
    /// is unreadable); noisy when over half the seconds are unreadable; other with a brady-, tachycardia
    /// or irregular episode; else normal.
    public var verdict: RecordingVerdict {
        let beats = classCounts.values.reduce(0, +)
        if beats <= RRAFModelData.windowIntervals || duration < 30 { return .tooShort }
        if episodes.contains(where: { $0.code == .af }) { return .af }
        if 2 * unreadableSeconds > secondCodes.count { return .noisy }
        if episodes.contains(where: { [.bradycardia, .tachycardia, .irregular].contains($0.code) }) { return .other }
        return .normal
    }
}
