#if canImport(Glibc)
import Glibc
#endif
import Testing
import ThreadKitTesting
@testable import Terminal

/// Serialized: one session may be active per process.
@Suite(.serialized) struct TerminalSessionTests {
    @Test func enterAndRestoreOnAPseudoTerminal() throws {
        let pty = try #require(PseudoTerminal())
        let cookedFlags = pty.localFlags
        #expect(cookedFlags & tcflag_t(ICANON | ECHO) != 0)
        let session = TerminalSession(input: pty.replica, output: pty.replica)
        try session.enter(mouse: true)
        #expect(pty.drain() == TerminalSession.enterSequence(mouse: true))
        #expect(String(decoding: TerminalSession.enterSequence(mouse: true), as: UTF8.self).hasPrefix("\u{1B}[?1049h"))
        #expect(pty.localFlags & tcflag_t(ICANON | ECHO | ISIG) == 0)

        session.restore()
        let restored = pty.drain()
        #expect(restored == TerminalSession.restoreSequence(mouse: true))
        #expect(String(decoding: restored, as: UTF8.self).contains("\u{1B}[?1049l"))
        #expect(pty.localFlags == cookedFlags)
        session.restore()
        #expect(pty.drain(timeoutMS: 50).isEmpty)
    }

    @Test func sizeAndInputInRawMode() throws {
        let pty = try #require(PseudoTerminal())
        var window = winsize(ws_row: 31, ws_col: 97, ws_xpixel: 0, ws_ypixel: 0)
        #expect(ioctl(pty.controller, UInt(TIOCSWINSZ), &window) == 0)
        let session = TerminalSession(input: pty.replica, output: pty.replica)
        let size = try session.size()
        #expect(size.width == 97 && size.height == 31)
        try session.enter(mouse: false)
        defer { session.restore() }
        pty.type("\u{1B}[A")
        var bytes: [UInt8] = []
        for _ in 0..<10 where bytes.count < 3 { try session.readInput(timeoutMS: 500, into: &bytes) }
        #expect(bytes == [0x1B, 0x5B, 0x41])
        #expect(try session.readInput(timeoutMS: 10).isEmpty)
    }

    @Test func windowChangeSetsTheFlagAndWakesTheLoop() throws {
        let pty = try #require(PseudoTerminal())
        let session = TerminalSession(input: pty.replica, output: pty.replica)
        try session.enter(mouse: false)
        defer { session.restore() }
        #expect(!session.takeResize())
        raise(SIGWINCH)
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        _ = try session.readInput(timeoutMS: 5000)
        clock_gettime(CLOCK_MONOTONIC, &end)
        #expect(end.tv_sec - start.tv_sec < 2)
        #expect(session.takeResize())
        #expect(!session.takeResize())
    }

    @Test func refusesWhatIsNotATerminal() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let session = TerminalSession(input: ends[0], output: ends[1])
        #expect(throws: TerminalError.notATerminal(fd: ends[0])) { try session.enter(mouse: false) }
        #expect(TerminalError.notATerminal(fd: 1).description.contains("tscope sweep"))
    }

    @Test func secondActiveSessionIsRefused() throws {
        let pty = try #require(PseudoTerminal())
        let first = TerminalSession(input: pty.replica, output: pty.replica)
        let second = TerminalSession(input: pty.replica, output: pty.replica)
        try first.enter(mouse: false)
        defer { first.restore() }
        #expect(throws: TerminalError.sessionAlreadyActive) { try second.enter(mouse: false) }
    }

    /// A child process holding the pty in raw mode is killed with SIGTERM: its
    /// handler must write the restore bytes, put cooked mode back and die by the signal.
    @Test func sigtermInAChildRestoresThePseudoTerminal() throws {
        let pty = try #require(PseudoTerminal())
        let cookedFlags = pty.localFlags
        var ready: [Int32] = [-1, -1]
        #expect(pipe(&ready) == 0)
        defer { close(ready[0]); close(ready[1]) }
        // built before fork so the child only enters, signals readiness and waits
        let session = TerminalSession(input: pty.replica, output: pty.replica)
        let child = fork()
        if child == 0 {
            do { try session.enter(mouse: true) } catch { _exit(3) }
            var byte: UInt8 = 1
            _ = write(ready[1], &byte, 1)
            while true { pause() }
        }
        try #require(child > 0)
        var request = pollfd(fd: ready[0], events: Int16(POLLIN), revents: 0)
        let childReady = poll(&request, 1, 10_000) == 1
        if !childReady { kill(child, SIGKILL) }
        try #require(childReady)
        #expect(pty.drain() == TerminalSession.enterSequence(mouse: true))
        #expect(pty.localFlags & tcflag_t(ICANON | ECHO) == 0)

        kill(child, SIGTERM)
        var status: Int32 = 0
        // up to 10 s, looking every 50 ms
        let reaped = waitForCondition(timeoutSeconds: 10, pollSeconds: 0.05) { waitpid(child, &status, WNOHANG) == child }
        if !reaped { kill(child, SIGKILL); _ = waitpid(child, &status, 0) }
        #expect(reaped)
        #expect(status & 0x7F == SIGTERM) // WTERMSIG: killed by SIGTERM, not exited
        #expect(pty.drain() == TerminalSession.restoreSequence(mouse: true))
        #expect(pty.localFlags == cookedFlags)
    }
}
