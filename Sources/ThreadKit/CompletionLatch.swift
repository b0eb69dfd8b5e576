import Dispatch
import Synchronization

/// How a headless run ends, decided once: the first of a completion or
/// failure reported from any thread (`complete`), a stop signal, no activity
/// for the stall time, or the run's duration. Every headless run (sweep,
/// rtl_power, record, meter, probe, events) waits on one of these, so they
/// end the same way for the same reasons.
public final class CompletionLatch<Outcome: Sendable>: Sendable {
    private let first = FirstValue<Outcome>()
    private let wake = DispatchSemaphore(value: 0)
    /// bumped by the producer on every block or frame, read by the watchdog
    private let activity = Atomic<Int>(0)

    public init() {}

    /// Ends the run with `outcome` unless it has ended; true if this ended it.
    @discardableResult
    public func complete(_ outcome: Outcome) -> Bool {
        guard first.record(outcome) else { return false }
        wake.signal()
        return true
    }

    /// the outcome, once decided
    public var outcome: Outcome? { first.value }

    /// Tells the stall watchdog the source delivered something (any thread, lock-free).
    public func noteActivity() { activity.add(1, ordering: .relaxed) }

    /// A rule that ends the run after some time: `seconds` without activity
    /// (a stall) or since the wait began (a duration), with `outcome`.
    public struct Rule: Sendable {
        public var seconds: Double
        public var outcome: Outcome
        public init(after seconds: Double, _ outcome: Outcome) {
            self.seconds = seconds
            self.outcome = outcome
        }
    }

    /// Waits until the run ends and returns how.
    /// - Parameters:
    ///   - signals: signals that end it with `onSignal` (nil: not watched)
    ///   - stall: no `noteActivity` for this long ends it
    ///   - duration: this long after the wait began ends it
    ///   - tick: called about every `tickSeconds` while waiting (a countdown line); nil: no tick
    public func wait(signals: [Int32] = SignalWatch.stopSignals, onSignal: Outcome? = nil, stall: Rule? = nil,
                     duration: Rule? = nil, tickSeconds: Double? = nil, tick: () -> Void = {}) -> Outcome {
        var watch: SignalWatch?
        if let onSignal { watch = SignalWatch(signals: signals) { [self] in complete(onSignal) } }
        defer { watch?.cancel() }
        let started = DispatchTime.now()
        var lastActivity = activity.load(ordering: .relaxed)
        var lastActive = started
        while true {
            if let outcome = first.value { return outcome }
            let now = DispatchTime.now()
            if let duration, Self.seconds(from: started, to: now) >= duration.seconds { complete(duration.outcome) }
            if let stall {
                let seen = activity.load(ordering: .relaxed)
                if seen != lastActivity {
                    lastActivity = seen
                    lastActive = now
                } else if Self.seconds(from: lastActive, to: now) >= stall.seconds {
                    complete(stall.outcome)
                }
            }
            if first.value != nil { continue }
            tick()
            var step = tickSeconds ?? 1.0
            if let stall { step = min(step, stall.seconds / 4) }
            if let duration { step = min(step, max(0.001, duration.seconds - Self.seconds(from: started, to: now))) }
            _ = wake.wait(timeout: now + step)
        }
    }

    private static func seconds(from start: DispatchTime, to end: DispatchTime) -> Double {
        Double(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
