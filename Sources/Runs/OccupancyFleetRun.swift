#if SensorLink
import Capture
import DSP
import Foundation
import PostgresStore
import Signals

/// `tscope occupancy --input postgresql://…?sensor=SERIAL` or `?sessions=all`:
/// occupancy per sensor over all its sessions (in time order), then in all
/// the chosen sensors together. Counted inside PostgreSQL where the server can
/// (`PostgresOccupancyStore`: a fixed threshold, channels of each bin or of
/// `--channel-width`, one bin grid per sensor); else — or with
/// `--count-in-process` — every frame is pulled into tscope and counted by
/// `OccupancyCounter`, as for one session, with a one-line note saying why.
/// Both give the same counts.
public enum OccupancyFleetRun {
    /// the output's name for the total over all sensors (a sensor's own name is its serial or device)
    public static let allSensors = "*"

    public static func run(_ location: PostgresLocation, settings: OccupancySettings,
                           emit: (String) -> Void = { Swift.print($0); fflush(nil) }) throws {
        let store = try PostgresOccupancyStore(location: location)
        let sensors = try store.sensors(from: settings.from, to: settings.to)
        let why = inProcessReason(settings, sensors: sensors)
        if let why { printError("note: counting in tscope, every frame read from the store: \(why)") }
        if settings.output == .csv { emit("sensor," + OccupancyLines.csvHeader) }
        var all: [[OccupancyPeriod]] = []
        var unit = PowerUnit.dB
        for sensor in sensors {
            unit = PowerUnit(recordedIn: sensor.gains)
            let periods: [OccupancyPeriod]
            var busyHour: [String] = []
            if why == nil {
                periods = try counted(by: store, sensor, settings: settings)
            } else {
                let reader = try store.reader(for: sensor, from: settings.from, to: settings.to)
                let counter = OccupancyCounter(channels: settings.channels, band: settings.band,
                                               threshold: settings.threshold, intervalSeconds: settings.intervalSeconds)
                var list: [OccupancyPeriod] = []
                var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
                while try reader.next(into: &frame) {
                    if let closed = counter.add(frame) { list.append(closed) }
                }
                if let last = counter.finish() { list.append(last) }
                guard !counter.channels.isEmpty else { throw noChannel(sensor, settings) }
                periods = list
                if settings.busyHour {
                    busyHour = tagged(OccupancyLines.busyHour(OccupancyBusyHour.table(counter.timeOfDay), output: settings.output),
                                      sensor: sensor.name, output: settings.output)
                }
            }
            for period in periods {
                for line in tagged(OccupancyLines.period(period, unit: unit, threshold: settings.threshold,
                                                         output: settings.output), sensor: sensor.name, output: settings.output) {
                    emit(line)
                }
            }
            for line in busyHour { emit(line) }
            let missing = periods.reduce(0) { $0 + $1.channels.reduce(0) { $0 + $1.missing } }
            if missing > 0 {
                printError("note: sensor \(sensor.name): \(missing) channel sample(s) missing (sweeps without data there)")
            }
            all.append(periods)
        }
        // the total keeps the last sensor's unit: a fleet mixing dB and dBm sensors adds unlike levels' counts
        for period in total(all, byInterval: settings.intervalSeconds != nil) {
            for line in tagged(OccupancyLines.period(period, unit: unit, threshold: settings.threshold, output: settings.output),
                               sensor: allSensors, output: settings.output) {
                emit(line)
            }
        }
    }

    /// Why the server cannot count this (nil: it can).
    static func inProcessReason(_ settings: OccupancySettings, sensors: [PostgresSensor]) -> String? {
        if settings.countInProcess { return "--count-in-process" }
        if case .noiseRiding = settings.threshold { return "--threshold auto is counted inside PostgreSQL only as a fixed level" }
        if case .list = settings.channels { return "--channels FILE is not counted inside PostgreSQL" }
        if settings.busyHour { return "--busy-hour is not counted inside PostgreSQL" }
        if let mixed = sensors.first(where: { $0.grids.count > 1 }) {
            return "sensor \(mixed.name) swept \(mixed.grids.count) bin grids; PostgreSQL counts one per sensor"
        }
        return nil
    }

    static func noChannel(_ sensor: PostgresSensor, _ settings: OccupancySettings) -> CommandError {
        CommandError("sensor \(sensor.name): no channel to count: no sweep covered "
            + (settings.band.map { "\($0)" } ?? "any frequency") + (settings.channels == .bins ? "" : " with a whole channel"))
    }

