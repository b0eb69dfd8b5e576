import DSP
import Signals
import Terminal
import ViewModels

/// What the viewer needs from the device side, as closures so the viewer
/// knows nothing of drivers.
public struct SpectrumFeed {
    /// frames from the DSP thread
    public var mailbox: FrameMailbox
    /// reconfigure the device for a new band / bin width (called on the UI
    /// thread, debounced); a thrown error is shown on the status line
    public var retune: (TuningRequest) throws -> Void
    /// device name and counters for the status line
    public var status: () -> SpectrumStatus
    /// a fatal device error (e.g. unplugged), ending the view
    public var failure: () -> String?

    public init(mailbox: FrameMailbox, retune: @escaping (TuningRequest) throws -> Void,
                status: @escaping () -> SpectrumStatus, failure: @escaping () -> String?) {
        self.mailbox = mailbox
        self.retune = retune
        self.status = status
        self.failure = failure
    }
}

/// How the interactive view ended.
public enum ViewerExit: Equatable {
    case quit
    /// SIGINT, SIGTERM or SIGHUP: the caller restores and dies by it
    case signal(Int32)
    /// a device failure, to print after the terminal is restored
    case failed(String)
}

/// The interactive spectrum loop: reads keys, applies intents to the model,
/// retunes the device when the visible band changes, and draws at most
/// `maxFramesPerSecond` frames, each the peak hold of what arrived since the
/// last one.
public final class SpectrumViewer {
    /// plot frame-rate limit [frames/s]
    public static let maxFramesPerSecond = 30.0
    /// quiet time after the last zoom/pan before the device is retuned [s]
    static let retuneDelay = 0.15

    private let session: TerminalSession
    private var model: SpectrumPlotModel
    private let feed: SpectrumFeed
    private let view = SpectrumPlotView()
    private let writer: DiffWriter
    private var buffer = Buffer(width: 1, height: 1)
    private var decoder = InputDecoder()
    private var inputBytes: [UInt8] = []
    private var limiter = FrameRateLimiter(maxFramesPerSecond: SpectrumViewer.maxFramesPerSecond)
    private var frameRate = RateMeter()
    /// the frame on screen; its storage is reused for every new frame
    private var shownFrame = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
    private var hasFrame = false
    private var needsAutoscale = true
    private var appliedTuning: TuningRequest?
    private var tuningChangedAt: Double?
    private var retuneMessage: String?

    public init(session: TerminalSession, model: SpectrumPlotModel, feed: SpectrumFeed, colorMode: ColorMode) {
        self.session = session
        self.model = model
        self.feed = feed
        self.writer = DiffWriter(mode: colorMode)
    }

    /// Runs until q, a termination signal or a device failure. The caller owns
    /// `session.enter`/`restore`.
    public func run() throws -> ViewerExit {
        try resize()
        try retuneIfNeeded(now: monotonicSeconds(), force: true)
        while true {
            if let signal = session.pendingSignal { return .signal(signal) }
            if let failure = feed.failure() { return .failed(failure) }
            if session.takeResize() { try resize() }

            try session.readInput(timeoutMS: Int32(limiter.period * 1000 / 2), into: &inputBytes)
            if !inputBytes.isEmpty {
                decoder.feed(inputBytes)
                inputBytes.removeAll(keepingCapacity: true)
            }
            while let event = decoder.next() {
                if handle(event) == .quit { return .quit }
            }
            if decoder.hasPendingEscape, let event = decoder.flushEscape(), handle(event) == .quit { return .quit }

            let now = monotonicSeconds()
            try retuneIfNeeded(now: now, force: false)
            if limiter.shouldEmit(at: now) {
                // Take only when drawing: the mailbox peak-holds everything
                // that arrived since the last drawn frame.
                if !model.isPaused, feed.mailbox.take(into: &shownFrame) > 0 {
                    hasFrame = true
                    frameRate.record(at: now)
                    if needsAutoscale { autoscale(to: shownFrame) }
                }
                try draw(now: now)
            }
        }
    }

    private enum Handled { case handled, quit }

    private func handle(_ event: InputEvent) -> Handled {
        guard let intent = PlotKeyMap.intent(for: event) else { return .handled }
        switch intent {
        case .quit:
            return .quit
        case .autoscale:
            if hasFrame { autoscale(to: shownFrame) } else { needsAutoscale = true }
        case .togglePause:
            model.apply(intent)
            // resume jumps to now: forget what piled up while paused
            if !model.isPaused { feed.mailbox.clear() }
        default:
            model.apply(intent)
        }
        return .handled
    }

    private func resize() throws {
        let size = try session.size()
        buffer.resize(width: size.width, height: size.height)
        writer.invalidate()
        view.invalidate()
        let pixels = SpectrumPlotView.plotPixels(width: size.width, height: size.height)
        model.resize(pixelColumns: max(pixels.columns, 1), pixelRows: max(pixels.rows, 1))
    }

    /// Retunes once the requested band has been steady for `retuneDelay`.
    private func retuneIfNeeded(now: Double, force: Bool) throws {
        let wanted = model.tuning
        guard wanted != appliedTuning else {
            tuningChangedAt = nil
            return
        }
        if tuningChangedAt == nil { tuningChangedAt = now }
        guard force || now - (tuningChangedAt ?? now) >= Self.retuneDelay else { return }
        do {
            try feed.retune(wanted)
            retuneMessage = nil
        } catch {
            retuneMessage = "\(error)"
        }
        appliedTuning = wanted
        tuningChangedAt = nil
        feed.mailbox.clear()
    }

    private func autoscale(to frame: SpectrumFrame) {
        let finite = frame.powerDB.filter { $0.isFinite }.sorted()
        guard let peak = finite.last else { return }
        model.autoscale(floorDB: Double(finite[finite.count / 2]), peakDB: Double(peak))
        needsAutoscale = false
    }

    private func draw(now: Double) throws {
        var status = feed.status()
        status.framesPerSecond = frameRate.rate(at: now)
        if hasFrame { status.binWidthHz = shownFrame.binWidthHz }
        if status.message == nil { status.message = retuneMessage }
        view.render(model: model, frame: hasFrame ? shownFrame : nil, status: status, into: &buffer)
        try writer.render(buffer, to: session.outputFD)
    }
}
