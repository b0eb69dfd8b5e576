/// The episodes a monitor logged, newest last, at most `capacity` (the oldest
/// go first). A user can select and delete.
///
/// Episodes, not flickers: an abnormal rhythm becomes an event only once it
/// has held for its minimum (`minimumSeconds`: atrial fibrillation 30 s, the
/// clinical definition of an episode; an irregular rhythm that is not AF 90 s,
/// longer than the AF engine takes to say AF and confirm it, about 40 + 30 s,
/// so the first minute of an AF episode is not a second event; brady- and
/// tachycardia 10 s; a pause at once, since its status already means 2 s
/// without a beat). The event's time is the episode's start. It ends when
/// the rhythm has been away for longer than its bridge (`bridgeSeconds`), so a
/// few seconds of another reading inside an AF episode (or of lost signal in a
/// flat pause) do not split it; its end is the last time the rhythm was seen.
public struct RhythmEventLog: Sendable, Equatable {
    public private(set) var events: [RhythmEvent] = []
    public let capacity: Int
    /// index into `events` of the selected event, nil when empty
    public private(set) var selection: Int?
    /// episodes that ended since the last `takeEnded()`, oldest first
    public private(set) var ended: [RhythmEvent] = []

    /// one candidate episode per rhythm code
    struct Candidate: Sendable, Equatable {
        var start: Double
        var lastSeen: Double
        /// its event in `events` once confirmed (nil before, or after deletion)
        var confirmed: Bool
        var event: RhythmEvent?
        /// heart rates seen since the start: sum, count and highest [beats/min]
        var rateSum = 0.0
        var rateCount = 0
        var rateMax: Double?

        mutating func note(_ heartRate: Double?) {
            guard let heartRate, heartRate.isFinite else { return }
            rateSum += heartRate
            rateCount += 1
            rateMax = max(rateMax ?? heartRate, heartRate)
        }

        var meanRate: Double? { rateCount > 0 ? rateSum / Double(rateCount) : nil }
    }
    private var candidates: [RhythmCode: Candidate] = [:]

    public init(capacity: Int = 200) {
        self.capacity = max(1, capacity)
        events.reserveCapacity(self.capacity)
    }

    /// how long a rhythm must hold before it is an event [s]
    public static func minimumSeconds(_ code: RhythmCode) -> Double {
        switch code {
        case .af: return 30
        case .irregular: return 90
        case .bradycardia, .tachycardia: return 10
        case .signalLost, .noisy, .unreadable: return 5
        case .pause, .normal: return 0
        }
    }

    /// how long a rhythm may be away inside one episode [s]
    public static func bridgeSeconds(_ code: RhythmCode) -> Double {
        switch code {
        case .af, .irregular: return 10
        case .bradycardia, .tachycardia: return 5
        // a flat pause also reads as lost signal now and then: one pause all the same
        case .signalLost, .noisy, .unreadable, .pause: return 2
        case .normal: return 0
        }
    }

    /// Notes the status at `time`. An episode that has now held for its
    /// minimum is logged and returned; an ongoing one's duration follows
    /// (`duration`, for a pause: the time without a beat so far).
    @discardableResult
    public mutating func observe(_ code: RhythmCode, time: Double, heartRate: Double?,
                                 duration: Double? = nil) -> RhythmEvent? {
        var logged: RhythmEvent?
        // end what has been away past its bridge
        // beats that cannot be read say nothing of the rhythm: an AF episode goes on through them
        for (other, candidate) in candidates where other != code && !(code == .unreadable && other == .af)
            && time - candidate.lastSeen > Self.bridgeSeconds(other) {
            finish(other, candidate)
        }
        guard code.isAbnormal else { return nil }
        var candidate = candidates[code] ?? Candidate(start: code == .pause ? time - (duration ?? 0) : time,
                                                      lastSeen: time, confirmed: false)
        candidate.lastSeen = time
        candidate.note(heartRate)
        let held = code == .pause ? (duration ?? time - candidate.start) : time - candidate.start
        if !candidate.confirmed, held >= Self.minimumSeconds(code) {
            candidate.confirmed = true
            var event = RhythmEvent(time: candidate.start, code: code, heartRateBPM: heartRate, durationSeconds: held)
            event.meanHeartRateBPM = candidate.meanRate
            event.maxHeartRateBPM = candidate.rateMax
            append(event)
            candidate.event = event
            logged = event
        } else if candidate.confirmed, var event = candidate.event {
            event.durationSeconds = held
            event.meanHeartRateBPM = candidate.meanRate
            event.maxHeartRateBPM = candidate.rateMax
            update(candidate.event, to: event)
            candidate.event = event
        }
        candidates[code] = candidate
        return logged
    }

    /// Ends every open episode at `time` (the end of the input).
    public mutating func finishAll(at time: Double) {
        for (code, var candidate) in candidates {
            candidate.lastSeen = min(max(candidate.lastSeen, candidate.start), time)
            finish(code, candidate)
        }
    }

    /// The episodes that ended since the last call, in start order (several can end at once).
    public mutating func takeEnded() -> [RhythmEvent] {
        defer { ended.removeAll(keepingCapacity: true) }
        return ended.count > 1 ? ended.sorted { ($0.time, $0.code.rawValue) < ($1.time, $1.code.rawValue) } : ended
    }

    private mutating func finish(_ code: RhythmCode, _ candidate: Candidate) {
        candidates[code] = nil
        guard candidate.confirmed, var event = candidate.event else { return }
        event.end = candidate.lastSeen
        if code != .pause { event.durationSeconds = candidate.lastSeen - candidate.start }
        update(candidate.event, to: event)
        // bounded like the log: a caller that never takes them does not grow memory
        if ended.count == capacity { ended.removeFirst() }
        ended.append(event)
    }

    private mutating func append(_ event: RhythmEvent) {
        if events.count == capacity {
            events.removeFirst()
            selection = selection.map { max(0, $0 - 1) }
        }
        events.append(event)
        if selection == nil { selection = events.count - 1 }
    }

    /// Replaces `old` in the log by `new` (the same episode with news), if it is still there.
    private mutating func update(_ old: RhythmEvent?, to new: RhythmEvent) {
        guard let old, let index = events.lastIndex(where: { $0.time == old.time && $0.code == old.code }) else { return }
        events[index] = new
    }

    public mutating func select(_ index: Int) {
        guard !events.isEmpty else { return }
        selection = min(max(index, 0), events.count - 1)
    }

    public mutating func selectNext() { select((selection ?? -1) + 1) }
    public mutating func selectPrevious() { select((selection ?? events.count) - 1) }

    /// Deletes the selected event; the selection moves to the next one (or the last).
    public mutating func deleteSelected() {
        guard let selection else { return }
        delete(at: selection)
    }

    public mutating func delete(at index: Int) {
        guard events.indices.contains(index) else { return }
        events.remove(at: index)
        if events.isEmpty {
            selection = nil
        } else if let current = selection {
            selection = min(current > index ? current - 1 : current, events.count - 1)
        }
    }
}
