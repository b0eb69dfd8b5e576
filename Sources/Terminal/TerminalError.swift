#if canImport(Glibc)
import Glibc
#endif

/// What can go wrong talking to the terminal, with a message a user can act on.
public enum TerminalError: Error, Equatable, Sendable, CustomStringConvertible {
    /// the file descriptor is not a terminal (output piped or redirected)
    case notATerminal(fd: Int32)
    /// another `TerminalSession` already holds the terminal
    case sessionAlreadyActive
    /// a system call failed; `errno` as reported
    case systemCall(String, errno: Int32)
    /// the terminal closed its input (the window or SSH session went away)
    case inputClosed

    public var description: String {
        switch self {
        case .notATerminal(let fd):
            let stream = fd == 0 ? "standard input" : fd == 1 ? "standard output" : "file descriptor \(fd)"
            return "\(stream) is not a terminal: the interactive view needs one; use the headless commands (`tscope sweep`, `tscope meter --json`) for pipes and files"
        case .sessionAlreadyActive:
            return "the terminal is already in use by another session of this program"
        case .inputClosed:
            return "the terminal closed (end of input)"
        case .systemCall(let name, let code):
            return "\(name) failed: \(String(cString: strerror(code)))"
        }
    }
}
