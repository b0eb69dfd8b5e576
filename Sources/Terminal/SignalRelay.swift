#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Process-wide state shared with the signal handlers of the active
/// `TerminalSession`. Handlers only touch what is here, through atomics and
/// async-signal-safe calls (write, tcsetattr, signal, raise). The plain fields are
/// written by `TerminalSession.enter` before `active` is set and handlers are
/// installed, and not changed while they are.
enum SignalRelay {
    static let active = Atomic<Bool>(false)
    /// termination signal waiting for the event loop (0: none); notify policy only
    static let pendingSignal = Atomic<Int32>(0)
    static let resized = Atomic<Bool>(false)
    static let notifyOnTermination = Atomic<Bool>(false)

    nonisolated(unsafe) static var inputFD: Int32 = -1
    nonisolated(unsafe) static var outputFD: Int32 = -1
    nonisolated(unsafe) static var wakeWriteFD: Int32 = -1
    /// The terminal settings to restore. On the heap, not a `termios()` global:
    /// Swift 6.3 emitted that global as 57 bytes (seen by AddressSanitizer,
    /// probably its statically initialised constant without the padding before
    /// `c_ispeed`), while `termios` is 60, so storing into it wrote 3 bytes
    /// past it (global-buffer-overflow in `enter`, `swift test --sanitize=address`).
    nonisolated(unsafe) static let savedTermios: UnsafeMutablePointer<termios> = {
        let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        pointer.initialize(to: termios())
        return pointer
    }()
    /// bytes that undo what `enter` sent, built once per session
    nonisolated(unsafe) static var restoreBytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    static let terminationSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Puts the terminal back from inside a signal handler or at exit; only the
    /// first caller after `enter` does anything.
    static func restoreTerminal() {
        guard active.exchange(false, ordering: .acquiringAndReleasing) else { return }
        _ = FileDescriptor.writeAll(UnsafeRawBufferPointer(restoreBytes), to: outputFD)
        _ = tcsetattr(inputFD, TCSANOW, savedTermios)
    }

    /// Wakes a loop polling `wakeFD`; the pipe is non-blocking, so a full pipe
    /// (the loop is already due to wake) is fine.
    static func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)
    }

    /// Default action for `signal`, delivered now: the process ends with the
    /// status a shell expects from that signal.
    static func reraise(_ signal: Int32) {
        _ = Glibc.signal(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        _ = sigprocmask(SIG_UNBLOCK, &set, nil)
        _ = raise(signal)
    }
}

/// SIGINT, SIGTERM, SIGHUP. With the notify policy the first one is handed to
/// the event loop; otherwise (or on a second one) restore and die by the signal.
func terminationSignalHandler(_ signal: Int32) {
    if SignalRelay.notifyOnTermination.load(ordering: .relaxed),
       SignalRelay.pendingSignal.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing).exchanged {
        SignalRelay.wake()
        return
    }
    SignalRelay.restoreTerminal()
    SignalRelay.reraise(signal)
}

func windowChangeSignalHandler(_ signal: Int32) {
    SignalRelay.resized.store(true, ordering: .releasing)
    SignalRelay.wake()
}

func restoreTerminalAtExit() {
    SignalRelay.restoreTerminal()
}
