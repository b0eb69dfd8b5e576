import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Runs a handler when one of the given signals arrives, until cancelled;
/// the signals' default actions are restored on cancel.
public final class SignalWatch {
    private var sources: [DispatchSourceSignal] = []
    private let numbers: [Int32]

    /// the signals a headless run takes as "stop": Ctrl-C, kill, a closed terminal
    public static let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    public init(signals: [Int32] = SignalWatch.stopSignals, handler: @escaping @Sendable () -> Void) {
        numbers = signals
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
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
        sources.forEach { $0.cancel() }
        sources.removeAll()
        numbers.forEach { signal($0, SIG_DFL) }
    }
}
