import DSP
import Signals
import Terminal
import ViewModels
import ThreadKit

/// What the viewer needs from the device side, as closures so the viewer
/// knows nothing of drivers: a live analyzer and a replayed file look the
/// same.
public struct SpectrumFeed {
    /// frames from the producer thread
    public var mailbox: FrameMailbox
    /// reconfigure the device for a new band / bin width (called on the UI
    /// thread, debounced); a thrown error is shown on the status line; nil
    /// for feeds that cannot retune (a replay re-decimates stored data)
    public var retune: ((TuningRequest) throws -> Void)?
    /// device name, counters and extra badge text for the status line
    public var status: () -> SpectrumStatus
    /// a fatal device error (e.g. unplugged), ending the view
    public var failure: () -> String?
    /// the timeline's current time [s]: live = `unixTimeNow()`, replay = the
    /// file's playhead; waterfall rows are placed relative to it
    public var now: () -> Double
    /// a replayed file: the viewer plays it from its loop (every frame into
    /// the waterfall, the latest into the mailbox), and its playhead is the
    /// timeline's now; nil for a live analyzer
    public var replay: ReplayControl?
    /// r/R: start or stop a recording (called on the UI thread; its state and
    /// errors come back through `status`); nil where nothing can be recorded
    public var toggleRecording: (() -> Void)?
    /// events the condition's tracker reported since the last call (UI thread); nil without a condition
    public var takeEvents: (() -> [SweepEventTracker.Output])?
    /// ring the terminal bell as each event starts
    public var bell = false
    /// the zero-span view's traces, when the analyzer can measure zero span (its retune starts it); nil where
    /// nothing can (a replay: the view says so)
    public var zeroSpan: ZeroSpanMailbox?
    /// why zero span can do no more (the stream failed), for the view
    public var zeroSpanFailure: (() -> String?)?
    /// the analyzer measures each point through its own filter (a tinySA, an RF Explorer): the view
    /// warns when that filter is narrower than the step between points. False for spectra made by
    /// FFT here, live or replayed, whose shown columns hold the largest of the bins under them.
    public var filtersOnDevice = false

