#if SensorLink
import Dispatch

/// Where the Remote module's tasks run (servers, streams, the blocking
/// bridge): a Dispatch queue of their own rather than Swift's cooperative
/// pool, which has one thread per core. A caller that blocks pool threads —
/// a test runner's synchronous tests, a callback that waits — then never
/// starves a viewer's stream, and `blockingAwait` may be called from
/// anywhere. Child tasks inherit the preference (SE-0417).
final class RemoteExecutor: TaskExecutor {
    static let shared = RemoteExecutor()

    private let queue = DispatchQueue(label: "tscope.remote", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
#endif
