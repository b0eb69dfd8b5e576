import ECG

/// The rhythm events logged so far, as the event list shows them: newest
/// first, one selected, the selected one deletable. Holds at most `capacity`
/// events; beyond that the oldest is dropped and counted.
public struct ECGEventListModel: Sendable, Equatable {
    /// most events kept
    public let capacity: Int
    /// oldest first
    public private(set) var events: [RhythmEvent] = []
    /// index into `newestFirst` of the selected event; nil when the list is empty
    public private(set) var selection: Int?
    public private(set) var isOpen = false
    /// events dropped because the list was full
    public private(set) var droppedCount = 0

    public init(capacity: Int = 1000) {
        self.capacity = max(1, capacity)
        events.reserveCapacity(self.capacity)
    }

    /// The event at `index` of the list as shown (0 = newest).
    public func event(newestFirst index: Int) -> RhythmEvent? {
        guard index >= 0, index < events.count else { return nil }
        return events[events.count - 1 - index]
    }

    public var count: Int { events.count }

    /// Logs an event. The selection stays on the event it was on.
    public mutating func append(_ event: RhythmEvent) {
        if events.count == capacity {
            events.removeFirst()
            droppedCount += 1
            if let selected = selection, selected == events.count { selection = selected - 1 }
        }
        events.append(event)
        if let selected = selection {
            selection = selected + 1
        } else {
            selection = 0
        }
    }

    /// Replaces the newest event by `event` when it is the same event (its
    /// time and rhythm) with news, such as a pause that went on.
    public mutating func updateNewest(_ event: RhythmEvent) {
        guard let last = events.indices.last, events[last].time == event.time, events[last].code == event.code,
              events[last] != event else { return }
        events[last] = event
    }

    /// `e`: show or hide the list; opening selects the newest event.
    public mutating func toggleOpen() {
        isOpen.toggle()
        if isOpen { selection = events.isEmpty ? nil : 0 }
    }

    public mutating func close() { isOpen = false }

    /// ↑ (−1, newer) / ↓ (+1, older), clamped to the list.
    public mutating func moveSelection(by steps: Int) {
        guard !events.isEmpty else { return }
        selection = min(max((selection ?? 0) + steps, 0), events.count - 1)
    }

    /// `x`: deletes the selected event; the selection moves to the next older
    /// one (or the new oldest). Returns the deleted event.
    @discardableResult
    public mutating func deleteSelected() -> RhythmEvent? {
        guard let selected = selection, selected < events.count else { return nil }
        let removed = events.remove(at: events.count - 1 - selected)
        selection = events.isEmpty ? nil : min(selected, events.count - 1)
        return removed
    }
}