    public init(mailbox: FrameMailbox, retune: ((TuningRequest) throws -> Void)?,
                status: @escaping () -> SpectrumStatus, failure: @escaping () -> String?,
                now: @escaping () -> Double = unixTimeNow, replay: ReplayControl? = nil,
                toggleRecording: (() -> Void)? = nil) {
        self.mailbox = mailbox
        self.retune = retune
        self.status = status
        self.failure = failure
        self.now = now
        self.replay = replay
        self.toggleRecording = toggleRecording
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

/// The interactive analyzer loop: reads keys and mouse reports, applies
/// intents to the model, retunes the device when the wanted band changes,
/// and draws at most `maxFramesPerSecond` frames, each the peak hold of what
/// arrived since the last one. Every frame taken also goes, through
/// `AnalyzerModel.ingest(_:)`, into the waterfall's history, the persistence
/// and the meter, whichever view is showing (the persistence once its view
/// has been drawn: it sets the geometry).
public final class SpectrumViewer {
    /// frame-rate limit [frames/s]
    public static let maxFramesPerSecond = 30.0
    /// quiet time after the last zoom/pan before the device is retuned [s]
    static let retuneDelay = 0.15

    private let session: TerminalSession
    public let model: AnalyzerModel
    private let feed: SpectrumFeed
    private let screen = AnalyzerScreen()
    private let writer: DiffWriter
    private var buffer = Buffer(width: 1, height: 1)
    private var decoder = InputDecoder()
    private var gestures = MouseGestures()
    private var inputBytes: [UInt8] = []
    private var limiter = FrameRateLimiter(maxFramesPerSecond: SpectrumViewer.maxFramesPerSecond)
    private var frameRate = RateMeter()
    /// the frame on screen, and the one taken from the mailbox; swapped, not
    /// copied, so their storage is reused
    private var shownFrame = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
    private var incomingFrame = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
    /// the plot's held or averaged trace taken from the mailbox, swapped onto the screen likewise
    private var traceFrame = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
    private var hasFrame = false
    private var needsAutoscale = true
    /// floor and peak of the shown frame, for autoscale and auto mode
    private let levels = LevelStatistics()
    /// after an autoscale the window keeps following the held peak until
    /// this time [s, monotonic]: one frame may have caught no burst
    private var settleUntil = -Double.infinity
    /// the strongest level seen, falling by `peakDecayDBPerSecond` [dB]: what
    /// the settling and continuous auto levels put near the top, so a band of
    /// bursts keeps a steady window between them
    private var heldPeakDB = -Double.infinity
    private var heldPeakTime = 0.0
    /// how long an autoscale keeps following the held peak [s]
    static let settleSeconds = 2.0
    /// how fast the held peak falls back [dB/s]
    static let peakDecayDBPerSecond = 1.0
    private var appliedTuning: TuningRequest?
    private var tuningChangedAt: Double?
    private var retuneMessage: String?
    /// why r did nothing, or a replay error, for the status line
    private var viewerMessage: String?
    /// the trace's restart by a retune was noted on the status line
    private var traceRestartNoted = false
    /// a replay that could not read on ends the view with this
    private var replayFailure: String?
    /// a pane beside the spectrum (e.g. the ECG strip), set before `run`
    public var sidePane: SidePane? {
        didSet { panes = SidePaneHost(pane: sidePane) }
    }
    private var panes = SidePaneHost(pane: nil)

    /// what the frame rate, retunes, autoscale and the replay's playhead are timed on
    private let clock: any MonotonicClock

    public init(session: TerminalSession, model: AnalyzerModel, feed: SpectrumFeed, colorMode: ColorMode,
                clock: any MonotonicClock = SystemClock()) {
        self.clock = clock
        self.session = session
        self.model = model
        self.feed = feed
        self.writer = DiffWriter(mode: colorMode)
        // a mode chosen before the view (--trace) applies from the first frame
        feed.mailbox.traceMode = model.traceMode
    }

    public convenience init(session: TerminalSession, model: SpectrumPlotModel, feed: SpectrumFeed,
                            colorMode: ColorMode) {
        self.init(session: session, model: AnalyzerModel(plot: model), feed: feed, colorMode: colorMode)
    }

    /// Runs until q, a termination signal or a device failure. The caller owns
    /// `session.enter`/`restore` (enter with `mouse: true` for the gestures).
    public func run() throws -> ViewerExit {
        try resize()
        try retuneIfNeeded(now: clock.now, force: true)
        while true {
            if let signal = session.pendingSignal { return .signal(signal) }
            if let failure = feed.failure() ?? replayFailure { return .failed(failure) }
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

            let now = clock.now
            try retuneIfNeeded(now: now, force: false)
            if let replay = feed.replay { advance(replay, now: now) }
            if let takeEvents = feed.takeEvents, model.events.apply(takeEvents()), feed.bell {
                // BEL straight to the terminal: it moves no cursor, so the diffed screen stays right
                _ = [UInt8(7)].withUnsafeBytes { FileDescriptor.writeAll($0, to: session.outputFD) }
            }
            if limiter.shouldEmit(at: now) {
                // Take only when drawing: the mailbox peak-holds everything
                // that arrived since the last drawn frame.
                feed.mailbox.measuredBand = model.meter.measuredBand(visible: model.plot.visibleBand)
                if feed.mailbox.take(into: &incomingFrame) > 0 { accept(now: now) }
                if let zeroSpan = feed.zeroSpan {
                    // the status line's rate counts the traces drawn while zero span runs
                    if model.takeZeroSpan(from: zeroSpan) { frameRate.record(at: now) }
                    if let failure = feed.zeroSpanFailure?() { model.zeroSpan.notice = failure }
                }
                try draw(now: now)
            }
        }
    }

    /// A new peak-held frame: into the models through `ingest` (the
    /// history always; the persistence and the meter unless paused), then on
    /// screen unless paused.
    private func accept(now: Double) {
        let paused = model.plot.isPaused
        // while the plot is frozen neither the band power nor the trace is taken from the mailbox;
        // otherwise every sweep since the last drawn frame, averaged in linear power, and the
        // plot's trace (held or averaged over every sweep) where one is chosen
        let swept = paused ? nil : feed.mailbox.takeBandPower()
        let traced = !paused && model.traceMode != .live && feed.mailbox.takeTrace(into: &traceFrame)
        // a replay's pump put every frame into the history and the persistence as it played
        model.ingest(FrameDelivery(frame: feed.replay == nil ? incomingFrame : nil, trace: traced ? traceFrame : nil,
                                   bandPower: swept.map { ($0.decibels, timelineNow()) }))
        guard !paused else { return }
        if traced {
            // the plot shows the trace
            swap(&shownFrame, &traceFrame)
            let restarted = feed.mailbox.traceState.restartedByRetune
            if restarted != traceRestartNoted {
                traceRestartNoted = restarted
                if restarted { viewerMessage = "\(model.traceMode) restarted: the band changed" }
            }
        } else {
            swap(&shownFrame, &incomingFrame)
        }
        model.subtractReferenceIfShown(from: &shownFrame)
        hasFrame = true
        // e's measurement, on the trace as drawn (the UI thread: the device's read loop never waits for it)
        model.measure(shownFrame)
        frameRate.record(at: now)
        if needsAutoscale {
            autoscale(to: shownFrame, now: now)
        } else if now < settleUntil || model.autoLevels, let measured = measure(shownFrame) {
            model.plot.followLevels(floorDB: measured.floorDB, peakDB: holdPeak(measured.peakDB, now: now))
        }
    }

    /// s: the shown trace (device bins) becomes the reference.
    private func storeReference() {
        guard hasFrame else {
            // before the first frame (a real-time stream's first FFTs, a slow sweep): said, not silently ignored
            viewerMessage = "no trace to store yet: s again once the trace is drawn"
            return
        }
        let points = shownFrame.powerDB.indices.compactMap { i -> LevelPoint? in
            shownFrame.powerDB[i].isNaN ? nil : LevelPoint(hz: shownFrame.binCenterHz(i), decibels: shownFrame.powerDB[i])
        }
        model.setReference(points)
        viewerMessage = "reference stored: \(points.count) bins (S drops it)"
    }

    /// Peak excursion for the marker keys [dB] (the bench analyzers' default)
    static let markerExcursionDB: Float = 6

    /// A marker key on the shown trace: its peaks (by the excursion rule) inside the visible band.
    private func applyMarker(_ intent: MarkerIntent) {
        guard hasFrame else { return }
        let band = model.plot.visibleBand
        let inside = shownFrame.powerDB.indices.filter { (band.lowerHz...band.upperHz).contains(shownFrame.binCenterHz($0)) }
        guard let first = inside.first, let last = inside.last else { return }
        let peaks = SpectrumMeasurements.peaks(Array(shownFrame.powerDB[first...last]), excursionDB: Self.markerExcursionDB,
                                               count: 1000).map { SpectrumMeasurements.Peak(bin: $0.bin + first, decibels: $0.decibels) }
        switch intent {
        case .highestPeak: model.markers.placeOnHighestPeak(peaks, frame: shownFrame)
        case .nextPeak(let right): model.markers.moveToNextPeak(right: right, peaks, frame: shownFrame)
        case .cycle: model.markers.cycle(peaks, frame: shownFrame)
        case .toggleDelta: model.markers.cycleKind()
        }
    }

    private enum Handled { case handled, quit }

    private func handle(_ event: InputEvent) -> Handled {
        let intents: [AnalyzerIntent]
        switch event {
        case .key:
            guard let intent = AnalyzerKeyMap.intent(for: event, model: model) else { return .handled }
            intents = [intent]
        case .mouse(let mouse):
            intents = gestures.intents(for: mouse, geometry: screen.geometry)
        }
        for intent in intents {
            switch model.apply(intent, now: timelineNow()) {
            case .quit: return .quit
            case .replay(let replayIntent): perform(replayIntent)
            case .toggleRecording:
                if let toggle = feed.toggleRecording {
                    viewerMessage = nil
                    toggle()
                } else {
                    viewerMessage = "nothing to record here: recording is for live analyzers (tscope watch)"
                }
            case .marker(let intent):
                applyMarker(intent)
                // a measurement read at the selected marker follows it, paused too
                if hasFrame { model.measure(shownFrame) }
            case .storeReference:
                storeReference()
            case .referenceDropped:
                viewerMessage = nil
            case .measurementChanged:
                if hasFrame { model.measure(shownFrame) }
            case .traceChanged(let mode):
                feed.mailbox.traceMode = mode
                // the meter's readings so far were of another trace
                model.meter.resetExtremes()
                viewerMessage = nil
            case .autoscale:
                if hasFrame { autoscale(to: shownFrame, now: clock.now) } else { needsAutoscale = true }
            // resume jumps to now: forget what piled up while paused
            case .resumed: feed.mailbox.clear()
            case .paused, .none: break
            }
        }
        return .handled
    }

    /// The timeline's now [s]: the replay's playhead, else the feed's clock.
    private func timelineNow() -> Double {
        feed.replay?.playhead(at: clock.now) ?? feed.now()
    }

    private func advance(_ replay: ReplayControl, now: Double) {
        do {
            try ReplayPump.advance(replay, model: model, mailbox: feed.mailbox, at: now)
        } catch {
            replayFailure = "\(error)"
        }
    }

    private func perform(_ intent: ReplayIntent) {
        guard let replay = feed.replay else { return }
        viewerMessage = nil
        do {
            try ReplayPump.perform(intent, on: replay, model: model, mailbox: feed.mailbox, at: clock.now)
        } catch {
            viewerMessage = "\(error)"
        }
    }

    private func resize() throws {
        let screenSize = try session.size()
        let size = panes.resize(width: screenSize.width, height: screenSize.height)
        buffer.resize(width: size.width, height: size.height)
        writer.invalidate()
        screen.invalidate()
        let pixels = SpectrumPlotView.plotPixels(width: size.width, height: size.height)
        model.plot.resize(pixelColumns: max(pixels.columns, 1), pixelRows: max(pixels.rows, 1))
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
        appliedTuning = wanted
        tuningChangedAt = nil
        guard let retune = feed.retune, wanted.zeroSpan == nil || feed.zeroSpan != nil else {
            if wanted.zeroSpan != nil {
                model.zeroSpan.notice = "zero span needs a live analyzer that streams I/Q: a replayed capture holds spectra, not samples against time"
            }
            return
        }
        do {
            try retune(wanted)
            retuneMessage = nil
            if wanted.zeroSpan != nil { model.zeroSpan.notice = nil }
        } catch {
            // zero span's refusal is the view's one line; a spectrum's goes on the status line
            if wanted.zeroSpan != nil { model.zeroSpan.notice = "\(error)" } else { retuneMessage = "\(error)" }
        }
        feed.mailbox.clear()
    }

    /// Floor and peak of the part of `frame` in the visible band.
    private func measure(_ frame: SpectrumFrame) -> (floorDB: Double, peakDB: Double)? {
        let band = model.plot.visibleBand
        guard frame.binWidthHz > 0 else { return nil }
        let first = max(0, Int(((band.lowerHz - frame.startHz) / frame.binWidthHz).rounded(.down)))
        let end = min(frame.powerDB.count, Int(((band.upperHz - frame.startHz) / frame.binWidthHz).rounded(.up)))
        guard first < end else { return nil }
        return frame.powerDB.withUnsafeBufferPointer {
            levels.measure(UnsafeBufferPointer(rebasing: $0[first..<end]))
        }
    }

    /// the shown frame's point-step warning (`SpectrumStatus.pointStepWarning`), made again only when
    /// its bin width or noise bandwidth changes
    private var stepWarning: (binWidthHz: Double, noiseBandwidthHz: Double?, text: String?) = (0, nil, nil)

    private func pointStepWarning() -> String? {
        if stepWarning.binWidthHz != shownFrame.binWidthHz || stepWarning.noiseBandwidthHz != shownFrame.noiseBandwidthHz {
            stepWarning = (shownFrame.binWidthHz, shownFrame.noiseBandwidthHz, SpectrumStatus.pointStepWarning(shownFrame))
        }
        return stepWarning.text
    }

    private func autoscale(to frame: SpectrumFrame, now: Double) {
        guard let measured = measure(frame) else { return }
        model.plot.autoscale(floorDB: measured.floorDB, peakDB: measured.peakDB)
        needsAutoscale = false
        settleUntil = now + Self.settleSeconds
        heldPeakDB = measured.peakDB
        heldPeakTime = now
    }

    /// The held peak after a frame whose peak is `peakDB` at `now` [s].
    private func holdPeak(_ peakDB: Double, now: Double) -> Double {
        let fallen = heldPeakDB - Self.peakDecayDBPerSecond * max(0, now - heldPeakTime)
        heldPeakDB = max(peakDB, fallen)
        heldPeakTime = now
        return heldPeakDB
    }

    private func draw(now: Double) throws {
        var status = feed.status()
        status.framesPerSecond = frameRate.rate(at: now)
        if hasFrame { status.binWidthHz = shownFrame.binWidthHz }
        if status.message == nil { status.message = retuneMessage }
        if status.message == nil, hasFrame, feed.filtersOnDevice, !model.mode.measuresZeroSpan {
            status.message = pointStepWarning()
        }
        // the "go to" prompt has a line of its own (AnalyzerScreen)
        if let replay = model.replay { status.extra = replay.badge }
        if let viewerMessage { status.message = viewerMessage }
        let shownReference = hasFrame && !model.subtractsReference ? model.reference(on: shownFrame) : nil
        screen.render(model: model, frame: hasFrame ? shownFrame : nil, reference: shownReference, status: status,
                      now: timelineNow(), into: &buffer)
        panes.update(now: now)
        try writer.render(panes.compose(buffer), to: session.outputFD)
        panes.presented(at: clock.now)
    }
}
