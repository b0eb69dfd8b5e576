import Analyzers
import Capture
import DSP
import Devices
import ECG
import Foundation
import Remote
import Signals
import Terminal
import ThreadKit
import ViewModels
import Views

/// `watch`: the live analyzer in the terminal. The device's frames go to the
/// viewer's mailbox, an active recording and the event tracker on the DSP
/// thread; the viewer draws the latest; a lost analyzer is reconnected
/// ("reconnecting…") until the user quits; every way out finishes an active
/// recording and restores the terminal.
public struct LiveViewerRun {
    public var selection: DeviceSelection
    public var detector: SpectrumDetector
    public var mode: AnalyzerMode = .plot
    public var trace: TraceMode = .live
    /// waterfall rows per second (WaterfallHistory.rowsPerSecondLimits); a
    /// real-time source at ~30 frames/s may ask for 30, one row per frame
    public var waterfallRowsPerSecond = WaterfallHistory.defaultRowsPerSecond
    /// where recordings started with r go (metadata filled in here)
    public var recordings: ViewerRecording.Settings
    /// the event condition's tracker, when one was given
    public var eventWatch: EventWatch?
    /// ring the terminal bell as each event starts
    public var bell = false
    /// an ECG pane beside the spectrum (it wins over the events list)
    public var ecgPane: ECGSidePane?

    public init(selection: DeviceSelection, detector: SpectrumDetector, recordings: ViewerRecording.Settings) {
        self.selection = selection
        self.detector = detector
        self.recordings = recordings
    }

    /// Runs until the user quits. `bands` gives the visible and the measured
    /// band within the opened analyzer's limits; `configure` sets the model
    /// up (a reference trace). Returns whether a recording ended in a write
    /// error (the stderr line said which).
    public func run(bands: (FrequencyRange) throws -> (visible: FrequencyRange, measured: FrequencyRange?),
                    configure: (AnalyzerModel) throws -> Void) throws -> Bool {
        guard TerminalSession.isTerminal(STDIN_FILENO), TerminalSession.isTerminal(STDOUT_FILENO) else {
            throw CommandError("watch needs an interactive terminal; for output to a pipe or file use "
                + "`tscope sweep` (hackrf_sweep-compatible CSV)")
        }
        let mailbox = FrameMailbox()
        let failure = DeviceFailure()
        let counters = DeviceBlockCounters()
        let notice = NoticeHold()
        var settings = recordings
        settings.metadata.writerVersion = TscopeVersion.number
        settings.metadata.utcOffsetSeconds = TimeZone.current.secondsFromGMT()
        let recording = ViewerRecording(settings: settings, deviceCounters: { counters.value })
        let eventWatch = eventWatch
        let toRecording = recording.onFrame
        var selection = selection
        // a remote sensor sends the view what it draws: about one bin per column, at the display's rate
        #if SensorLink
        selection.remote?.framesPerSecond = SpectrumViewer.maxFramesPerSecond
        selection.remote?.fullResolution = false
        #endif
        let (source, analyzer) = try selection.spectrumSource(
            headless: false, detector: detector,
            onFrame: { frame in
                mailbox.post(frame)
                toRecording(frame)
                eventWatch?.add(frame)
            },
            // an outage goes into the recording as a gap; the recording goes on
            onGap: recording.onGap,
            onGiveUp: { failure.record($0) })
        defer { source.stop() }
        // the zero-span view: the same analyzer streaming one tuning, while the spectrum source rests
        let zeroSpan = LiveZeroSpan(selection: selection, analyzer: analyzer)
        defer { zeroSpan.stop() }
        counters.read = {
            let now = source.counters
            return (now.droppedBlocks, now.badBlocks)
        }
        recording.device = analyzer.isDemo ? "\(analyzer.name) (demo)" : analyzer.name
        recording.serial = analyzer.serial
        recording.conversion = analyzer.conversion

        let limits = analyzer.tunableRange
        let (visibleBand, measuredBand) = try bands(limits)
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: limits, visibleBand: visibleBand),
                                  waterfall: WaterfallModel(history: WaterfallHistory(rowsPerSecond: waterfallRowsPerSecond)),
                                  meter: PowerMeterModel(band: measuredBand), mode: mode)
        model.setTraceMode(trace)
        // a --mask stating its unit is evaluated and drawn in the levels' (refused in one line if it cannot be)
        if let eventWatch { model.setLimitLine(try eventWatch.levels(in: analyzer.powerUnit)?.limitLine) }
        try configure(model)
        var feed = SpectrumFeed(
            mailbox: mailbox,
            retune: { tuning in
                if let settings = tuning.zeroSpan {
                    source.stop()
                    try zeroSpan.start(settings)
                    return
                }
                zeroSpan.stop()
                analyzer.tune(to: tuning.band)
                try source.retune(to: tuning.band, binWidthHz: tuning.binWidthHz)
            },
            status: {
                let counters = source.counters
                return SpectrumStatus(deviceName: analyzer.name, isDemo: analyzer.isDemo,
                                      droppedBlocks: counters.droppedBlocks, badBlocks: counters.badBlocks,
                                      message: source.statusLine ?? recording.message ?? notice.update(source.takeRemoteNotice())
                                          ?? Self.following(source),
                                      extra: recording.poll(), powerUnit: analyzer.powerUnit,
                                      dwell: source.dwellTiming,
                                      settings: analyzer.withLiveSettings(of: source).settingsLine,
                                      droppedSamples: counters.droppedSamples)
            },
            failure: { failure.message },
            toggleRecording: { recording.toggle(band: model.tuning.band, binWidthHz: model.tuning.binWidthHz) }
        )
        if let eventWatch { feed.takeEvents = { eventWatch.take() } }
        feed.zeroSpan = zeroSpan.mailbox
        feed.zeroSpanFailure = { zeroSpan.failure }
        feed.filtersOnDevice = !analyzer.kind.detectsFromSamples
        feed.bell = bell
        let session = TerminalSession()
        let sidePane: SidePane? = ecgPane ?? (eventWatch == nil ? nil : EventsPane(model: model, unit: analyzer.powerUnit))
        // an active recording is finished properly on every way out; what was recorded is listed once the screen is back
        try InteractiveView.run(session, mouse: true, beforeRestore: { recording.finish() },
                                afterRestore: { Self.list(recording.summaries) },
                                beforeSignalExit: {
                                    zeroSpan.stop()
                                    source.stop()
                                }) { colorMode in
            let viewer = SpectrumViewer(session: session, model: model, feed: feed, colorMode: colorMode)
            viewer.sidePane = sidePane
            return try viewer.run()
        }
        return recording.failedSessions > 0
    }

    /// "following 10.0.0.7:51234 (it holds control)" while another viewer of the same sensor retunes it.
    private static func following(_ source: ReconnectingSpectrumSource) -> String? {
        #if SensorLink
        guard let remote = source.connectedSource as? RemoteSpectrumSource else { return nil }
        let control = remote.control
        return control.held || control.holder.isEmpty ? nil : "following \(control.holder) (it holds control)"
        #else
        return nil
        #endif
    }

    /// One line per recording made, on stderr.
    private static func list(_ summaries: [String]) {
        for line in summaries { FileHandle.standardError.write(Data("recorded \(line)\n".utf8)) }
    }
}

