import DSP
import ECG
import Signals
import Terminal
import ViewModels
import ThreadKit

/// The interactive full-screen ECG loop: reads keys, and at each frame tick
/// lets its `ECGLiveMonitor` drain the source, draws, writes the frame and
/// records the sample-to-screen latency.
public final class ECGViewer {
    private let session: TerminalSession
    public let monitor: ECGLiveMonitor
    private let writer: DiffWriter
    private var buffer = Buffer(width: 1, height: 1)
    private var decoder = InputDecoder()
    private var inputBytes: [UInt8] = []
    private var limiter: FrameRateLimiter

    /// what the refresh is timed on
    private let clock: any MonotonicClock

    public init(session: TerminalSession, monitor: ECGLiveMonitor, colorMode: ColorMode,
                clock: any MonotonicClock = SystemClock()) {
        self.clock = clock
        self.session = session
        self.monitor = monitor
        writer = DiffWriter(mode: colorMode)
        limiter = FrameRateLimiter(maxFramesPerSecond: monitor.model.refreshRate)
    }

    /// Runs until q or a termination signal. The caller owns
    /// `session.enter`/`restore`. Source errors end the run as `.failed`.
    public func run() throws -> ViewerExit {
        try resize()
        while true {
            if let signal = session.pendingSignal { return .signal(signal) }
            if session.takeResize() { try resize() }

            // Wake a few times per frame so the frame tick is kept closely.
            try session.readInput(timeoutMS: Int32(max(1, limiter.period * 1000 / 4)), into: &inputBytes)
            if !inputBytes.isEmpty {
                decoder.feed(inputBytes)
                inputBytes.removeAll(keepingCapacity: true)
            }
            while let event = decoder.next() {
                if handle(event) { return .quit }
            }
            if decoder.hasPendingEscape, let event = decoder.flushEscape(), handle(event) { return .quit }

            let now = clock.now
            guard limiter.shouldEmit(at: now) else { continue }
            do {
                try monitor.update(now: now)
            } catch {
                return .failed("\(error)")
            }
            monitor.render(in: buffer.area, into: &buffer)
            try writer.render(buffer, to: session.outputFD)
            monitor.presented(at: clock.now)
        }
    }

    /// Applies a key; true to quit.
    private func handle(_ event: InputEvent) -> Bool {
        guard let intent = ECGKeyMap.intent(for: event, eventListOpen: monitor.model.events.isOpen,
                                                helpOpen: monitor.model.showsHelp) else { return false }
        switch monitor.apply(intent) {
        case .quit:
            return true
        case .setRefreshRate(let rate):
            limiter = FrameRateLimiter(maxFramesPerSecond: rate)
        case .setSampleRate, .setSourcePaused, .setPlaybackSpeed, nil:
            break
        }
        return false
    }

    private func resize() throws {
        let size = try session.size()
        buffer.resize(width: size.width, height: size.height)
        writer.invalidate()
        monitor.invalidate()
    }
}
