import Foundation
import ArgumentParser
import DSP
import Runs
import Signals

/// What occupancy is counted in and against (`occupancy`, `export --occupancy`): channels and threshold.
public struct OccupancyCountOptions: ParsableArguments {
    public init() {}

    @Option(name: .customLong("channel-width"),
            help: "Channels of this width tiled from the band's start, e.g. 25k or 200k (default: each bin).")
    public var channelWidth: FrequencyArgument?

    @Option(help: "Channels from a CSV: start_hz,stop_hz rows, or centre_hz,width_hz under that header.")
    public var channels: String?

    @Option(parsing: .unconditional,
            help: "Level a channel must reach [dB or dBm, the device's unit], or auto[+MARGIN]: the sweep's noise floor (its quietest 10 % of bins, scaled to the channel's width) plus MARGIN dB (default 10).")
    public var threshold: ThresholdArgument?

    public func validate() throws {
        guard channelWidth == nil || channels == nil else { throw ValidationError("give one of --channel-width and --channels") }
        if let width = channelWidth?.hertz, !(width > 0) {
            throw ValidationError("--channel-width: expected a width above 0 Hz")
        }
    }

    /// the channel rule given (each bin by default)
    public func channelRule() throws -> OccupancyChannels {
        if let channels { return .list(try OccupancyChannelsFile.read(path: channels)) }
        if let width = channelWidth?.hertz { return .width(width) }
        return .bins
    }

    /// the threshold, which `option` needs
    public func requiredThreshold(for option: String) throws -> OccupancyThreshold {
        guard let threshold else { throw ValidationError("\(option) needs --threshold DB or --threshold auto[+MARGIN]") }
        return threshold.threshold
    }
}

/// What `occupancy` counts and prints: the counting options, integration period, output.
public struct OccupancyOptions: ParsableArguments {
    public init() {}

    @OptionGroup public var count: OccupancyCountOptions

    @Option(help: "Integration period: a row per channel per period, e.g. 15m or 1h (default: the whole run).",
            transform: TimeSpan.init(parsing:))
    public var interval: TimeSpan?

    @Flag(help: "JSON Lines: one per channel per period, then the period's band occupancy.")
    public var json = false

    @Flag(help: "CSV for spreadsheets: one row per channel per period.")
    public var csv = false

    @Flag(name: .customLong("busy-hour"), help: "At the end, each channel's busy hour (UTC) and its occupancy then.")
    public var busyHour = false

    @Option(help: "Live: also store every sweep counted in this tscope capture (--input on it gives the same numbers).")
    public var record: String?

    @Option(help: "With --input: count only frames from this time on: 2026-11-01, 2026-11-01T06:00Z (UTC) or Unix seconds.")
    public var from: UTCTimeArgument?

    @Option(help: "With --input: count only frames before this time (as --from).")
    public var to: UTCTimeArgument?

    @Flag(name: .customLong("count-in-process"),
          help: "Over a PostgreSQL store's sensor=/sessions=all: read every frame into tscope and count here, not inside the server.")
    public var countInProcess = false

    public func validate() throws {
        guard !(json && csv) else { throw ValidationError("give one of --json and --csv") }
        if let from, let to, !(from.seconds < to.seconds) { throw ValidationError("--from must be before --to") }
        _ = try count.requiredThreshold(for: "occupancy")
    }

    /// The settings for a run over `band` (nil: all of a file).
    public func settings(band: FrequencyRange?) throws -> OccupancySettings {
        var settings = OccupancySettings(band: band, channels: try count.channelRule(),
                                         threshold: try count.requiredThreshold(for: "occupancy"),
                                         intervalSeconds: interval?.seconds, output: json ? .json : csv ? .csv : .text,
                                         busyHour: busyHour, recordPath: record)
        settings.from = from?.seconds ?? -Double.infinity
        settings.to = to?.seconds ?? Double.infinity
        settings.countInProcess = countInProcess
        return settings
    }
}

/// `--threshold -60`, `auto`, `auto+6`
public struct ThresholdArgument: ExpressibleByArgument, Sendable {
    public var threshold: OccupancyThreshold

    public init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "auto" {
            threshold = .noiseRiding(marginDB: OccupancyThreshold.defaultMarginDB)
        } else if text.hasPrefix("auto+"), let margin = Double(text.dropFirst(5)), margin.isFinite, margin >= 0 {
            threshold = .noiseRiding(marginDB: margin)
        } else if let level = Double(text), level.isFinite {
            threshold = .fixed(decibels: level)
        } else {
            return nil
        }
    }
}

/// A time in UTC: `2026-11-01`, `2026-11-01T06:00Z`, `2026-11-01T06:00:30Z` (the Z optional), or Unix seconds.
public struct UTCTimeArgument: ExpressibleByArgument, Sendable {
    /// [s since the Unix epoch]
    public var seconds: Double

    public init?(argument: String) {
        if let unix = Double(argument), unix.isFinite {
            seconds = unix
            return
        }
        var text = argument.hasSuffix("Z") ? String(argument.dropLast()) : argument
        if !text.contains("T") { text += "T00:00" }
        if text.split(separator: ":").count == 2 { text += ":00" }
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withFullDate, .withFullTime]
        parser.timeZone = TimeZone(identifier: "UTC")
        guard let date = parser.date(from: text + "Z") else { return nil }
        seconds = date.timeIntervalSince1970
    }
}