/// `replay`: a capture played in the live views, with the replay keys.
public struct ReplayViewerRun {
    public var path: String
    public var reader: any SeekableSpectrumFrameReader
    public var speed: Double
    /// where play starts [s after the first frame]
    public var startOffset: Double
    public var mode: AnalyzerMode = .plot
    public var trace: TraceMode = .live
    /// waterfall rows per second (WaterfallHistory.rowsPerSecondLimits)
    public var waterfallRowsPerSecond = WaterfallHistory.defaultRowsPerSecond

    public init(path: String, reader: any SeekableSpectrumFrameReader, speed: Double, startOffset: Double) {
        self.path = path
        self.reader = reader
        self.speed = speed
        self.startOffset = startOffset
    }

    /// Runs until the user quits; `configure` sets the model up (a reference trace).
    public func run(configure: (AnalyzerModel) throws -> Void) throws {
        guard TerminalSession.isTerminal(STDIN_FILENO), TerminalSession.isTerminal(STDOUT_FILENO) else {
            throw CommandError("replay needs an interactive terminal; to turn \(path) into another format or a "
                + "picture use `tscope convert` or `tscope export`")
        }
        let reader = reader
        let band = try Self.band(of: reader, file: path)
        // the system clock: the one the viewer's loop (Views) reads the playhead on
        let driver = try ReplayDriver(reader: reader, speed: speed, startOffset: startOffset, at: SystemClock().now)
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: band, visibleBand: band),
                                  waterfall: WaterfallModel(history: WaterfallHistory(rowsPerSecond: waterfallRowsPerSecond)),
                                  mode: mode)
        model.setTraceMode(trace)
        try configure(model)
        let name = "\((path as NSString).lastPathComponent)" + (reader.metadata.device.map { " (\($0))" } ?? "")
        let feed = SpectrumFeed(
            mailbox: FrameMailbox(),
            retune: nil,
            status: {
                SpectrumStatus(deviceName: name, isDemo: false,
                               message: reader.skipped > 0 ? "skipped \(reader.skipped) damaged frames" : nil)
            },
            failure: { nil },
            replay: driver)
        let session = TerminalSession()
        try InteractiveView.run(session, mouse: true) { colorMode in
            try SpectrumViewer(session: session, model: model, feed: feed, colorMode: colorMode).run()
        }
    }

    /// The band to show: the recorded span and the first frame's band together.
    static func band(of reader: any SeekableSpectrumFrameReader, file: String) throws -> FrequencyRange {
        var first = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        guard try reader.next(into: &first), let frameBand = first.range else {
            throw CaptureError(file: file, "no frames to replay")
        }
        guard let span = reader.metadata.span else { return frameBand }
        return FrequencyRange(lowerHz: min(span.lowerHz, frameBand.lowerHz),
                              upperHz: max(span.upperHz, frameBand.upperHz)) ?? frameBand
    }
}

