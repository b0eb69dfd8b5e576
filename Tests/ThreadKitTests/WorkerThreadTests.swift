import Testing
import ThreadKit
import ThreadKitTesting

@Suite struct WorkerThreadTests {
    @Test func joinWaitsForTheBody() throws {
        let steps = Locked<[Int]>([])
        let thread = try #require(WorkerThread {
            for step in 1...1_000 { steps.withLock { $0.append(step) } }
        })
        thread.join()
        #expect(steps.value == Array(1...1_000))
    }

    @Test func joiningTwiceReturnsAtOnceTheSecondTime() throws {
        let runs = Locked(0)
        let thread = try #require(WorkerThread { runs.withLock { $0 += 1 } })
        thread.join()
        thread.join()
        #expect(runs.value == 1)
    }

    @Test func isCurrentOnlyOnItsOwnThread() throws {
        let sawItself = Locked<Bool?>(nil)
        let holder = Locked<WorkerThread?>(nil)
        let started = Doorbell()
        let thread = try #require(WorkerThread {
            // wait until the test has handed this thread its own handle
            ManualClock().wait(until: .infinity, orUntilRung: started)
            sawItself.withLock { $0 = holder.value?.isCurrent }
        })
        holder.withLock { $0 = thread }
        started.ring()
        thread.join()
        #expect(sawItself.value == true)
        #expect(!thread.isCurrent)
    }

    @Test func aThreadNobodyJoinsStillRunsToTheEnd() throws {
        let finished = Locked(false)
        do {
            // dropped without a join: detached, and it still runs
            _ = try #require(WorkerThread { finished.withLock { $0 = true } })
        }
        #expect(waitForCondition { finished.value })
    }
}
