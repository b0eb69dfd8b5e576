import ArgumentParser
import CommandOptions
import Capture
import DSP
import Foundation
import Runs
import ViewModels

/// The live spectrum in the terminal.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch the live spectrum: \(AnalyzerMode.titlesInWords).",
        discussion: """
            Views: \(AnalyzerMode.keyedList) (Tab cycles). Keys: ←/→ pan, +/- zoom, ↑/↓ display gain, a autoscale, space \
            pause/resume, PgUp/PgDn scroll (waterfall: time; plot: dB offset), Home/End now, [ ] waterfall period, r record \
            (meter: reset min/max), R record in any view, b band plan grid, e measure (harmonics, TOI, ACPR, noise), d drawer, \
            ? all keys and gestures, q quit. Recordings go to --record-dir, named from --operator, --label and the UTC start; \
            several in a row, each stopped by r or after --duration. A recording ended by a write error (disk full) keeps what \
            it stored and makes watch exit 1 when you quit.
            The mouse drags, zooms with the wheel and clicks to pause. Zooming and panning retune the analyzer to the visible \
            band with about one bin per pixel column.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band to show first, start:stop in MHz (default 88:108).", transform: Band.init(parsing:))
    var band: Band = Band(defaultMHz: 88, 108)

    @Option(name: .long, help: "View to start in: \(ViewChoice.listed).")
    var view: ViewChoice = .plot

    @OptionGroup var waterfallRate: WaterfallRateOption

    @Option(name: .long, help: "Plot trace: live, max (hold), min (hold), avg (16 sweeps) or avg:N; t cycles.")
    var trace: TraceMode = .live

    @OptionGroup var referenceOption: ReferenceOption
    @OptionGroup var bandPlanOptions: BandPlanViewOptions

    @OptionGroup(title: "Events (as `tscope events`; listed on the status line, ticked on the waterfall)")
    var eventOptions: EventConditionOptions

    @Flag(help: "Ring the terminal bell as each event starts.")
    var bell = false

    @Option(name: .customLong("meter-band"), help: "Band the meter measures, start:stop in MHz (default: the visible band).",
            transform: Band.init(parsing:))
    var meterBand: Band?

    @OptionGroup var recordingOptions: ViewerRecordingOptions

    @Option(help: "An ECG strip in a pane beside the spectrum: a WFDB record, a CSV file, synthetic, or ble:ADDRESS|NAME[,rate=HZ][,profile=P] (a Bluetooth LE sensor).")
    var ecg: String?

    func validate() throws {
        try analyzerOptions.checkMode(bands: [band.range], device: deviceOptions.device)
        try bandPlanOptions.axis.check(band.range)
    }

    func run() throws {
        var run = LiveViewerRun(
            selection: try analyzerOptions.apply(to: deviceOptions.selection), detector: detectorOption.chosen(default: .peak),
            recordings: recordingOptions.settings)
        if let ecg {
            let pane = try ECGPaneSource.parse(ecg)  // a path as `ecg watch` opens it with no options; ble:TARGET as --ble
            run.ecgPane = try ECGPaneOpening.pane(source: pane.path, request: pane.request)
        }
        run.mode = view.mode
        run.waterfallRowsPerSecond = waterfallRate.rowsPerSecond
        run.trace = trace
        run.bell = bell
        if eventOptions.isGiven {
            run.eventWatch = EventWatch(condition: try eventOptions.condition(), learnSeconds: eventOptions.learnSeconds(),
                                        overBaselineDB: eventOptions.overBaseline ?? 0, holdSeconds: eventOptions.holdSeconds(),
                                        hysteresisDB: eventOptions.hysteresis, capacity: EventLog.capacity)
        }
        // the bands check again against what the chosen analyzer can tune
        let recordingFailed = try usage { try run.run(
            bands: { limits in
                (try band.real(behind: deviceOptions.conversion).within(limits, option: "--band"), try meterBand.map { try $0.within(limits, option: "--meter-band") })
            },
            configure: { try referenceOption.apply(to: $0); try bandPlanOptions.apply(to: $0) }) }
        // the viewer went on after a recording's write error (the stderr line says which): the exit status says so too
        if recordingFailed { throw ExitCode.failure }
    }
}
