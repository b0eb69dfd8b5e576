import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs a handler when one of the given signals arrives, until cancelled;
/// the signals' default actions are restored on cancel (once no other
/// watch wants them).
///
/// The signal handler is installed before `init` returns: a signal that
/// arrives a moment after is never lost. (A Dispatch signal source, which
/// this replaced, is registered later on Dispatch's own thread while the
/// signal is already set to be ignored: on a loaded machine a Ctrl-C in
/// that window was dropped, and a conversion ran to its end.) The handler
/// only writes the signal's number to a pipe; one process-wide thread reads
/// it and calls the watches' handlers.
public final class SignalWatch: Sendable {
    private let numbers: [Int32]
    private let id: Int

    /// the signals a headless run takes as "stop": Ctrl-C, kill, a closed terminal
    public static let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    public init(signals: [Int32] = SignalWatch.stopSignals, handler: @escaping @Sendable () -> Void) {
        numbers = signals
        SignalPipe.start()
        id = SignalPipe.watches.withLock { state in
            state.nextID += 1
            state.handlers[state.nextID] = (Set(signals), handler)
            return state.nextID
        }
        for number in signals {
            signal(number, { number in
                var byte = UInt8(truncatingIfNeeded: number)
                // async-signal-safe: one write to a non-blocking pipe (a full pipe already holds a wake-up)
                _ = write(signalPipeWriteEnd, &byte, 1)
            })
        }
    }

    /// Unblocks every signal in the calling thread (call first thing in
    /// main, before any thread starts: threads inherit the mask). A parent
    /// may start tscope with signals blocked — a Dispatch worker thread
    /// blocks them all, and a child inherits its mask — and then SIGTERM
    /// would stay pending for ever instead of ending the run.
    public static func unblockAllSignals() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }

    public func cancel() {
        let stillWatched = SignalPipe.watches.withLock { state -> Set<Int32> in
            state.handlers[id] = nil
            return state.handlers.values.reduce(into: Set<Int32>()) { $0.formUnion($1.signals) }
        }
        for number in numbers where !stillWatched.contains(number) { signal(number, SIG_DFL) }
    }
}

/// the pipe's write end, read by the signal handler (set once, before any handler is installed)
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The process-wide pipe and the thread that turns its bytes into handler calls.
private enum SignalPipe {
    struct State {
        var nextID = 0
        var handlers: [Int: (signals: Set<Int32>, handler: @Sendable () -> Void)] = [:]
        var started = false
    }

    static let watches = Guarded(State())

    /// Makes the pipe and starts the reading thread, once.
    static func start() {
        let first = watches.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        signalPipeWriteEnd = ends[1]
        let readEnd = ends[0]
        // lives as long as the process: blocked in read between signals
        _ = WorkerThread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                let number = Int32(byte)
                let handlers = watches.withLock { state in
                    state.handlers.values.filter { $0.signals.contains(number) }.map(\.handler)
                }
                handlers.forEach { $0() }
            }
        }
    }
}
