import Foundation
import Signals

/// How a channel is judged occupied in one measurement sample (one sweep).
public enum OccupancyThreshold: Sendable, Equatable, CustomStringConvertible {
    /// a pre-set level [dB or dBm, the frames' unit] (Report ITU-R SM.2256 §3.4.1)
    case fixed(decibels: Double)
    /// a dynamic threshold that rides the noise (SM.2256 §3.4.2): the noise
    /// floor of each sweep plus `marginDB`. The floor is estimated from the
    /// quietest part of the band: the `noisePercentile` of its bin levels,
    /// scaled to a channel's width (`OccupancyCounter.channelNoise`).
    case noiseRiding(marginDB: Double)

    /// the share of a sweep's bins at or below its noise floor estimate:
    /// the quietest tenth of the band
    public static let noisePercentile = 0.10
    /// `auto` without a margin [dB]
    public static let defaultMarginDB = 10.0

    public var description: String {
        switch self {
        case .fixed(let level): return FrequencyFormat.trimmed(level, maxFractionDigits: 2)
        case .noiseRiding(let margin): return "auto+" + FrequencyFormat.trimmed(margin, maxFractionDigits: 2)
        }
    }
}

/// Which channels occupancy is counted in.
public enum OccupancyChannels: Sendable, Equatable {
    /// every bin of the first sweep inside the band (a bin's level is its value)
    case bins
    /// the band tiled from its lower edge in channels of this width [Hz]
    /// (a last part narrower than the width is left out)
    case width(Double)
    /// these channels, as given
    case list([FrequencyRange])
}

/// One channel's counts over one integration period.
public struct OccupancyChannelCount: Sendable, Equatable {
    public var range: FrequencyRange
    /// sweeps that measured the channel
    public var samples = 0
    /// of those, sweeps whose channel level was at or above the threshold
    public var occupied = 0
    /// sweeps of the period that did not measure it (no bin there, or NaN)
    public var missing = 0
    /// the sum of the thresholds the samples were compared with [dB], for their mean
    public var thresholdSum = 0.0

    public init(range: FrequencyRange) { self.range = range }

    /// frequency channel occupancy (SM.2256 §2.16): occupied ÷ samples, 0…1; nil without samples
    public var occupancy: Double? { samples > 0 ? Double(occupied) / Double(samples) : nil }
    /// the mean threshold the samples were compared with [dB]
    public var meanThresholdDB: Double? { samples > 0 ? thresholdSum / Double(samples) : nil }
}

/// The counts of one integration period (or of the whole run without one).
public struct OccupancyPeriod: Sendable, Equatable {
    /// [s since the Unix epoch]: the period's bounds, or the first and last
    /// sweep's times when the run has no integration period
    public var start: Double
    public var end: Double
    /// sweeps counted in the period
    public var sweeps = 0
    public var channels: [OccupancyChannelCount]

    /// frequency band occupancy (SM.2256 §2.17) over the period: the share of
    /// channel samples that were occupied, i.e. the mean share of the band's
    /// channels occupied per sweep; nil without samples
    public var bandOccupancy: Double? {
        let samples = channels.reduce(0) { $0 + $1.samples }
        return samples > 0 ? Double(channels.reduce(0) { $0 + $1.occupied }) / Double(samples) : nil
    }
}

/// Counts frequency channel occupancy as Recommendation ITU-R SM.1880 and
/// Report ITU-R SM.2256 define it: each sweep is one measurement sample per
/// channel; a channel is occupied in a sample when its level (the power
/// integrated over its width, `BandPower`; a single bin's own value) is at or
/// above the threshold; its occupancy over a period is the share of the
/// period's samples that were occupied. Sweeps that did not measure a channel
/// (a gap in a capture, NaN bins) are counted as missing, not as samples.
///
/// Feed sweeps in time order with `add`; it hands back each integration
/// period as the first sweep after it arrives, and `finish` the last one.
/// Storage is allocated when the channels are known and reused per sweep.
public final class OccupancyCounter {
    public let threshold: OccupancyThreshold
    /// integration period [s]; nil: one period for the whole run
    public let intervalSeconds: Double?
    private let band: FrequencyRange?
    private let channelRule: OccupancyChannels
    /// the channels, fixed at the first sweep
    public private(set) var channels: [FrequencyRange] = []
    private var current: OccupancyPeriod?
    private var currentIndex = 0
    /// sweeps whose time fell before the current period: counted in it
    public private(set) var lateSweeps = 0
    /// every sweep of the run, per channel and hour of the day (UTC), for the busy hour
    public private(set) var hourly: [[OccupancyChannelCount]] = []
    private var noiseScratch: [Float] = []
    private var levels: [Double] = []

