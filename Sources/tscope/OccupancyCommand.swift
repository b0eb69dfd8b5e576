import ArgumentParser
import CommandOptions
import DSP
import Runs

/// The share of time each channel is busy, as ITU-R SM.1880 / SM.2256 count it.
struct OccupancyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "occupancy",
        abstract: "Count how much of the time each channel is busy (ITU-R SM.1880, Report SM.2256).",
        discussion: """
            Every sweep is one measurement sample per channel. A channel's level is its bin's value, or with --channel-width / \
            --channels the power integrated over its width; the channel is occupied in that sample when the level is at or \
            above --threshold. Its occupancy over an --interval is the share of the interval's samples that were occupied; the \
            band occupancy is the share of all channel samples that were. Sweeps without data in a channel (gaps, nan) are \
            counted as missing, not as samples. Live from any --device and --band until Ctrl-C or --duration, or over a \
            capture (--input, any format tscope reads). A PostgreSQL store's ?sensor=SERIAL or ?sessions=all is counted per \
            sensor, and in all, inside the server. Docs/occupancy.md has the definitions and the noise floor estimate behind \
            --threshold auto.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band, start:stop in MHz (live: required; a file: all of it).",
            transform: Band.init(parsing:))
    var band: Band?

    @OptionGroup(title: "Occupancy") var occupancyOptions: OccupancyOptions

    @Option(help: "Count a capture file instead of a device (any format tscope reads).")
    var input: String?

    @Option(help: "With --input: playback speed, a factor or max (default max).")
    var speed = ReplaySpeed(factor: nil)

    @Option(help: "Live: stop after this long, e.g. 30s, 5m, 1h (default: until Ctrl-C).", transform: TimeSpan.init(parsing:))
    var duration: TimeSpan?

    @OptionGroup var inputOptions: CaptureInputOptions

    func validate() throws {
        guard input != nil || band != nil else { throw ValidationError("live, give the band: -f START:STOP (MHz)") }
        guard input != nil || (occupancyOptions.from == nil && occupancyOptions.to == nil) else {
            throw ValidationError("--from and --to limit a capture's frames: give --input")
        }
        if let band { try analyzerOptions.checkMode(bands: [band.range], device: deviceOptions.device) }
    }

    func run() throws {
        let settings = try occupancyOptions.settings(band: band?.range)
        if let input {
            try OccupancyRun.input(input, speed: speed.factor, settings: settings) {
                try inputOptions.openReader(path: input, format: try inputOptions.format(of: input))
            }
        } else if let band {
            let selection = try analyzerOptions.apply(to: deviceOptions.selection)
            try usage {
                try OccupancyRun.live(selection, detector: detectorOption.chosen(default: .average), settings: settings,
                                      band: band.range, durationSeconds: duration?.seconds) {
                    try band.within($0, option: "--band")
                }
            }
        }
    }
}
