import DSP
import ECG
import Signals
import Terminal
import ViewModels

/// What the ECG viewer reads: a source, optionally the rhythm monitor fed
/// with the same samples, and a name for the status line.
public struct ECGFeed {
    public var source: any ECGSource
    /// beat detection, heart rate and rhythm; nil shows "HR --" and no events
    public var monitor: (any ECGRhythmMonitor)?
    public var sourceName: String

    public init(source: any ECGSource, monitor: (any ECGRhythmMonitor)?, sourceName: String) {
        self.source = source
        self.monitor = monitor
        self.sourceName = sourceName
    }
}

/// The interactive ECG loop: reads keys, and at each frame tick drains the
/// source into the strip model (and the rhythm monitor), draws, and measures
/// the sample-to-screen latency: from the moment the newest drawn sample was
/// read from the source to the end of the terminal write of the frame that
/// shows it.
public final class ECGViewer {
    /// reads of the source per frame at most, so a source faster than real
    /// time cannot starve the screen [reads]
    static let maximumReadsPerFrame = 64
    /// samples per lead per read
    static let chunkCapacity = 1024
    /// how often the status line's measured figures are refreshed [s]
    static let statusPeriod = 0.5

    private let session: TerminalSession
    public private(set) var model: ECGMonitorModel
    private let feed: ECGFeed
    private let view = ECGMonitorView()
    private let writer: DiffWriter
    private var buffer = Buffer(width: 1, height: 1)
    private var decoder = InputDecoder()
    private var inputBytes: [UInt8] = []
    private var limiter: FrameRateLimiter
    private var frameRate = RateMeter()
    private var latency = ECGLatencyMeter()
    private var chunk: ECGChunk
    private var newEvents: [RhythmEvent] = []
    private var status: ECGMonitorStatus
    private var statusUpdatedAt = -Double.infinity
    private var message: String?

    public init(session: TerminalSession, model: ECGMonitorModel, feed: ECGFeed, colorMode: ColorMode) {
        self.session = session
        self.model = model
        self.feed = feed
        writer = DiffWriter(mode: colorMode)
        limiter = FrameRateLimiter(maxFramesPerSecond: model.refreshRate)
        chunk = ECGChunk(leadCount: max(1, feed.source.leadNames.count), capacity: Self.chunkCapacity)
        newEvents.reserveCapacity(64)
        status = ECGMonitorStatus(sourceName: feed.sourceName)
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

            let now = monotonicSeconds()
            guard limiter.shouldEmit(at: now) else { continue }
            let newestArrival: Double?
            do {
                newestArrival = try drainSource()
            } catch {
                return .failed("\(feed.sourceName): \(error)")
            }
            try draw(now: now)
            if let newestArrival { latency.record(seconds: monotonicSeconds() - newestArrival) }
        }
    }

    /// Reads what the source has; returns when the newest samples were read.
    private func drainSource() throws -> Double? {
        var newest: Double?
        for _ in 0..<Self.maximumReadsPerFrame {
            switch try feed.source.read(into: &chunk) {
            case .samples(let count):
                guard count > 0 else { return newest }
                newest = monotonicSeconds()
                model.strip.append(chunk)
                if let monitor = feed.monitor {
                    monitor.process(chunk, sampleRate: model.strip.sampleRate, events: &newEvents)
                    for event in newEvents { model.events.append(event) }
                    newEvents.removeAll(keepingCapacity: true)
                }
            case .waiting:
                return newest
            case .end:
                status.ended = true
                return newest
            }
        }
        return newest
    }

    /// Applies a key; true to quit.
    private func handle(_ event: InputEvent) -> Bool {
        guard let intent = ECGKeyMap.intent(for: event, eventListOpen: model.events.isOpen) else { return false }
        switch model.apply(intent) {
        case .quit:
            return true
        case .setSampleRate(let hz):
            guard let control = feed.source as? any ECGSampleRateControl else {
                message = "the sample rate is fixed by \(feed.sourceName)"
                return false
            }
            do {
                try control.setSampleRate(hz)
                model.strip.changeSampleRate(hz)
                latency.reset()
                message = nil
            } catch {
                message = "\(error)"
            }
        case .setSourcePaused(let paused):
            (feed.source as? any ECGPausable)?.setPaused(paused)
        case .setRefreshRate(let rate):
            limiter = FrameRateLimiter(maxFramesPerSecond: rate)
        case nil:
            break
        }
        statusUpdatedAt = -Double.infinity
        return false
    }

    private func resize() throws {
        let size = try session.size()
        buffer.resize(width: size.width, height: size.height)
        writer.invalidate()
        view.invalidate()
    }

    private func draw(now: Double) throws {
        frameRate.record(at: now)
        if now - statusUpdatedAt >= Self.statusPeriod {
            statusUpdatedAt = now
            status.heartRateBPM = feed.monitor?.heartRateBPM
            status.rhythm = feed.monitor?.status
            status.latencyP99Seconds = latency.quantile(0.99)
            status.framesPerSecond = frameRate.rate(at: now)
            status.message = message
        }
        view.render(model: model, status: status, in: buffer.area, into: &buffer)
        try writer.render(buffer, to: session.outputFD)
    }
}
