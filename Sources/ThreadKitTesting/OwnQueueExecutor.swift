import Dispatch

/// Where a test's own tasks run (`Task(executorPreference:
/// OwnQueueExecutor.shared)`): a Dispatch queue of their own rather than
/// Swift's cooperative pool, which has one thread per core and which the
/// test runner's synchronous tests may all be holding while they wait. A
/// task the test waits for then always gets a thread. Child tasks inherit
/// the preference (SE-0417).
package final class OwnQueueExecutor: TaskExecutor {
    package static let shared = OwnQueueExecutor()

    private let queue = DispatchQueue(label: "tscope.tests.own-queue", attributes: .concurrent)

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
