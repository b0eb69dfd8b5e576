import ArgumentParser
import Capture
import DSP
import Devices
import Foundation
import Runs
import Signals
import Terminal
import ThreadKit
import USBDriver
import ViewModels
import Views

/// The live spectrum in the terminal.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch the live spectrum: plot, waterfall and power meter.",
        discussion: """
            Views: 1 plot, 2 waterfall, 3 meter (Tab cycles). Keys: ←/→ pan, +/- zoom, ↑/↓ display gain, \
            a autoscale, space pause/resume, PgUp/PgDn scroll (waterfall: time; plot: dB offset), Home/End now, \
            [ ] waterfall period, r record (meter: reset min/max), R record in any view, d control drawer, \
            ? all keys and gestures, q quit. Recordings go to --record-dir, named from --operator, --label and \
            the UTC start; several in a row, each stopped by r or after --duration. A recording ended by a write \
            error (disk full) keeps what it stored and makes watch exit 1 when you quit.
            The mouse drags, zooms with the wheel and clicks to pause. Zooming and panning retune the analyzer \
            to the visible band with about one bin per pixel column.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band to show first, start:stop in MHz.", transform: Band.init(parsing:))
    var band: Band = try! Band(parsing: "88:108")

    @Option(name: .long, help: "View to start in: plot, waterfall, meter.")
    var view: ViewChoice = .plot

    @Option(name: .long, help: "Plot trace: live, max (hold), min (hold), avg (16 sweeps) or avg:N; t cycles.")
    var trace: TraceMode = .live

    @OptionGroup var referenceOption: ReferenceOption

    @OptionGroup(title: "Events (as `tscope events`; listed on the status line, ticked on the waterfall)")
    var eventOptions: EventConditionOptions

    @Flag(help: "Ring the terminal bell as each event starts.")
    var bell = false

    @Option(name: .customLong("meter-band"), help: "Band the meter measures, start:stop in MHz (default: the visible band).",
            transform: Band.init(parsing:))
    var meterBand: Band?

    @Option(name: .customLong("record-dir"), help: "Directory for recordings started with r (default: the current directory).")
    var recordDirectory: String = "."

    @Option(help: "Label for recordings' file names and metadata, e.g. fm-survey.")
    var label: String?

    @Option(name: .customLong("operator"), help: "Operator or bench name for recordings' file names and metadata.")
    var operatorName: String?

    @Option(help: "Stop each recording after this long: seconds, or with a unit: 90s, 5m, 1h.",
            transform: TimeSpan.init(parsing:))
    var duration: TimeSpan?

    @Option(help: "An ECG strip in a pane beside the spectrum: a WFDB record, a CSV file, or synthetic.")
    var ecg: String?


    func run() throws {
        let ecgPane = try ecg.map(ECGPaneOpening.pane)
        guard TerminalSession.isTerminal(STDIN_FILENO), TerminalSession.isTerminal(STDOUT_FILENO) else {
            throw CommandError("watch needs an interactive terminal; for output to a pipe or file use "
                + "`tscope sweep` (hackrf_sweep-compatible CSV)")
        }
        let mailbox = FrameMailbox()
        let failure = DeviceFailure()
        let counters = DeviceBlockCounters()
        var metadata = CaptureMetadata(format: "tscope")
        metadata.writerVersion = TscopeVersion.number
        metadata.utcOffsetSeconds = TimeZone.current.secondsFromGMT()
        let recordingSettings = ViewerRecording.Settings(directory: recordDirectory, label: label,
                                                         operatorName: operatorName, duration: duration?.seconds,
                                                         metadata: metadata)
        let recording = ViewerRecording(settings: recordingSettings, deviceCounters: { counters.value })
        // every sweep through the condition's tracker, on the DSP thread; the viewer takes what it reports
        let eventWatch: EventWatch? = eventOptions.isGiven
            ? EventWatch(condition: try eventOptions.condition(), learnSeconds: eventOptions.learnSeconds(),
                         overBaselineDB: eventOptions.overBaseline ?? 0, holdSeconds: eventOptions.holdSeconds(),
                         hysteresisDB: eventOptions.hysteresis, capacity: EventLog.capacity)
            : nil
        // a lost analyzer is reconnected (status "reconnecting…") until the user quits
        let source: ReconnectingSpectrumSource
        let analyzer: SelectedAnalyzer
        let toRecording = recording.onFrame
        (source, analyzer) = try deviceOptions.selection.spectrumSource(
            headless: false, hackRF: .init(detector: detectorOption.chosen(default: .peak)),
            onFrame: { frame in
                mailbox.post(frame)
                toRecording(frame)
                eventWatch?.add(frame)
            },
            // an outage goes into the recording as a gap; the recording goes on
            onGap: recording.onGap,
            onGiveUp: { failure.record($0) })
        defer { source.stop() }
        counters.read = {
            let now = source.counters
            return (now.droppedBlocks, now.badBlocks)
        }
        recording.device = analyzer.isDemo ? "\(analyzer.name) (demo)" : analyzer.name
        recording.serial = analyzer.serial

        // the band checks again against what the chosen analyzer can tune
        let limits = analyzer.kind.tunableRange
        let visibleBand: FrequencyRange
        let measuredBand: FrequencyRange?
        visibleBand = try band.within(limits, option: "--band")
        measuredBand = try meterBand.map { try $0.within(limits, option: "--meter-band") }
        let plot = SpectrumPlotModel(deviceLimits: limits, visibleBand: visibleBand)
        let meter = PowerMeterModel(band: measuredBand)
        let model = AnalyzerModel(plot: plot, meter: meter, mode: view.mode)
        model.setTraceMode(trace)
        try referenceOption.apply(to: model)
        var feed = SpectrumFeed(
            mailbox: mailbox,
            retune: { tuning in try source.retune(to: tuning.band, binWidthHz: tuning.binWidthHz) },
            status: {
                let counters = source.counters
                return SpectrumStatus(deviceName: analyzer.name, isDemo: analyzer.isDemo,
                                      droppedBlocks: counters.droppedBlocks, badBlocks: counters.badBlocks,
                                      message: source.statusLine ?? recording.message,
                                      extra: recording.poll(), powerUnit: analyzer.kind.powerUnit,
                                      dwell: source.dwellTiming)
            },
            failure: { failure.message },
            toggleRecording: { recording.toggle(band: model.tuning.band, binWidthHz: model.tuning.binWidthHz) }
        )
        if let eventWatch { feed.takeEvents = { eventWatch.take() } }
        feed.bell = bell
        let session = TerminalSession()
        // an active recording is finished properly on every way out
        try InteractiveView.run(session, mouse: true, beforeRestore: { recording.finish() },
                                afterRestore: { Self.report(recording) }, beforeSignalExit: { source.stop() }) { colorMode in
            let viewer = SpectrumViewer(session: session, model: model, feed: feed, colorMode: colorMode)
            // one pane: the ECG if asked for, else the events list when there is a condition
            viewer.sidePane = ecgPane ?? (eventWatch == nil ? nil : EventsPane(model: model, unit: analyzer.kind.powerUnit))
            return try viewer.run()
        }
        // the viewer went on after a recording's write error (the stderr line says which): the exit status says so too
        if recording.failedSessions > 0 { throw ExitCode.failure }
    }
}

extension WatchCommand {
    /// One line per recording made, on stderr once the terminal is back.
    static func report(_ recording: ViewerRecording) {
        for line in recording.summaries { FileHandle.standardError.write(Data("recorded \(line)\n".utf8)) }
    }
}

/// The view `watch` starts in.
enum ViewChoice: String, ExpressibleByArgument, CaseIterable {
    case plot, waterfall, meter

    var mode: AnalyzerMode {
        switch self {
        case .plot: return .plot
        case .waterfall: return .waterfall
        case .meter: return .meter
        }
    }
}

