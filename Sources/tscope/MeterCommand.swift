import ArgumentParser
import DSP
import Devices
import Foundation
import Signals

/// Headless power meter: one reading of the power in a band per interval.
struct MeterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meter",
        abstract: "Print the power in a band, one reading per interval.",
        discussion: """
            Each reading is the mean linear power of every sweep in the interval, integrated over the band as a \
            channel-power measurement: Σ bin power × bin width / the noise bandwidth of one bin (a swept \
            analyzer's RBW filter, an FFT window's; README "Channel power"), each bin weighted by the part of it \
            inside the band, in dB. With --json: JSON Lines with the UTC \
            time, the band edges in Hz and the power in dB, and for the HackRF how long each frequency is \
            watched per sweep and how often (dwell_s, revisit_s, duty). --detector average (the default) takes \
            every sample of each dwell; peak keeps each bin's largest segment; sample is hackrf_sweep's last N.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band to measure, start:stop in MHz.")
    var band: String

    @Option(name: .long, help: "Seconds between readings.")
    var interval: Double = 1

    @Option(name: [.customShort("n"), .long], help: "Stop after this many readings (default: run until interrupted).")
    var count: Int?

    @Flag(name: .long, help: "JSON Lines: {\"time\", \"start_hz\", \"stop_hz\", \"power_db\", \"unit\", \"sweeps\", \"dwell_s\", \"revisit_s\", \"duty\"}.")
    var json = false

    /// bins asked for across the band: fine enough that the band edges cut
    /// few bins, coarse enough to sweep quickly (the plan clamps to what the
    /// device can do)
    static let binsAcrossBand = 1000.0

    func validate() throws {
        _ = try parsedBand()
        guard interval.isFinite, interval >= 0.05, interval <= 86_400 else {
            throw ValidationError("--interval \(interval): expected seconds between 0.05 and 86400")
        }
        if let count, count < 1 { throw ValidationError("--count \(count): expected at least 1") }
    }

    func parsedBand() throws -> FrequencyRange {
        try BandOption.parse(band, option: "--band", limits: WatchCommand.deviceLimits)
    }

    func run() throws {
        _ = try parsedBand()
        let accumulator = BandPowerAccumulator()
        let failure = DeviceFailure()
        // a lost analyzer is retried for --reconnect-timeout, then the run ends with its reason
        let source: ReconnectingSpectrumSource
        let measured: FrequencyRange
        let analyzer: SelectedAnalyzer
        do {
            // channel power is a mean: the average detector by default
            (source, analyzer) = try deviceOptions.spectrumSource(
                headless: true, hackRF: .init(detector: detectorOption.chosen(default: .average)),
                onFrame: { accumulator.add($0) }, onGiveUp: { failure.record($0) })
            measured = try BandOption.parse(band, option: "--band", limits: analyzer.kind.tunableRange)
            accumulator.band = measured
            try source.start(band: measured, binWidthHz: measured.spanHz / Self.binsAcrossBand)
        } catch {
            throw CommandError("\(error)")
        }
        defer { source.stop() }

        var printed = 0
        var deadline = monotonicSeconds() + interval
        while count.map({ printed < $0 }) ?? true {
            // sleep in short steps so a device failure ends the run promptly
            while monotonicSeconds() < deadline {
                if let message = failure.message { throw CommandError(message) }
                usleep(UInt32(min(50_000, max(1_000, (deadline - monotonicSeconds()) * 1e6))))
            }
            deadline += interval
            guard let reading = accumulator.take() else { continue }
            print(MeterLine.format(time: unixTimeNow(), band: measured, decibels: reading.decibels,
                                   unit: analyzer.kind.powerUnit, sweeps: reading.sweeps, json: json,
                                   dwell: source.dwellTiming))
            fflush(stdout)
            printed += 1
        }
    }
}

/// The mean band power of one interval's frames: fed on the DSP thread,
/// taken on the main thread.
final class BandPowerAccumulator: @unchecked Sendable {
    private let lock = NSLock()
    private var average = BandPowerAverage()

    /// the band measured; frames before it is set are ignored
    var band: FrequencyRange? {
        get { lock.withLock { average.band } }
        set { lock.withLock { average.band = newValue } }
    }

    func add(_ frame: SpectrumFrame) { lock.withLock { average.add(frame) } }

    /// The mean power of the sweeps since the last take [dB] and how many
    /// there were; nil when none arrived.
    func take() -> (decibels: Double, sweeps: Int)? {
        lock.withLock { average.take().map { ($0.decibels, $0.frames) } }
    }
}

/// One line of `tscope meter` output.
enum MeterLine {
    /// - Parameter unit: "dB" (relative) or "dBm" (a calibrated analyzer); JSON
    ///   gives it as "unit" beside "power_db"
    /// - Parameter dwell: where the source computes spectra from samples, how long each frequency
    ///   was watched per sweep and how often (JSON "dwell_s", "revisit_s", "duty")
    static func format(time: Double, band: FrequencyRange, decibels: Double, unit: String = "dB", sweeps: Int,
                       json: Bool, dwell: DwellTiming? = nil) -> String {
        let stamp = utcISO8601(time)
        let power = String(format: "%.2f", decibels)
        if json {
            var line = "{\"time\":\"\(stamp)\",\"start_hz\":\(Int64(band.lowerHz.rounded())),"
                + "\"stop_hz\":\(Int64(band.upperHz.rounded())),\"power_db\":\(power),\"unit\":\"\(unit)\","
                + "\"sweeps\":\(sweeps)"
            if let dwell {
                line += ",\"dwell_s\":\(String(format: "%.9g", dwell.dwellSeconds)),"
                    + "\"revisit_s\":\(String(format: "%.9g", dwell.revisitSeconds)),"
                    + "\"duty\":\(String(format: "%.6g", dwell.duty))"
            }
            return line + "}"
        }
        return "\(stamp)  \(band)  \(power) \(unit)"
    }

    /// "2025-01-02T03:04:05.678Z"
    static func utcISO8601(_ time: Double) -> String {
        var seconds = time_t(time.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let millis = min(999, Int((time - Double(seconds)) * 1000))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis)
    }
}
