import ArgumentParser
import CommandOptions
import Capture
import DSP
import Foundation
import Runs

/// Tells when something appears in a band: one line per event, live from any
/// analyzer or from any capture file.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Report when a condition on a band holds: a signal above a level, a limit line or a baseline.",
        discussion: """
            Every sweep is examined at the device's bins. A sweep meets the condition when a bin in --band is above --above \
            LEVEL, above the --mask limit line (CSV frequency_hz,level_db, linear between points), or more than \
            --over-baseline DB above a baseline learned as the per-bin median of the first --learn DURATION or read with \
            --baseline FILE (the CSV `export --trace avg` writes). An event opens once sweeps meet it for --for DURATION \
            without a break and ends at the first sweep where every bin is below the limit minus --hysteresis DB. One line per \
            event when it ends; --json: JSON Lines with start, end (ISO 8601 UTC, the first and last sweep that met it), \
            duration_s, peak_hz, peak_db, unit, start_hz, stop_hz, sweeps, band (--band-plan); --json-open adds a line with \
            "open": true as an event starts. A device lost and found again is a "gap" line. --record DIR saves each event's \
            sweeps (with --pre before and --post after) as a tscope capture. Live runs end with Ctrl-C, SIGTERM or --duration; \
            a file ends at its end.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band to watch, start:stop in MHz.", transform: Band.init(parsing:))
    var band: Band

    @OptionGroup var conditionOptions: EventConditionOptions
    @OptionGroup var bandPlanOption: BandPlanOption

    @Flag(help: "JSON Lines.")
    var json = false

    @Flag(name: .customLong("json-open"), help: "Also a JSON line with \"open\": true as each event starts.")
    var jsonOpen = false

    @Option(help: "Examine a capture file instead of a device (any format tscope reads).")
    var input: String?

    @Option(help: "With --input: playback speed, a factor or max (default max).")
    var speed = ReplaySpeed(factor: nil)

    @Option(help: "Live: stop after this long, e.g. 30s, 5m, 1h (default: until Ctrl-C).", transform: TimeSpan.init(parsing:))
    var duration: TimeSpan?

    @OptionGroup var recordingOptions: EventRecordingOptions

    @OptionGroup var inputOptions: CaptureInputOptions

    func validate() throws {
        try analyzerOptions.checkMode(bands: [band.range], device: deviceOptions.device)
        guard conditionOptions.isGiven else {
            throw ValidationError("give one condition: --above LEVEL, --mask FILE or --over-baseline DB")
        }
    }

    func run() throws {
        let band = self.band.range
        let settings = EventRun.Settings(band: band, condition: try conditionOptions.condition(),
                                         learnSeconds: conditionOptions.learnSeconds(),
                                         overBaselineDB: conditionOptions.overBaseline ?? 0,
                                         holdSeconds: conditionOptions.holdSeconds(),
                                         hysteresisDB: conditionOptions.hysteresis, json: json, jsonOpen: jsonOpen,
                                         recording: recordingOptions.settings, bandPlan: try bandPlanOption.plan())
        if let input {
            try runOnFile(input, settings: settings)
        } else {
            try runLive(settings: settings)
        }
    }

    private func runOnFile(_ path: String, settings: EventRun.Settings) throws {
        let format = try inputOptions.format(of: path)
        let reader = try inputOptions.openReader(path: path, format: format)
        try EventRun.file(reader, speed: speed.factor, settings: settings)
    }

    private func runLive(settings: EventRun.Settings) throws {
        let selection = try analyzerOptions.apply(to: deviceOptions.selection)
        try usage {
            try EventRun.live(selection, detector: detectorOption.chosen(default: .peak), settings: settings,
                              durationSeconds: duration?.seconds) { try band.within($0, option: "--band") }
        }
    }
}
