import Foundation

/// A private tmux server (its own socket) running one window, for driving the
/// interactive viewer as a user would: type keys, read the screen.
final class TmuxSession {
    let socket = "tscope-test-\(UUID().uuidString.prefix(8))"
    let tmux: URL

    /// nil when tmux is not installed.
    init?(width: Int, height: Int, shellEnvironment: [String: String] = [:]) throws {
        guard let tmux = which("tmux") else { return nil }
        self.tmux = tmux
        var exports = ["PS1": "READY$ ", "TERM": "xterm-256color"]
        for (key, value) in shellEnvironment { exports[key] = value }
        // Started through system(3), not Foundation's Process: the tmux server
        // daemon would inherit the descriptor Process watches for the child's
        // exit, and waitUntilExit would never return.
        let envArgs = exports.map { "-e '\($0.key)=\($0.value)'" }.joined(separator: " ")
        let command = "'\(tmux.path)' -L \(socket) -f /dev/null new-session -d -x \(width) -y \(height) \(envArgs)"
            + " bash --norc --noprofile </dev/null >/dev/null 2>&1"
        guard system(command) == 0 else { throw TmuxError.failed("new-session failed: \(command)") }
        _ = waitFor("READY$", timeoutSeconds: 10)
    }

    deinit { _ = try? run(tmux, ["-L", socket, "kill-server"]) }

    /// Types text followed by Enter.
    func type(_ line: String) throws {
        _ = try run(tmux, ["-L", socket, "send-keys", "-l", line])
        _ = try run(tmux, ["-L", socket, "send-keys", "Enter"])
    }

    /// Sends tmux key names ("q", "Left", "PageUp", "C-c").
    func keys(_ names: String...) throws {
        _ = try run(tmux, ["-L", socket, "send-keys"] + names)
    }

    /// The visible screen as text.
    func screen() -> String {
        (try? run(tmux, ["-L", socket, "capture-pane", "-p"]).stdoutText) ?? ""
    }

    /// The visible screen with its colours and attributes as SGR sequences.
    func screenWithColors() -> String {
        (try? run(tmux, ["-L", socket, "capture-pane", "-p", "-e"]).stdoutText) ?? ""
    }

    /// A tmux format value of the pane, e.g. "#{alternate_on}".
    func paneFormat(_ format: String) -> String {
        ((try? run(tmux, ["-L", socket, "display-message", "-p", format]).stdoutText) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls the screen until `text` appears; returns the last screen seen.
    @discardableResult
    func waitFor(_ text: String, timeoutSeconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            let current = screen()
            if current.contains(text) { return current }
            usleep(100_000)
        } while Date() < deadline
        return nil
    }

    /// Polls the screen until `text` is gone; whether it went within the time.
    func waitForAbsence(of text: String, timeoutSeconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while screen().contains(text) {
            guard Date() < deadline else { return false }
            usleep(200_000)
        }
        return true
    }
}

enum TmuxError: Error { case failed(String) }
