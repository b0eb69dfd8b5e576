#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A POSIX thread that can be joined: the transports' event and stream
/// threads must be gone before their buffers are freed.
final class JoinableThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var thread = pthread_t()
    private var joined = false

    /// Starts `body` on a new thread; nil if the system refuses one.
    init?(_ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
    }

    /// Waits for the thread to finish. Call from one thread only; idempotent.
    func join() {
        guard !joined else { return }
        pthread_join(thread, nil)
        joined = true
    }

    /// true when called on this thread (joining itself would deadlock)
    var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }
}