    /// One sensor's periods as the server counts them, its channels made from its first sweep's grid as
    /// `OccupancyCounter` makes them (frames in PostgreSQL carry no noise bandwidth: a bin's own width is used).
    static func counted(by store: PostgresOccupancyStore, _ sensor: PostgresSensor,
                        settings: OccupancySettings) throws -> [OccupancyPeriod] {
        guard case .fixed(let threshold) = settings.threshold, let grid = sensor.grids.first else { return [] }
        let first = SpectrumFrame(startHz: grid.startHz, binWidthHz: grid.binWidthHz, timestamp: 0,
                                  powerDB: [Float](repeating: 0, count: grid.binCount))
        let channels = OccupancyCounter.resolve(settings.channels, band: settings.band, firstSweep: first)
        guard !channels.isEmpty else { throw noChannel(sensor, settings) }
        let mapping: PostgresOccupancyPlan.Channels
        if settings.channels == .bins {
            let bins = channels.map { OccupancyCounter.bin(of: $0, startHz: grid.startHz, binWidthHz: grid.binWidthHz,
                                                           binCount: grid.binCount) }
            // each bin of the band, in order: the server counts bins first ..< first + count
            guard bins.enumerated().allSatisfy({ $0.element == bins[0] + $0.offset }), bins[0] >= 0 else {
                throw CommandError("sensor \(sensor.name): its channels do not map to its bins one to one")
            }
            mapping = .bins(first: bins[0], count: bins.count)
        } else {
            var bins: [Int] = [], owners: [Int] = [], weights: [Double] = []
            for (index, channel) in channels.enumerated() {
                let (firstBin, channelWeights) = OccupancyCounter.binWeights(
                    of: channel, startHz: grid.startHz, binWidthHz: grid.binWidthHz, binCount: grid.binCount,
                    noiseBandwidthHz: grid.binWidthHz)
                for (offset, weight) in channelWeights.enumerated() where weight > 0 {
                    bins.append(firstBin + offset)
                    owners.append(index)
                    weights.append(weight)
                }
            }
            mapping = .integrated(bins: bins, channels: owners, weights: weights)
        }
        let counts = try store.count(sensor, plan: PostgresOccupancyPlan(channels: mapping, thresholdDB: threshold,
                                                                          intervalSeconds: settings.intervalSeconds),
                                     from: settings.from, to: settings.to)
        var cells: [Int64: [Int: PostgresOccupancyCounts.Cell]] = [:]
        for cell in counts.cells { cells[cell.period, default: [:]][cell.channel] = cell }
        return counts.periods.map { row in
            let start = settings.intervalSeconds.map { Double(row.index) * $0 } ?? row.first
            let end = settings.intervalSeconds.map { start + $0 } ?? row.last
            return OccupancyPeriod(start: start, end: end, sweeps: row.sweeps, channels: channels.indices.map { index in
                var count = OccupancyChannelCount(range: channels[index])
                let cell = cells[row.index]?[index]
                count.samples = cell?.samples ?? 0
                count.occupied = cell?.occupied ?? 0
                count.missing = row.sweeps - count.samples
                count.thresholdSum = Double(count.samples) * threshold
                return count
            })
        }
    }

    /// All sensors together: per period (the same clock-aligned period of each sensor; without an
    /// interval, one from the first sweep to the last), each channel's counts summed over the sensors
    /// that have it (channels matched by their frequencies), sweeps summed.
    static func total(_ sensors: [[OccupancyPeriod]], byInterval: Bool) -> [OccupancyPeriod] {
        var byStart: [Double: OccupancyPeriod] = [:]
        for periods in sensors {
            for period in periods {
                // with an interval, periods are keyed by their start; without, there is one per sensor
                let key = byInterval ? period.start : 0
                guard var merged = byStart[key] else {
                    byStart[key] = period
                    continue
                }
                merged.start = min(merged.start, period.start)
                merged.end = max(merged.end, period.end)
                merged.sweeps += period.sweeps
                for channel in period.channels {
                    if let index = merged.channels.firstIndex(where: { $0.range == channel.range }) {
                        merged.channels[index].samples += channel.samples
                        merged.channels[index].occupied += channel.occupied
                        merged.channels[index].missing += channel.missing
                        merged.channels[index].thresholdSum += channel.thresholdSum
                    } else {
                        merged.channels.append(channel)
                    }
                }
                merged.channels.sort { ($0.range.lowerHz, $0.range.upperHz) < ($1.range.lowerHz, $1.range.upperHz) }
                byStart[key] = merged
            }
        }
        return byStart.values.sorted { $0.start < $1.start }
    }

    /// A sensor's name on each line: a `sensor` key first in JSON, a first column in CSV and text.
    static func tagged(_ lines: [String], sensor: String, output: OccupancySettings.Output) -> [String] {
        switch output {
        case .json:
            let escaped = sensor.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return lines.map { "{\"sensor\":\"\(escaped)\"," + $0.dropFirst() }
        case .csv:
            let field = sensor.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                ? "\"" + sensor.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : sensor
            return lines.map { field + "," + $0 }
        case .text:
            let column = sensor == allSensors ? "all sensors" : sensor
            return lines.map { column + "  " + $0 }
        }
    }
}
#endif
