import ArgumentParser
import CommandOptions
import DSP
import Foundation
import Runs

/// Headless power meter: one reading of the power in a band per interval.
struct MeterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meter",
        abstract: "Print the power in a band, one reading per interval.",
        discussion: """
            Each reading is the mean linear power of every sweep in the interval, integrated over the band as a channel-power \
            measurement: Σ bin power × bin width / the noise bandwidth of one bin (a swept analyzer's RBW filter, an FFT \
            window's; Docs/measurements-and-events.md "Channel power"), each bin weighted by the part of it inside the band, \
            in dB. With --json: JSON Lines with the UTC time, the band edges in Hz and the power in dB, and for the HackRF how \
            long each frequency is watched per sweep and how often (dwell_s, revisit_s, duty). --detector average (the \
            default) takes every sample of each dwell; peak keeps each bin's largest segment; sample is hackrf_sweep's last N.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup(title: "Analyzer settings") var analyzerOptions: AnalyzerSettingsOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], parsing: .singleValue,
            help: "Band to measure, start:stop in MHz; repeat for several (each its own reading).",
            transform: Band.init(parsing:))
    var band: [Band] = []

    @Option(name: .long, help: "Seconds between readings.")
    var interval: Double = 1

    @Option(name: [.customShort("n"), .long], help: "Stop after this many readings (default: run until interrupted).")
    var count: Int?

    @Flag(name: .long, help: "JSON Lines: {\"time\", \"start_hz\", \"stop_hz\", \"power_db\", \"unit\", \"sweeps\", \"band\" (--band-plan), \"dwell_s\", \"revisit_s\", \"duty\"}.")
    var json = false

    @OptionGroup var measurementOptions: MeterMeasurementOptions
    @OptionGroup var bandPlanOption: BandPlanOption

    @Option(name: .long, help: "Meter a capture file instead of a device (any format tscope reads).")
    var input: String?

    @Option(name: .long, help: "With --input: playback speed, a factor or max (default 1, real time).")
    var speed = ReplaySpeed(factor: 1)

    @Option(help: "Serve the readings for Prometheus at http://HOST:PORT/metrics (e.g. 127.0.0.1:9100).")
    var prometheus: String?

    @OptionGroup var inputOptions: CaptureInputOptions

    func validate() throws {
        try analyzerOptions.checkMode(bands: band.map(\.range), device: deviceOptions.device)
        guard !band.isEmpty else { throw ValidationError("Missing expected argument '--band <band>'") }
        guard interval.isFinite, interval >= 0.05, interval <= 86_400 else {
            throw ValidationError("--interval \(interval): expected seconds between 0.05 and 86400")
        }
        if let count, count < 1 { throw ValidationError("--count \(count): expected at least 1") }
    }

    func run() throws {
        var settings = MeterSettings(bands: band.map(\.range), interval: interval, count: count, json: json,
                                     trace: measurementOptions.trace, measurements: measurementOptions.request, prometheus: prometheus,
                                     bandPlan: try bandPlanOption.plan())
        settings.watts = analyzerOptions.unit == .W
        if let input {
            let format = try inputOptions.format(of: input)
            let reader = try inputOptions.openReader(path: input, format: format)
            try MeterRun.file(reader, speed: speed.factor, settings: settings)
            return
        }
        // channel power is a mean: the average detector by default
        let selection = try analyzerOptions.apply(to: deviceOptions.selection)
        try usage {
            try MeterRun.live(selection, detector: detectorOption.chosen(default: .average),
                              settings: settings) { range, limits in
                try (band.first { $0.range == range } ?? band[0]).within(limits, option: "--band")
            }
        }
    }
}
