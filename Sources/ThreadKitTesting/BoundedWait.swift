import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one way a test waits for something other threads do (a frame over
/// gRPC, a thread reaching a state): a bounded wait on a condition, never a
/// fixed sleep and then an assertion. Checks `condition` every
/// `pollSeconds` [s] until it holds or `timeoutSeconds` [s] of real time
/// have passed; returns whether it held (a last look is taken at the end).
/// The timeout is only how long a broken build may take to fail; a test
/// that passes returns as soon as the condition holds.
package func waitForCondition(timeoutSeconds: Double = 10, pollSeconds: Double = 0.001,
                              _ condition: () -> Bool) -> Bool {
    let giveUp = DispatchTime.now() + timeoutSeconds
    while DispatchTime.now() < giveUp {
        if condition() { return true }
        // polling another thread's progress [µs], not measuring time
        usleep(UInt32(max(1, pollSeconds * 1e6)))
    }
    return condition()
}