/// Capture's replay driver has the shape the viewer plays.
extension ReplayDriver: ReplayControl {}

/// `ecg watch`: strips or the 12-lead view of a source, keys from the terminal.
public struct ECGViewerRun {
    public var source: ECGSourceRequest
    public var sourcePath: String?
    /// strip length [s]
    public var stripSeconds: Double
    /// frames per second drawn
    public var refreshRate: Double
    /// nil: chosen from the lead count
    public var layout: ECGMonitorModel.Layout?
    /// a target heart-rate zone drawn in the trend [beats/min]
    public var targetZone: ClosedRange<Double>?

    public init(source: ECGSourceRequest, sourcePath: String?, stripSeconds: Double, refreshRate: Double) {
        self.source = source
        self.sourcePath = sourcePath
        self.stripSeconds = stripSeconds
        self.refreshRate = refreshRate
    }

    public func run() throws {
        // the source first, so a bad file is reported with or without a terminal
        let feed: ECGFeed
        do {
            feed = try source.openFeed(sourcePath: sourcePath)
        } catch let error as ECGError {
            throw CommandError(error.description)
        }
        // with stdin as the source the samples come through stdin and the keys from the terminal
        let samplesOnStdin = if case .standardInput = source.stream { true } else { false }
        let keyboard = samplesOnStdin ? open("/dev/tty", O_RDWR | O_CLOEXEC) : STDIN_FILENO
        defer { if keyboard != STDIN_FILENO && keyboard >= 0 { close(keyboard) } }
        guard keyboard >= 0, TerminalSession.isTerminal(keyboard), TerminalSession.isTerminal(STDOUT_FILENO) else {
            throw CommandError("ecg watch needs an interactive terminal; for scoring a record use `tscope ecg score`")
        }
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: stripSeconds), refreshRate: refreshRate, layout: layout)
        model.trend.target = targetZone
        if feed.beatSource != nil { model.showTrendOnly() }
        let session = TerminalSession(input: keyboard)
        let monitor = ECGLiveMonitor(feed: feed, model: model)
        try InteractiveView.run(session, mouse: false, afterRestore: {
            // a live stream's closing lines, on stderr once the screen is back
            guard source.stream != nil else { return }
            if let sensor = ECGSourceRequest.sensor(feed.source) {
                sensor.close()
                printError(sensor.summary)
            }
            if let strap = feed.beatSource as? BluetoothStrapSource {
                strap.close()
                printError(strap.summary)
            }
            printError(Self.latencyLine(monitor.runLatency, gaps: feed.gapCount, strip: feed.beatSource == nil))
        }) { colorMode in
            try ECGViewer(session: session, monitor: monitor, colorMode: colorMode).run()
        }
    }

    /// "latency from arrival to screen: p50 …, p99 …, max … ms over N frames": from when
    /// a sensor's notification (a line, for other streams) reached tscope to the frame that drew it;
    /// then the breaks marked, where they were drawn (a strap has no strip, only the trend).
    static func latencyLine(_ latency: LatencyHistogram, gaps: Int, strip: Bool = true) -> String {
        guard let p50 = latency.quantile(0.5), let p99 = latency.quantile(0.99) else {
            return "latency from arrival to screen: no frame drew new samples"
        }
        var line = String(format: "latency from arrival to screen: p50 %.0f ms, p99 %.0f ms, max %.0f ms over %d frames",
                          p50 * 1000, p99 * 1000, latency.maximum * 1000, latency.count)
        if gaps > 0 { line += "; \(gaps) gap\(gaps == 1 ? "" : "s") marked on the \(strip ? "strip and the trend" : "trend")" }
        return line
    }
}