    /// - Parameters:
    ///   - band: the part of each sweep counted (nil: all of it); the channel tiling starts at its lower edge
    ///   - intervalSeconds: integration period, aligned to multiples of it since the Unix epoch (UTC)
    public init(channels: OccupancyChannels, band: FrequencyRange?, threshold: OccupancyThreshold,
                intervalSeconds: Double?) {
        channelRule = channels
        self.band = band
        self.threshold = threshold
        self.intervalSeconds = intervalSeconds.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// The channels a rule gives over a first sweep; empty if none fits.
    public static func resolve(_ rule: OccupancyChannels, band: FrequencyRange?,
                               firstSweep frame: SpectrumFrame) -> [FrequencyRange] {
        guard let covered = frame.range else { return [] }
        let lower = max(band?.lowerHz ?? covered.lowerHz, covered.lowerHz)
        let upper = min(band?.upperHz ?? covered.upperHz, covered.upperHz)
        switch rule {
        case .list(let given):
            return given
        case .width(let width):
            guard width > 0, width.isFinite else { return [] }
            let start = band?.lowerHz ?? covered.lowerHz
            let stop = band?.upperHz ?? covered.upperHz
            let count = Int(((stop - start) / width + 1e-9).rounded(.down))
            return (0..<max(0, count)).compactMap { FrequencyRange(lowerHz: start + Double($0) * width,
                                                                   upperHz: start + Double($0 + 1) * width) }
        case .bins:
            return (0..<frame.powerDB.count).compactMap { index in
                let low = frame.startHz + Double(index) * frame.binWidthHz
                let centre = low + frame.binWidthHz / 2
                guard centre >= lower, centre < upper else { return nil }
                return FrequencyRange(lowerHz: low, upperHz: low + frame.binWidthHz)
            }
        }
    }

    /// Counts one sweep; returns the period it closed, if its time starts a new one.
    public func add(_ frame: SpectrumFrame) -> OccupancyPeriod? {
        if channels.isEmpty {
            channels = Self.resolve(channelRule, band: band, firstSweep: frame)
            guard !channels.isEmpty else { return nil }
            levels = [Double](repeating: 0, count: channels.count)
            hourly = (0..<24).map { _ in channels.map { OccupancyChannelCount(range: $0) } }
        }
        var closed: OccupancyPeriod?
        let index = periodIndex(frame.timestamp)
        if current == nil {
            current = newPeriod(index: index, time: frame.timestamp)
        } else if index > currentIndex {
            closed = current
            current = newPeriod(index: index, time: frame.timestamp)
        } else if index < currentIndex {
            lateSweeps += 1
        }
        count(frame)
        return closed
    }

    /// The period still open, if any sweep was counted in it.
    public func finish() -> OccupancyPeriod? {
        defer { current = nil }
        return current
    }

    private func periodIndex(_ time: Double) -> Int {
        guard let interval = intervalSeconds else { return 0 }
        return Int((time / interval).rounded(.down))
    }

    private func newPeriod(index: Int, time: Double) -> OccupancyPeriod {
        currentIndex = index
        let start = intervalSeconds.map { Double(index) * $0 } ?? time
        return OccupancyPeriod(start: start, end: intervalSeconds.map { start + $0 } ?? time,
                               channels: channels.map { OccupancyChannelCount(range: $0) })
    }

    private func count(_ frame: SpectrumFrame) {
        guard var period = current else { return }
        current = nil  // the period's storage is uniquely referenced while it is changed
        period.sweeps += 1
        if intervalSeconds == nil { period.end = max(period.end, frame.timestamp) }
        let noise: Double? = {
            guard case .noiseRiding = threshold else { return nil }
            return noiseFloor(frame)
        }()
        let hour = Self.hourOfDay(frame.timestamp)
        let singleBins = channelRule == .bins
        frame.powerDB.withUnsafeBufferPointer { bins in
            for (i, range) in channels.enumerated() {
                let level: Double?
                if singleBins {
                    let index = Int(((range.centerHz - frame.startHz) / frame.binWidthHz).rounded(.down))
                    level = index >= 0 && index < bins.count && !bins[index].isNaN ? Double(bins[index]) : nil
                } else {
                    level = BandPower.decibels(in: range, startHz: frame.startHz, binWidthHz: frame.binWidthHz,
                                               bins: bins, noiseBandwidthHz: frame.noiseBandwidthHz)
                }
                let limit: Double?
                switch threshold {
                case .fixed(let value): limit = value
                case .noiseRiding(let margin):
                    limit = noise.map { Self.channelNoise(binNoiseDB: $0, channel: range, frame: frame,
                                                          singleBin: singleBins) + margin }
                }
                guard let level, let limit else {
                    period.channels[i].missing += 1
                    continue
                }
                let occupied = level >= limit
                period.channels[i].samples += 1
                period.channels[i].thresholdSum += limit
                hourly[hour][i].samples += 1
                hourly[hour][i].thresholdSum += limit
                if occupied {
                    period.channels[i].occupied += 1
                    hourly[hour][i].occupied += 1
                }
            }
        }
        current = period
    }

    /// The noise a channel's level holds when its bins are all at the
    /// floor: the bin floor (one bin's level) times the number of noise
    /// bandwidths the channel spans [dB]; a single-bin channel's own level.
    public static func channelNoise(binNoiseDB: Double, channel: FrequencyRange, frame: SpectrumFrame,
                                    singleBin: Bool) -> Double {
        guard !singleBin else { return binNoiseDB }
        let noiseBandwidth = frame.noiseBandwidthHz ?? frame.binWidthHz
        return binNoiseDB + Units.decibels(power: channel.spanHz / noiseBandwidth)
    }

    /// The sweep's noise floor: the `noisePercentile` of its bin levels in
    /// the band (NaN left out) [dB]; nil without any.
    private func noiseFloor(_ frame: SpectrumFrame) -> Double? {
        noiseScratch.removeAll(keepingCapacity: true)
        let lower = band?.lowerHz ?? -Double.infinity
        let upper = band?.upperHz ?? Double.infinity
        for (index, value) in frame.powerDB.enumerated() where !value.isNaN {
            let centre = frame.startHz + (Double(index) + 0.5) * frame.binWidthHz
            if centre >= lower && centre < upper { noiseScratch.append(value) }
        }
        guard !noiseScratch.isEmpty else { return nil }
        let rank = Self.percentileRank(count: noiseScratch.count)
        return Double(Self.select(rank, in: &noiseScratch))
    }

    /// The 0-based rank of the `noisePercentile` among `count` sorted values
    /// (the nearest-rank method: ⌈p·n⌉-th smallest).
    public static func percentileRank(count: Int) -> Int {
        max(0, Int((OccupancyThreshold.noisePercentile * Double(count)).rounded(.up)) - 1)
    }

    /// The `rank`-th smallest of `values` (Hoare's quickselect, expected
    /// linear time; reorders `values`).
    static func select(_ rank: Int, in values: inout [Float]) -> Float {
        var low = 0
        var high = values.count - 1
        while low < high {
            let pivot = values[(low + high) / 2]
            var i = low
            var j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if rank <= j { high = j } else if rank >= i { low = i } else { return values[rank] }
        }
        return values[rank]
    }

    /// hour of the day (UTC, 0…23) of a Unix time
    static func hourOfDay(_ time: Double) -> Int {
        let hour = Int((time / 3600).rounded(.down)) % 24
        return hour < 0 ? hour + 24 : hour
    }
}

/// The busy hour (SM.2256 §2.14) of each channel over a run: the hour of the
/// day (UTC) in which it was occupied the most.
public struct OccupancyBusyHour: Sendable, Equatable {
    public var range: FrequencyRange
    /// 0…23 [UTC]
    public var hour: Int
    public var occupancy: Double
    public var samples: Int

    /// The busy hour of each channel in `hourly` (as `OccupancyCounter.hourly`
    /// holds it); channels never measured are left out. Ties go to the earlier hour.
    public static func table(_ hourly: [[OccupancyChannelCount]]) -> [OccupancyBusyHour] {
        guard let first = hourly.first else { return [] }
        return first.indices.compactMap { channel in
            var best: OccupancyBusyHour?
            for hour in hourly.indices {
                let count = hourly[hour][channel]
                guard let occupancy = count.occupancy else { continue }
                if best == nil || occupancy > best!.occupancy {
                    best = OccupancyBusyHour(range: count.range, hour: hour, occupancy: occupancy, samples: count.samples)
                }
            }
            return best
        }
    }
}
