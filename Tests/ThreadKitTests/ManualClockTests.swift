import Testing
import ThreadKit
import ThreadKitTesting

/// The one `ManualClock`: time moves only when the test moves it, and each
/// waiter (a thread in `wait`, a task in `sleep`) wakes at its deadline on
/// that time, not before. Nothing here waits on the wall clock except the
/// bounded waits for another thread to reach a state. The sleeping tasks run
/// on a queue of their own: the test runner's blocking tests may hold every
/// thread of the cooperative pool.
@Suite struct ManualClockTests {
    @Test func timeStandsStillUntilMovedOn() {
        let clock = ManualClock(startingAt: 250)
        #expect(clock.now == 250)
        clock.advance(by: 0)
        #expect(clock.now == 250)
        clock.advance(by: 0.125)
        clock.advance(by: 0.375)
        #expect(clock.now == 250.5)
        #expect(ManualClock().now > 0, "the default start keeps a subtracted interval positive")
    }

    @Test func aWaitingThreadWakesAtItsDeadlineAndNotBefore() throws {
        let clock = ManualClock(startingAt: 10)
        let wokeAt = Locked<Double?>(nil)
        let doorbell = Doorbell()
        let waiter = try #require(WorkerThread {
            clock.wait(until: 11, orUntilRung: doorbell)
            wokeAt.withLock { $0 = clock.now }
        })
        defer { waiter.join() }
        // asleep with its deadline ahead: nothing happens until the clock moves
        #expect(clock.settle())
        clock.advance(by: 0.5)
        #expect(clock.settle(), "woken half a second [clock] early")
        #expect(wokeAt.value == nil)
        clock.advance(by: 0.5)
        waiter.join()
        #expect(wokeAt.value == 11)
    }

    @Test func aWaitWhoseDeadlineHasPassedReturnsAtOnce() {
        let clock = ManualClock(startingAt: 10)
        clock.wait(until: 10, orUntilRung: Doorbell())
        clock.wait(until: 3, orUntilRung: Doorbell())
        #expect(clock.now == 10)
    }

    @Test func aRingWakesAWaiterBeforeItsDeadline() throws {
        let clock = ManualClock(startingAt: 10)
        let doorbell = Doorbell()
        let woken = Locked(false)
        let waiter = try #require(WorkerThread {
            clock.wait(until: 1_000, orUntilRung: doorbell)
            woken.withLock { $0 = true }
        })
        #expect(clock.settle())
        doorbell.ring()
        waiter.join()
        #expect(woken.value)
        #expect(clock.now == 10, "a ring does not move time")
    }

    @Test func aRingWhileNobodyWaitsIsKeptForTheNextWait() {
        let clock = ManualClock(startingAt: 10)
        let doorbell = Doorbell()
        doorbell.ring()
        // returns at once although its deadline is ahead (else this test would hang)
        clock.wait(until: 20, orUntilRung: doorbell)
        #expect(clock.now == 10)
    }

    @Test func aSleepingTaskResumesAtItsDeadline() async throws {
        let clock = ManualClock(startingAt: 10)
        let resumedAt = Locked<Double?>(nil)
        let sleeper = Task(executorPreference: OwnQueueExecutor.shared) {
            try await clock.sleep(until: 12)
            resumedAt.withLock { $0 = clock.now }
        }
        #expect(await clock.waitForSleepingTask())
        clock.advance(by: 1.5)
        #expect(await clock.waitForSleepingTask(), "resumed half a second [clock] early")
        #expect(resumedAt.value == nil)
        clock.advance(by: 0.5)
        try await sleeper.value
        #expect(resumedAt.value == 12)
    }

    @Test func aSleepWhoseDeadlineHasPassedDoesNotSuspend() async throws {
        let clock = ManualClock(startingAt: 10)
        try await clock.sleep(until: 10)
        #expect(clock.now == 10)
    }

    @Test func cancellingASleepingTaskThrows() async {
        let clock = ManualClock(startingAt: 10)
        let sleeper = Task(executorPreference: OwnQueueExecutor.shared) { try await clock.sleep(until: 1_000) }
        #expect(await clock.waitForSleepingTask())
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(await !clock.waitForSleepingTask(timeoutSeconds: 0), "the cancelled sleep is gone")
    }

    @Test func settleIsFalseWhenNoThreadWaits() {
        #expect(!ManualClock().settle(timeoutSeconds: 0.01))
    }

    @Test func aBoundedWaitReturnsWhenTheConditionHoldsAndGivesUpOtherwise() throws {
        let flag = Locked(false)
        let setter = try #require(WorkerThread { flag.withLock { $0 = true } })
        defer { setter.join() }
        #expect(waitForCondition { flag.value })
        #expect(!waitForCondition(timeoutSeconds: 0.01) { false })
    }
}
