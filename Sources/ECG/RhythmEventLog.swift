/// The events a monitor logged: one per onset of an abnormal rhythm, newest
/// last, at most `capacity` (the oldest go first). A user can select and delete.
public struct RhythmEventLog: Sendable, Equatable {
    public private(set) var events: [RhythmEvent] = []
    public let capacity: Int
    /// index into `events` of the selected event, nil when empty
    public private(set) var selection: Int?
    private var lastCode: RhythmCode = .normal

    public init(capacity: Int = 200) {
        self.capacity = max(1, capacity)
        events.reserveCapacity(self.capacity)
    }

    /// Notes the current status; logs an event only on a change into an abnormal
    /// state (normal → pause, or bradycardia → tachycardia), never for a repeat.
    /// - Returns: the new event, if one was logged
    /// A pause goes on: its event's `durationSeconds` follows `duration`.
    @discardableResult
    public mutating func observe(_ code: RhythmCode, time: Double, heartRate: Double?,
                                 duration: Double? = nil) -> RhythmEvent? {
        defer { lastCode = code }
        if code == .pause, lastCode == .pause, let last = events.indices.last, events[last].code == .pause {
            events[last].durationSeconds = duration
        }
        guard code != lastCode, code.isAbnormal else { return nil }
        if events.count == capacity {
            events.removeFirst()
            selection = selection.map { max(0, $0 - 1) }
        }
        let event = RhythmEvent(time: time, code: code, heartRateBPM: heartRate,
                                durationSeconds: code == .pause ? duration : nil)
        events.append(event)
        if selection == nil { selection = events.count - 1 }
        return event
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
