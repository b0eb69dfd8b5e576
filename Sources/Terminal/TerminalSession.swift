#if canImport(Glibc)
import Glibc
#endif

/// What a termination signal (SIGINT, SIGTERM, SIGHUP) does while a session is active.
public enum TerminationPolicy: Sendable {
    /// restore the terminal in the handler and die by the signal at once
    case restoreAndExit
    /// record it in `pendingSignal` and wake the loop, which shuts down cleanly,
    /// calls `restore()` and then `TerminalSession.exit(bySignal:)`; a second
    /// signal restores and exits at once
    case notifyLoop
}

/// Owns the terminal while the interactive view runs: raw mode, alternate screen,
/// hidden cursor, optional SGR mouse; and puts everything back on every exit path
/// (`restore()`, deinit, atexit, SIGINT/SIGTERM/SIGHUP). One session can be active
/// per process.
public final class TerminalSession {
    public let inputFD: Int32
    public let outputFD: Int32
    /// read end of the self-pipe signal handlers write to; -1 before `enter`
    public private(set) var wakeFD: Int32 = -1

    private var wakeWriteFD: Int32 = -1
    private var entered = false
    private var savedActions: [Int32: sigaction] = [:]
    private var readScratch = [UInt8](repeating: 0, count: 4096)
    /// input and wake pipe, reused by every `readInput`
    private var pollSet = [pollfd](repeating: pollfd(fd: -1, events: Int16(POLLIN), revents: 0), count: 2)
    private nonisolated(unsafe) static var atexitRegistered = false

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        inputFD = input
        outputFD = output
    }

    deinit {
        restore()
        if wakeFD >= 0 { close(wakeFD) }
        if wakeWriteFD >= 0 { close(wakeWriteFD) }
    }

    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Columns and rows of the terminal on `outputFD` (TIOCGWINSZ).
    public func size() throws(TerminalError) -> (width: Int, height: Int) {
        var window = winsize()
        guard ioctl(outputFD, UInt(TIOCGWINSZ), &window) == 0 else {
            throw errno == ENOTTY ? .notATerminal(fd: outputFD) : .systemCall("ioctl(TIOCGWINSZ)", errno: errno)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// The bytes `enter` writes after switching to raw mode.
    package static func enterSequence(mouse: Bool) -> [UInt8] {
        // alternate screen, hide cursor; mouse: button events, drag, SGR coordinates
        Array(("\u{1B}[?1049h\u{1B}[?25l" + (mouse ? "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h" : "")).utf8)
    }

    /// The bytes that undo `enter`: end any synchronized update left open by an
    /// interrupted frame, mouse off, show cursor, main screen, reset SGR.
    package static func restoreSequence(mouse: Bool) -> [UInt8] {
        Array(("\u{1B}[?2026l" + (mouse ? "\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l" : "")
            + "\u{1B}[?25h\u{1B}[?1049l\u{1B}[0m").utf8)
    }

    public func enter(mouse: Bool, onTerminationSignal policy: TerminationPolicy = .restoreAndExit) throws(TerminalError) {
        guard !entered else { return }
        guard TerminalSession.isTerminal(inputFD) else { throw .notATerminal(fd: inputFD) }
        guard TerminalSession.isTerminal(outputFD) else { throw .notATerminal(fd: outputFD) }
        var saved = termios()
        guard tcgetattr(inputFD, &saved) == 0 else { throw .systemCall("tcgetattr", errno: errno) }
        try openWakePipe()
        guard !SignalRelay.active.load(ordering: .acquiring) else { throw .sessionAlreadyActive }

        // everything the handlers read is in place before they can run
        let restoreBytes = TerminalSession.restoreSequence(mouse: mouse)
        SignalRelay.restoreBytes.deallocate()
        SignalRelay.restoreBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: restoreBytes.count, alignment: 1)
        restoreBytes.withUnsafeBytes { SignalRelay.restoreBytes.copyMemory(from: $0) }
        SignalRelay.savedTermios.pointee = saved
        SignalRelay.inputFD = inputFD
        SignalRelay.outputFD = outputFD
        SignalRelay.wakeWriteFD = wakeWriteFD
        SignalRelay.pendingSignal.store(0, ordering: .relaxed)
        SignalRelay.resized.store(false, ordering: .relaxed)
        SignalRelay.notifyOnTermination.store(policy == .notifyLoop, ordering: .relaxed)
        guard SignalRelay.active.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            throw .sessionAlreadyActive
        }
        entered = true
        installHandlers()
        if !TerminalSession.atexitRegistered {
            TerminalSession.atexitRegistered = true
            atexit { restoreTerminalAtExit() }
        }

        var raw = saved
        cfmakeraw(&raw) // no echo, no line editing, no signals from keys, no output processing
        do throws(TerminalError) {
            guard tcsetattr(inputFD, TCSAFLUSH, &raw) == 0 else { throw TerminalError.systemCall("tcsetattr", errno: errno) }
            try FileDescriptor.writeAll(TerminalSession.enterSequence(mouse: mouse), to: outputFD)
        } catch {
            restore()
            throw error
        }
    }

    /// Puts the terminal back as `enter` found it; safe to call more than once.
    public func restore() {
        guard entered else { return }
        entered = false
        SignalRelay.restoreTerminal()
        for (signal, var action) in savedActions { sigaction(signal, &action, nil) }
        savedActions.removeAll()
    }

    /// A termination signal the handler handed to the loop (notify policy); nil if none.
    public var pendingSignal: Int32? {
        let signal = SignalRelay.pendingSignal.load(ordering: .acquiring)
        return signal == 0 ? nil : signal
    }

    /// True once after each SIGWINCH: call `size()` and resize the buffer.
    public func takeResize() -> Bool {
        SignalRelay.resized.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Ends the process by `signal` with its default action (after `restore()`).
    public static func exit(bySignal signal: Int32) -> Never {
        SignalRelay.reraise(signal)
        Glibc.exit(128 + signal)
    }

    /// Waits up to `timeoutMS` (-1: forever) for input or a signal wake-up and
    /// appends the bytes read (none on timeout or wake-up) to `bytes`.
    /// - Throws: `.inputClosed` at end of input.
    public func readInput(timeoutMS: Int32, into bytes: inout [UInt8]) throws(TerminalError) {
        pollSet[0] = pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0)
        pollSet[1] = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0) // ignored by poll while -1
        let count = pollSet.withUnsafeMutableBufferPointer { poll($0.baseAddress, 2, timeoutMS) }
        if count < 0 {
            if errno == EINTR { return }
            throw .systemCall("poll", errno: errno)
        }
        if pollSet[1].revents != 0 { drainWakePipe() }
        guard pollSet[0].revents != 0 else { return }
        let read = readScratch.withUnsafeMutableBytes { Glibc.read(inputFD, $0.baseAddress, $0.count) }
        if read > 0 {
            bytes.append(contentsOf: readScratch[0..<read])
        } else if read == 0 {
            throw .inputClosed
        } else if errno != EINTR && errno != EAGAIN {
            throw .systemCall("read", errno: errno)
        }
    }

    /// Convenience over `readInput(timeoutMS:into:)` returning a new array.
    public func readInput(timeoutMS: Int32) throws(TerminalError) -> [UInt8] {
        var bytes: [UInt8] = []
        try readInput(timeoutMS: timeoutMS, into: &bytes)
        return bytes
    }

    private func openWakePipe() throws(TerminalError) {
        guard wakeFD < 0 else { return }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .systemCall("pipe", errno: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeFD = ends[0]
        wakeWriteFD = ends[1]
    }

    private func drainWakePipe() {
        var sink = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &sink, { Glibc.read(wakeFD, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Installs the handlers and unblocks their signals on the calling thread
    /// (worker threads, e.g. of a test runner, may block them; the thread that runs
    /// the session must be able to take them).
    private func installHandlers() {
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in SignalRelay.terminationSignals {
            install(signal) { terminationSignalHandler($0) }
            sigaddset(&unblocked, signal)
        }
        install(SIGWINCH) { windowChangeSignalHandler($0) }
        sigaddset(&unblocked, SIGWINCH)
        _ = pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    private func install(_ signal: Int32, _ handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var previous = sigaction()
        if sigaction(signal, &action, &previous) == 0 { savedActions[signal] = previous }
    }
}
