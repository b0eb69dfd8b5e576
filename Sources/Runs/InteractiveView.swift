import Foundation
import Terminal
import Views

/// Runs an interactive view in the terminal (watch, replay, ecg watch): raw
/// mode (with mouse reports if asked) while `view` runs, and the terminal
/// restored on every way out. `beforeRestore` and `afterRestore` run on every
/// way out too (finish a recording; report it once the screen is back). A
/// termination signal ends the process by that signal after `beforeSignalExit`;
/// a failure becomes one line on stderr.
public enum InteractiveView {
    public static func run(_ session: TerminalSession, mouse: Bool,
                    beforeRestore: () -> Void = {}, afterRestore: () -> Void = {},
                    beforeSignalExit: () -> Void = {},
                    view: (ColorMode) throws -> ViewerExit) throws {
        try session.enter(mouse: mouse, onTerminationSignal: .notifyLoop)
        let exit: ViewerExit
        do {
            exit = try view(ColorMode.detect(environment: ProcessInfo.processInfo.environment))
        } catch {
            beforeRestore()
            session.restore()
            afterRestore()
            throw error
        }
        beforeRestore()
        session.restore()
        afterRestore()
        switch exit {
        case .quit:
            return
        case .signal(let number):
            beforeSignalExit()
            TerminalSession.exit(bySignal: number)
        case .failed(let message):
            throw CommandError(message)
        }
    }
}
