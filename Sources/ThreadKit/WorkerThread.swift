import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A POSIX thread that can be joined: a transport's event thread, a
/// device's DSP thread or a recording's writer must be gone before the
/// buffers it uses are freed, so every long-running thread in tscope is one
/// of these rather than a detached `Thread`.
public final class WorkerThread: Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let thread: pthread_t
    private let joined = Atomic<Bool>(false)

    /// Starts `body` on a new thread; nil if the system refuses one.
    public init?(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var created = pthread_t()
        let rc = pthread_create(&created, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        thread = created
    }

    /// A thread nobody joined (one that ended a run on its own) is detached,
    /// so the system frees it when it finishes.
    deinit {
        if !joined.load(ordering: .acquiring) { pthread_detach(thread) }
    }

    /// Waits for the thread to finish. Idempotent; a second caller returns at once.
    public func join() {
        guard !joined.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_join(thread, nil)
    }

    /// true when called on this thread (joining itself would deadlock)
    public var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }
}
