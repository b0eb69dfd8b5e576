import Dispatch
import ThreadKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A `MonotonicClock` for tests: time stands still until the test moves it
/// with `advance(by:)`, which wakes every waiter (thread or task) whose
/// deadline it passed. `settle()` then waits (in real time, briefly) until
/// each thread that waits on this clock is asleep again with nothing due,
/// so the test can check what those threads did at the new time, and that
/// they did nothing before it; `waitForSleepingTask()` does the same for a
/// task. No outcome depends on how fast the machine is.
package final class ManualClock: MonotonicClock {
    private struct Sleeper {
        /// when it wants to wake [s, this clock]
        var deadline: Double
        var doorbell: Doorbell
    }

    private struct SleepingTask {
        /// when it wants to resume [s, this clock]
        var deadline: Double
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Double
        /// threads blocked in `wait` now, by their doorbell
        var sleepers: [ObjectIdentifier: Sleeper] = [:]
        /// every doorbell that has waited on this clock: the threads `settle` waits for
        var waiters: [ObjectIdentifier: Doorbell] = [:]
        /// tasks suspended in `sleep(until:)` now, by a number each sleep gets
        var sleepingTasks: [Int: SleepingTask] = [:]
        var lastSleepNumber = 0
    }

    private let state: Guarded<State>

    /// - Parameter startingAt: the first reading [s]; not 0, so that code subtracting an interval stays positive
    package init(startingAt start: Double = 1_000) {
        state = Guarded(State(now: start))
    }

    package var now: Double { state.withLock { $0.now } }

    package func wait(until deadline: Double, orUntilRung doorbell: Doorbell) {
        let key = ObjectIdentifier(doorbell)
        let mustSleep = state.withLock { state -> Bool in
            state.waiters[key] = doorbell
            guard deadline > state.now else { return false }
            state.sleepers[key] = Sleeper(deadline: deadline, doorbell: doorbell)
            return true
        }
        guard mustSleep else { return }
        // `advance` or another ring wakes it; a stop always rings, so nothing sleeps forever
        _ = doorbell.waitForRing(timeout: .distantFuture) {
            state.withLock { _ = $0.sleepers.removeValue(forKey: key) }
        }
    }

    package func sleep(until deadline: Double) async throws {
        enum Decision { case sleep, resume, cancel }
        let number = state.withLock { state -> Int in
            state.lastSleepNumber += 1
            return state.lastSleepNumber
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // a cancellation that came before this is seen here (the flag is set before `onCancel` runs)
                let decision = state.withLock { state -> Decision in
                    if Task.isCancelled { return .cancel }
                    guard deadline > state.now else { return .resume }
                    state.sleepingTasks[number] = SleepingTask(deadline: deadline, continuation: continuation)
                    return .sleep
                }
                switch decision {
                case .sleep: break
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            state.withLock { $0.sleepingTasks.removeValue(forKey: number) }?.continuation
                .resume(throwing: CancellationError())
        }
    }

    /// Moves time on by `seconds` (≥ 0), rings every waiting thread and
    /// resumes every sleeping task whose deadline is now reached. Returns at
    /// once; `settle()` and `waitForSleepingTask()` wait for them.
    package func advance(by seconds: Double) {
        precondition(seconds >= 0, "a monotonic clock does not go back")
        let (doorbells, tasks) = state.withLock { state -> ([Doorbell], [SleepingTask]) in
            state.now += seconds
            let now = state.now
            let dueTasks = state.sleepingTasks.filter { $0.value.deadline <= now }
            for number in dueTasks.keys { state.sleepingTasks[number] = nil }
            return (state.sleepers.values.filter { $0.deadline <= now }.map(\.doorbell), Array(dueTasks.values))
        }
        for doorbell in doorbells { doorbell.ring() }
        for task in tasks { task.continuation.resume() }
    }

    /// Waits (in real time, at most `timeoutSeconds`) until a task sleeps
    /// on this clock with its deadline still ahead: it will do nothing more
    /// until the clock is moved on. False if none did in that time.
    package func waitForSleepingTask(timeoutSeconds: Double = 10) -> Bool {
        let giveUp = DispatchTime.now() + timeoutSeconds
        while DispatchTime.now() < giveUp {
            if state.withLock({ !$0.sleepingTasks.isEmpty }) { return true }
            // polling another task's progress [µs], not measuring time
            usleep(100)
        }
        return false
    }

    /// `waitForSleepingTask` for an async caller (a test function that is
    /// `async`): it suspends between looks instead of blocking one of the
    /// few threads of the concurrency pool, which the sleeping task may
    /// need in order to get as far as its sleep.
    package func waitForSleepingTask(timeoutSeconds: Double = 10) async -> Bool {
        let giveUp = DispatchTime.now() + timeoutSeconds
        while true {
            // looked at before the deadline: a caller resumed late by a busy pool still sees a sleep that began
            if state.withLock({ !$0.sleepingTasks.isEmpty }) { return true }
            guard DispatchTime.now() < giveUp else { return false }
            // polling another task's progress [ns], not measuring time
            try? await Task.sleep(nanoseconds: 100_000)
        }
    }

    /// Waits until at least one thread has waited on this clock and every
    /// such thread is asleep in `wait`, with no ring pending and no deadline
    /// reached: whatever the current time asks of them is done. False if
    /// that did not happen within `timeoutSeconds` of real time (a thread
    /// busy or blocked elsewhere, or one that ended, as a supervisor that
    /// gave up does).
    package func settle(timeoutSeconds: Double = 10) -> Bool {
        let giveUp = DispatchTime.now() + timeoutSeconds
        while DispatchTime.now() < giveUp {
            let settled = state.withLock { state -> Bool in
                !state.waiters.isEmpty && state.waiters.allSatisfy { key, doorbell in
                    guard let sleeper = state.sleepers[key] else { return false }
                    return !doorbell.isRinging && sleeper.deadline > state.now
                }
            }
            if settled { return true }
            // polling another thread's progress [µs], not measuring time
            usleep(100)
        }
        return false
    }
}
