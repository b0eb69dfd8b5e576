import ArgumentParser
import CommandOptions
import Capture
import DSP
import Foundation
import Runs
import ViewModels

/// A recorded capture played in the viewer's three views.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a capture file in the \(AnalyzerMode.titlesInWords) views.",
        discussion: """
            Plays at the recorded speed. Keys: space pause/resume, < > (or , .) halve/double the speed (×0.25…×64), shift+←/→ \
            back/forward 10 s, g then a time (seconds, m:ss or h:mm:ss) and Enter to go there, Home start, End end. The views' \
            keys work as in watch (\(AnalyzerMode.digitKeys), ←/→ pan, +/- zoom: the stored frames are re-decimated, ? all \
            keys), q quit. Formats: \(CaptureFormat.readable).
            """
    )

    @Argument(help: "The capture file.")
    var file: String

    @Option(help: "Playing speed, 0.25 to 64 times the recorded speed.")
    var speed: Double = 1

    @Option(help: "View to start in: \(ViewChoice.listed).")
    var view: ViewChoice = .plot

    @OptionGroup var waterfallRate: WaterfallRateOption

    @Option(help: "Plot trace: live, max (hold), min (hold), avg (16 sweeps) or avg:N; t cycles.")
    var trace: TraceMode = .live

    @OptionGroup var referenceOption: ReferenceOption
    @OptionGroup var bandPlanOptions: BandPlanViewOptions

    @Option(help: "Where to start: seconds from the first frame, m:ss or h:mm:ss.")
    var start: String?

    @Flag(help: ArgumentHelp("Follow a capture still being recorded (.tscope or postgresql://) from its newest "
        + "frame, live; a recorder that stops shows as a stall for as long as it lasts."))
    var follow = false

    @OptionGroup var inputOptions: CaptureInputOptions

    func validate() throws {
        guard Playback.speedRange.contains(speed) else {
            throw ValidationError("--speed \(speed): expected 0.25 to 64")
        }
        _ = try startOffset()
        if follow, speed != 1 || start != nil { throw ValidationError("--follow plays live: no --speed or --start") }
    }

    /// `--start` [s from the first frame]
    func startOffset() throws -> Double {
        guard let start else { return 0 }
        guard let seconds = ReplayState.parseTime(start) else {
            throw ValidationError("--start \(start): expected seconds, m:ss or h:mm:ss, e.g. 90 or 1:30")
        }
        return seconds
    }

    func configure(_ model: AnalyzerModel) throws { try referenceOption.apply(to: model); try bandPlanOptions.apply(to: model) }
    func run() throws {
        if follow {
            var selection = DeviceSelection()
            selection.follow = CaptureFollow(path: file)
            var live = LiveViewerRun(selection: selection, detector: .peak, recordings: .inCurrentDirectory)
            live.mode = view.mode
            live.waterfallRowsPerSecond = waterfallRate.rowsPerSecond
            live.trace = trace
            _ = try live.run(bands: { ($0, nil) }, configure: configure)
            return
        }
        let reader = try CaptureInput.openSeekable(file, format: inputOptions.inputFormat?.format,
                                                   options: inputOptions.readOptions)
        var run = ReplayViewerRun(path: file, reader: reader, speed: speed, startOffset: try startOffset())
        run.mode = view.mode
        run.waterfallRowsPerSecond = waterfallRate.rowsPerSecond
        run.trace = trace
        try run.run(configure: configure)
    }
}
