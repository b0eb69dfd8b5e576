import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Time as code that measures intervals sees it: what time it is, a way for
/// a thread to sleep until a moment unless something wakes it first, and a
/// way for a task to sleep until a moment. Code that times stalls, backoff,
/// outages or a frame rate takes one of these, so that tests can hand it a
/// `ManualClock` (ThreadKitTesting) and move time on by hand instead of sleeping.
public protocol MonotonicClock: Sendable {
    /// now [s]; only differences between readings mean anything
    var now: Double { get }

    /// Blocks the calling thread until `now` reaches `deadline` [s, this
    /// clock] or `doorbell` rings, whichever comes first. It may also
    /// return early, so callers re-check their own state after it.
    func wait(until deadline: Double, orUntilRung doorbell: Doorbell)

    /// Suspends the calling task until `now` reaches `deadline` [s, this
    /// clock]; throws `CancellationError` if the task is cancelled first.
    func sleep(until deadline: Double) async throws
}

/// Wakes a thread waiting on a `MonotonicClock` before its deadline (a
/// failure to handle, a stop). A ring while nobody waits is kept: the next
/// wait returns at once.
public final class Doorbell: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// rings not yet taken by a waiter (what `ManualClock.settle` (ThreadKitTesting) looks at to know a waiter is about to wake)
    private let pendingRings = Atomic<Int>(0)

    public init() {}

    public func ring() {
        pendingRings.add(1, ordering: .releasing)
        semaphore.signal()
    }

    /// a ring is waiting to be taken
    package var isRinging: Bool { pendingRings.load(ordering: .acquiring) > 0 }

    /// Waits for a ring, up to `timeout`; true if one was taken. `beforeTaking` runs
    /// after the ring arrived and before it stops counting as pending, so an
    /// observer never sees a woken waiter as asleep and quiet.
    package func waitForRing(timeout: DispatchTime, beforeTaking: () -> Void = {}) -> Bool {
        guard semaphore.wait(timeout: timeout) == .success else { return false }
        beforeTaking()
        pendingRings.subtract(1, ordering: .acquiring)
        return true
    }
}

/// The machine's monotonic clock (`CLOCK_MONOTONIC`): what live code
/// reads time on, the one reading of it outside the Views loops (which
/// still call Signals' `monotonicSeconds()`, the same clock), and what
/// every caller gets unless a test hands in another.
public struct SystemClock: MonotonicClock {
    public init() {}

    public var now: Double {
        var reading = timespec()
        clock_gettime(CLOCK_MONOTONIC, &reading)
        return Double(reading.tv_sec) + Double(reading.tv_nsec) / 1e9
    }

    public func wait(until deadline: Double, orUntilRung doorbell: Doorbell) {
        // DispatchTime counts CLOCK_MONOTONIC on Linux too; a wait of more than a day [s] is "until rung"
        let seconds = max(0, deadline - now)
        _ = doorbell.waitForRing(timeout: seconds < 86_400 ? .now() + seconds : .distantFuture)
    }

    public func sleep(until deadline: Double) async throws {
        // [ns]; a sleep of more than a day is cut to one (the caller looks again then)
        let seconds = min(max(0, deadline - now), 86_400)
        try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
    }
}
