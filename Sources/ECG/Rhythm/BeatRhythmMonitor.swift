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
/// Beats go in as the clock passes them (`advance(to:)`); the status is
/// judged at the end of each step, as the pipeline judges it at the end of
/// each chunk. A beat's class is the file's label where it has one, else
/// normal. Stretches where the list cannot be a heart's beats (`BeatListQuality`)
/// read "unreadable", never AF.
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

    private let monitor: RhythmMonitor
    private let list: BeatList
    private var quality: BeatListQuality
    private var nextBeat = 0

    public init(_ list: BeatList) {
        self.list = list
        sampleRate = list.sampleRate
        monitor = RhythmMonitor(sampleRate: list.sampleRate)
        quality = BeatListQuality(sampleRate: list.sampleRate)
    }

    /// the end of the beat list's recording [samples]
    public var endSample: Int { list.endSample }

    /// Moves the clock to `sample` (exclusive): the beats before it go in,
    /// then the status is judged there.
    /// - Returns: the episode logged now (an abnormal rhythm that has held long enough), if any
    @discardableResult
    public func advance(to sample: Int) -> RhythmEvent? {
        guard sample > sampleCount else { return nil }
        while nextBeat < list.samples.count, list.samples[nextBeat] < sample {
            let at = list.samples[nextBeat]
            let beatClass = list.classes?[nextBeat] ?? .normal
            monitor.beat(at: at)
            quality.beat(at: at)
            let beat = ClassifiedBeat(sample: at, beatClass: beatClass)
            monitor.ruled(beat)
            monitor.classified(beat)
            nextBeat += 1
            beatCount += 1
        }
        let previous = sampleCount
        sampleCount = sample
        let readable = quality.isReadable(now: sample - 1)
        if !readable { unreadableSeconds += Int((Double(sample - previous) / sampleRate).rounded()) }
        let status = monitor.update(now: sample - 1, quality: readable ? .good : .unreadable)
        let pause = status.code == .pause ? monitor.secondsSinceLastBeat(now: sample - 1) : nil
        return events.observe(status.code, time: Double(sample) / sampleRate, heartRate: monitor.heartRate, duration: pause)
    }

    /// The episodes that ended since the last call (each once).
    public func takeEndedEpisodes() -> [RhythmEvent] { events.takeEnded() }

    /// Ends the input: every open episode ends at the clock's time; returns the episodes that ended.
    public func finish() -> [RhythmEvent] {
        events.finishAll(at: Double(sampleCount) / sampleRate)
        return events.takeEnded()
    }
}

/// Whether a beat list can be a heart's beats at a time: an automatic
/// detector's list drops beats (some Holter `.qrs` files hold half of the
/// beats or fewer) or adds noise, and what is left reads as a wild rhythm
/// that is not one. Unreadable, for `holdSeconds` after any of:
/// - a gap: no beat for more than `gapSeconds` (a sinus pause of 3 s or more is
///   rare and is reported as a pause first: the gap begins past it);
/// - an interval shorter than `shortestInterval` (faster than 300 beats/min: no
///   conducted rhythm is, so one of the two beats is noise).
public struct BeatListQuality: Sendable {
    public static let gapSeconds = 5.0
    public static let shortestInterval = 0.2
    public static let holdSeconds = 5.0

    let sampleRate: Double
    private var lastBeat: Int?
    /// until when the list is unreadable [samples]
    private var unreadableUntil = Int.min

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
    }

    public mutating func beat(at sample: Int) {
        defer { lastBeat = sample }
        let hold = Int(Self.holdSeconds * sampleRate)
        guard let last = lastBeat else { return }
        let interval = sample - last
        if Double(interval) < Self.shortestInterval * sampleRate { unreadableUntil = max(unreadableUntil, sample + hold) }
        if Double(interval) > Self.gapSeconds * sampleRate { unreadableUntil = max(unreadableUntil, sample + hold) }
    }

    /// whether the list reads as a heart's beats at `now` [samples]
    public func isReadable(now: Int) -> Bool {
        if now < unreadableUntil { return false }
        if let lastBeat, Double(now - lastBeat) > Self.gapSeconds * sampleRate { return false }
        return true
    }
}

/// A whole beat list through `BeatRhythmMonitor`, a second at a time: what
/// `ecg score --rhythm --beats` scores and `ecg classify --beats` reads.
public struct BeatRhythmAnalysis: Sendable {
    /// the rhythm at the end of each whole second
    public var secondCodes: [RhythmCode]
    /// episodes, in start order
    public var episodes: [RhythmEvent]
    public var afBurden: Double?
    public var heartRate: Double?
    public var classCounts: [BeatClass: Int]
    /// length of the recording [s]
    public var duration: Double

    public static func analyze(_ list: BeatList) -> BeatRhythmAnalysis {
        let monitor = BeatRhythmMonitor(list)
        let rate = list.sampleRate
        var codes: [RhythmCode] = []
        codes.reserveCapacity(Int(list.duration) + 1)
        var rates: [Double] = []
        var second = 1
        while Double(second) * rate <= Double(list.endSample) {
            monitor.advance(to: Int((Double(second) * rate).rounded()))
            codes.append(monitor.status.code)
            if let heartRate = monitor.heartRate, monitor.status.code != .unreadable { rates.append(heartRate) }
            second += 1
        }
        monitor.advance(to: list.endSample)
        _ = monitor.finish()
        var episodes = monitor.events.events
        episodes.sort { $0.time < $1.time }
        rates.sort()
        return BeatRhythmAnalysis(secondCodes: codes, episodes: episodes, afBurden: monitor.rhythm.afBurden,
                                  heartRate: rates.isEmpty ? nil : rates[rates.count / 2],
                                  classCounts: monitor.rhythm.classCounts, duration: list.duration)
    }
}
