import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `Synchronization.Mutex<State>` that ThreadSanitizer understands: the
/// state every shared object in tscope keeps, behind one lock, with the
/// compiler checking what goes in and out (`sending`).
///
/// Why not `Mutex` alone: on Linux its lock is a futex inside the
/// uninstrumented Swift runtime, so ThreadSanitizer sees no happens-before
/// edge and reports every access under it as a race. When the process runs
/// with ThreadSanitizer (its runtime's `__tsan_acquire`/`__tsan_release`
/// can be found), each `withLock` tells it so; otherwise the hooks are nil
/// and cost one load per lock.
public struct Guarded<State: ~Copyable>: ~Copyable {
    private let mutex: Mutex<State>
    /// a stable address that stands for this lock in ThreadSanitizer's books
    private let identity = LockIdentity()

    public init(_ initialState: consuming sending State) {
        mutex = Mutex(initialState)
    }

    /// Runs `body` with the state, exclusively.
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending State) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = Unmanaged.passUnretained(identity).toOpaque()
        return try mutex.withLock { (state: inout sending State) throws(E) -> sending Result in
            ThreadSanitizerHooks.acquire?(address)
            defer { ThreadSanitizerHooks.release?(address) }
            return try body(&state)
        }
    }
}

extension Guarded: Sendable where State: ~Copyable {}

private final class LockIdentity: Sendable {}

/// ThreadSanitizer's annotation entry points, present only in a process
/// built with `-sanitize=thread` (looked up once, by name).
enum ThreadSanitizerHooks {
    typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void

    static let acquire = lookUp("__tsan_acquire")
    static let release = lookUp("__tsan_release")

    private static func lookUp(_ name: String) -> Hook? {
        // RTLD_DEFAULT: the process's global symbols
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Hook.self) }
    }
}
