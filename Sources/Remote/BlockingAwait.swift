#if SensorLink
import Dispatch
import ThreadKit

/// Runs async work for a synchronous caller (the CLI's main thread, a
/// supervisor thread, a test) and waits for its result. `body` runs on the
/// Remote module's own executor, so a caller blocking a cooperative-pool
/// thread does not starve it. With a timeout the work is cancelled and
/// `RemoteTimeout` thrown.
func blockingAwait<Value: Sendable>(timeoutSeconds: Double? = nil,
                                    _ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let outcome = Locked<Result<Value, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let task = Task(executorPreference: RemoteExecutor.shared) {
        let result: Result<Value, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    if let timeoutSeconds {
        if done.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            task.cancel()
            throw RemoteTimeout(seconds: timeoutSeconds)
        }
    } else {
        done.wait()
    }
    guard let result = outcome.value else { throw RemoteTimeout(seconds: 0) }
    return try result.get()
}

struct RemoteTimeout: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "no answer within \(Int(seconds)) s" }
}
#endif
