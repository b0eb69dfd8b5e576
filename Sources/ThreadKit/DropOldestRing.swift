import Dispatch
import Synchronization

/// A bounded queue between one producer that must never wait (a USB
/// callback, a DSP loop) and one consumer that waits for work (a DSP thread,
/// a file writer). Its slots are made once and reused in place: `push` fills
/// the next slot through a closure, `pop` reads (or swaps out) the oldest,
/// so once the slots have grown to their size neither side allocates. When
/// full, `push` overwrites the oldest slot and counts it as dropped.
///
/// Closing says what happens to what is queued, explicitly: `.drain` hands
/// it out before `pop` reports `.closed` (a recording's frames must reach
/// the file), `.discard` forgets it (a live view's stale blocks).
///
/// The state lives in a `Mutex`; a waiting consumer sleeps on a semaphore
/// the producer signals only when the consumer said it was waiting, so a
/// busy producer costs one lock per push and no system call.
public final class DropOldestRing<Slot: Sendable>: Sendable {
    public enum OnClose: Sendable { case drain, discard }
    public enum Taken: Sendable, Equatable { case item, timedOut, closed }

    private struct State {
        var slots: [Slot]
        /// index of the oldest queued slot
        var head = 0
        var count = 0
        var closed = false
        var dropped = 0
        /// the consumer is (about to be) asleep on `wakeup`
        var consumerWaiting = false
    }

    public let capacity: Int
    private let onClose: OnClose
    private let state: Guarded<State>
    private let wakeup = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - capacity: slots (at least 1)
    ///   - makeSlot: makes each slot once, up front
    public init(capacity: Int, onClose: OnClose, makeSlot: () -> Slot) {
        self.capacity = max(1, capacity)
        self.onClose = onClose
        var slots: [Slot] = []
        slots.reserveCapacity(self.capacity)
        for _ in 0..<self.capacity { slots.append(makeSlot()) }
        state = Guarded(State(slots: slots))
    }

    /// items overwritten because the consumer fell behind
    public var dropped: Int { state.withLock { $0.dropped } }

    /// items queued now
    public var count: Int { state.withLock { $0.count } }

    /// Fills the next slot in place (the oldest item is dropped if full) and
    /// wakes the consumer; false, without calling `fill`, after `close`.
    @discardableResult
    public func push(_ fill: (inout Slot) -> Void) -> Bool {
        let wake: Bool? = state.withLock { state in
            guard !state.closed else { return nil }
            let capacity = state.slots.count
            if state.count == capacity {
                state.head = (state.head + 1) % capacity
                state.count -= 1
                state.dropped += 1
            }
            fill(&state.slots[(state.head + state.count) % capacity])
            state.count += 1
            return Self.takeWaiting(&state)
        }
        if wake == true { wakeup.signal() }
        return wake != nil
    }

    /// Lets `extend` add to the newest queued item when `canExtend` accepts
    /// it (packing small chunks into one block); false when nothing is
    /// queued, it was refused, or the ring is closed: then push a new one.
    public func extendNewest(if canExtend: (Slot) -> Bool, _ extend: (inout Slot) -> Void) -> Bool {
        state.withLock { state in
            guard !state.closed, state.count > 0 else { return false }
            let newest = (state.head + state.count - 1) % state.slots.count
            guard canExtend(state.slots[newest]) else { return false }
            extend(&state.slots[newest])
            return true
        }
    }

    /// Waits up to `timeout` [s] (nil: for ever) for the oldest item and
    /// hands its slot to `read` (which may swap its contents out). After
    /// `close`: `.drain` rings hand out what is queued, then `.closed`.
    public func pop(timeout: Double? = nil, _ read: (inout Slot) -> Void) -> Taken {
        let deadline = timeout.map { DispatchTime.now() + max(0, $0) }
        while true {
            let taken: Taken? = state.withLock { state in
                if state.count > 0, !(state.closed && onClose == .discard) {
                    read(&state.slots[state.head])
                    state.head = (state.head + 1) % state.slots.count
                    state.count -= 1
                    return .item
                }
                if state.closed { return .closed }
                state.consumerWaiting = true
                return nil
            }
            if let taken { return taken }
            if let deadline {
                if wakeup.wait(timeout: deadline) == .timedOut {
                    // a push may have cleared the flag and signalled since: that signal stays for the next wait
                    state.withLock { $0.consumerWaiting = false }
                    return .timedOut
                }
            } else {
                wakeup.wait()
            }
        }
    }

    /// Stops accepting items and wakes the consumer.
    public func close() {
        let wake = state.withLock { state in
            state.closed = true
            if state.consumerWaiting == false { return false }
            state.consumerWaiting = false
            return true
        }
        if wake { wakeup.signal() }
    }

    /// Empties the ring and accepts items again (the dropped count is kept).
    public func reopen() {
        state.withLock { state in
            state.head = 0
            state.count = 0
            state.closed = false
        }
    }

    /// Whether the consumer must be woken; clears its flag.
    private static func takeWaiting(_ state: inout State) -> Bool {
        guard state.consumerWaiting else { return false }
        state.consumerWaiting = false
        return true
    }
}
