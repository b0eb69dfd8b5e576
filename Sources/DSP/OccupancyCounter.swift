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

    public init(start: Double, end: Double, sweeps: Int, channels: [OccupancyChannelCount]) {
        self.start = start
        self.end = end
        self.sweeps = sweeps
        self.channels = channels
    }

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
/// integrated over its width, as `BandPower` integrates it; a single bin's own
/// value) is at or above the threshold; its occupancy over a period is the
/// share of the period's samples that were occupied. Sweeps that did not
/// measure a channel (a gap in a capture, NaN bins) are counted as missing,
/// not as samples.
///
/// Feed sweeps in time order with `add`; it hands back each integration
/// period as the first sweep after it arrives, and `finish` the last one.
/// The counts are flat arrays allocated when the channels are known; what
/// maps a sweep's bins to channels is worked out once per bin grid and
/// reused, so a sweep costs one pass over its bins and one over the channels.
public final class OccupancyCounter {
    public let threshold: OccupancyThreshold
    /// integration period [s]; nil: one period for the whole run
    public let intervalSeconds: Double?
    /// length of a time-of-day slot [s]: a divisor of a day
    public let slotSeconds: Double
    private let band: FrequencyRange?
    private let channelRule: OccupancyChannels
    /// the channels, fixed at the first sweep
    public private(set) var channels: [FrequencyRange] = []
    /// sweeps whose time fell before the current period: counted in it
    public private(set) var lateSweeps = 0

    // the open period
    private var periodOpen = false
    private var currentIndex = 0
    private var periodStart = 0.0
    private var periodEnd = 0.0
    private var periodSweeps = 0
    // the counts: allocated once the channels are known, freed with the counter (raw storage: the
    // per-channel loop then pays no exclusivity or uniqueness check per count)
    private var samples = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var occupied = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var missing = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var thresholdSums = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    // per slot of the day × channel
    private var slotCount = 24
    private var daySamples = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var dayOccupied = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var dayThresholdSums = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)

    // the bin grid the mapping below was made for
    private var grid: (startHz: Double, binWidthHz: Double, bins: Int, noiseBandwidthHz: Double?)?
    /// single-bin channels: the bin of each channel (−1: not in the sweep)
    private var binOfChannel: [Int] = []
    /// wide channels: each channel's bins and the share of each inside it, divided by the noise bandwidth
    private var firstBin: [Int] = []
    private var weights: [[Double]] = []
    /// what a channel's noise holds over one bin's [dB] (`channelNoise`)
    private var noiseOffsetDB: [Double] = []
    /// the band's bins, for the noise floor
    private var bandBins: Range<Int> = 0..<0
    private var noiseScratch: [Float] = []
    private var linear: [Double] = []

    /// - Parameters:
    ///   - band: the part of each sweep counted (nil: all of it); the channel tiling starts at its lower edge
    ///   - intervalSeconds: integration period, aligned to multiples of it since the Unix epoch (UTC)
    ///   - slotSeconds: the time-of-day slots `timeOfDay` counts in (an hour: the busy hour)
    public init(channels: OccupancyChannels, band: FrequencyRange?, threshold: OccupancyThreshold,
                intervalSeconds: Double?, slotSeconds: Double = 3600) {
        self.slotSeconds = slotSeconds > 0 && slotSeconds <= 86_400 ? slotSeconds : 3600
        channelRule = channels
        self.band = band
        self.threshold = threshold
        self.intervalSeconds = intervalSeconds.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    deinit {
        for buffer in [samples, occupied, missing, daySamples, dayOccupied] { buffer.deallocate() }
        thresholdSums.deallocate()
        dayThresholdSums.deallocate()
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
            let count = channels.count
            slotCount = Int((86_400 / slotSeconds).rounded(.up))
            func zeros<T: Numeric>(_ n: Int, _: T.Type) -> UnsafeMutableBufferPointer<T> {
                let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: n)
                buffer.initialize(repeating: 0)
                return buffer
            }
            samples = zeros(count, Int.self)
            occupied = zeros(count, Int.self)
            missing = zeros(count, Int.self)
            thresholdSums = zeros(count, Double.self)
            daySamples = zeros(slotCount * count, Int.self)
            dayOccupied = zeros(slotCount * count, Int.self)
            dayThresholdSums = zeros(slotCount * count, Double.self)
        }
        var closed: OccupancyPeriod?
        let index = periodIndex(frame.timestamp)
        if !periodOpen {
            open(index: index, time: frame.timestamp)
        } else if index > currentIndex {
            closed = period()
            open(index: index, time: frame.timestamp)
        } else if index < currentIndex {
            lateSweeps += 1
        }
        count(frame)
        return closed
    }

    /// The period still open, if any sweep was counted in it.
    public func finish() -> OccupancyPeriod? {
        guard periodOpen else { return nil }
        periodOpen = false
        return period()
    }

    /// sweeps counted in the open period
    public var openSweeps: Int { periodOpen ? periodSweeps : 0 }

    /// Each channel's occupancy so far in the open period (0…1; NaN without
    /// samples), into `fractions` (resized to the channels, storage reused).
    public func openOccupancy(into fractions: inout [Double]) {
        if fractions.count != channels.count { fractions = [Double](repeating: .nan, count: channels.count) }
        for i in 0..<channels.count {
            fractions[i] = periodOpen && samples[i] > 0 ? Double(occupied[i]) / Double(samples[i]) : .nan
        }
    }

    /// every sweep of the run, per time-of-day slot (UTC) and channel: the
    /// busy hour's counts with hour slots, a heat map's with shorter ones
    public var timeOfDay: [[OccupancyChannelCount]] {
        guard !channels.isEmpty else { return [] }
        return (0..<slotCount).map { slot in
            channels.indices.map { i in
                var count = OccupancyChannelCount(range: channels[i])
                count.samples = daySamples[slot * channels.count + i]
                count.occupied = dayOccupied[slot * channels.count + i]
                count.thresholdSum = dayThresholdSums[slot * channels.count + i]
                return count
            }
        }
    }

    private func periodIndex(_ time: Double) -> Int {
        guard let interval = intervalSeconds else { return 0 }
        return Int((time / interval).rounded(.down))
    }

    private func open(index: Int, time: Double) {
        periodOpen = true
        currentIndex = index
        periodStart = intervalSeconds.map { Double(index) * $0 } ?? time
        periodEnd = intervalSeconds.map { periodStart + $0 } ?? time
        periodSweeps = 0
        for i in samples.indices {
            samples[i] = 0
            occupied[i] = 0
            missing[i] = 0
            thresholdSums[i] = 0
        }
    }

    private func period() -> OccupancyPeriod {
        OccupancyPeriod(start: periodStart, end: periodEnd, sweeps: periodSweeps, channels: channels.indices.map { i in
            var count = OccupancyChannelCount(range: channels[i])
            count.samples = samples[i]
            count.occupied = occupied[i]
            count.missing = missing[i]
            count.thresholdSum = thresholdSums[i]
            return count
        })
    }

    /// Works out which bins make each channel, for a sweep on a new grid.
    private func map(to frame: SpectrumFrame) {
        grid = (frame.startHz, frame.binWidthHz, frame.powerDB.count, frame.noiseBandwidthHz)
        let count = frame.powerDB.count
        let singleBins = channelRule == .bins
        let noiseBandwidth = frame.noiseBandwidthHz ?? frame.binWidthHz
        binOfChannel = channels.map {
            Self.bin(of: $0, startHz: frame.startHz, binWidthHz: frame.binWidthHz, binCount: count)
        }
        firstBin = []
        weights = []
        noiseOffsetDB = channels.map { singleBins ? 0 : Units.decibels(power: $0.spanHz / noiseBandwidth) }
        if !singleBins {
            for range in channels {
                let (first, channelWeights) = Self.binWeights(of: range, startHz: frame.startHz, binWidthHz: frame.binWidthHz,
                                                              binCount: count, noiseBandwidthHz: noiseBandwidth)
                firstBin.append(first)
                weights.append(channelWeights)
            }
        }
        let lower = band?.lowerHz ?? -Double.infinity, upper = band?.upperHz ?? Double.infinity
        let firstInBand = (0..<count).first { frame.startHz + (Double($0) + 0.5) * frame.binWidthHz >= lower } ?? count
        let endInBand = (0..<count).last { frame.startHz + (Double($0) + 0.5) * frame.binWidthHz < upper }.map { $0 + 1 } ?? 0
        bandBins = firstInBand..<max(firstInBand, endInBand)
    }

    /// The bin (0-based) whose span holds a single-bin channel's centre on a grid; -1 outside it.
    /// (The in-process count and the one inside PostgreSQL both map channels with this.)
    public static func bin(of channel: FrequencyRange, startHz: Double, binWidthHz: Double, binCount: Int) -> Int {
        let index = Int(((channel.centerHz - startHz) / binWidthHz).rounded(.down))
        return index >= 0 && index < binCount ? index : -1
    }

    /// The bins a wide channel integrates on a grid: the first bin (0-based) and, from it on, each bin's
    /// weight — the part of the bin inside the channel [Hz] over the noise bandwidth [Hz] (0 for none).
    public static func binWeights(of channel: FrequencyRange, startHz: Double, binWidthHz: Double, binCount: Int,
                                  noiseBandwidthHz: Double) -> (first: Int, weights: [Double]) {
        let first = max(0, Int(((channel.lowerHz - startHz) / binWidthHz).rounded(.down)))
        let last = min(binCount - 1, Int(((channel.upperHz - startHz) / binWidthHz).rounded(.down)))
        var weights: [Double] = []
        if first <= last {
            for bin in first...last {
                let binLower = startHz + Double(bin) * binWidthHz
                let overlap = min(binLower + binWidthHz, channel.upperHz) - max(binLower, channel.lowerHz)
                weights.append(max(0, overlap) / noiseBandwidthHz)
            }
        }
        return (first, weights)
    }

    private func count(_ frame: SpectrumFrame) {
        if grid == nil || grid! != (frame.startHz, frame.binWidthHz, frame.powerDB.count, frame.noiseBandwidthHz) {
            map(to: frame)
        }
        periodSweeps += 1
        if intervalSeconds == nil { periodEnd = max(periodEnd, frame.timestamp) }
        var noise: Double?
        var fixedLimit = 0.0
        switch threshold {
        case .fixed(let value): fixedLimit = value
        case .noiseRiding(let margin):
            guard let floor = noiseFloor(frame) else {
                // nothing measured in the band: every channel lacks this sample
                for i in missing.indices { missing[i] += 1 }
                return
            }
            noise = floor + margin
        }
        let singleBins = channelRule == .bins
        let slotBase = Self.slotOfDay(frame.timestamp, slotSeconds: slotSeconds) * channels.count
        let samples = self.samples, occupied = self.occupied, missing = self.missing
        let thresholdSums = self.thresholdSums, daySamples = self.daySamples, dayOccupied = self.dayOccupied
        let dayThresholdSums = self.dayThresholdSums
        let binOfChannel = self.binOfChannel, firstBin = self.firstBin, noiseOffsetDB = self.noiseOffsetDB
        let weights = self.weights
        frame.powerDB.withUnsafeBufferPointer { bins in
            if !singleBins {
                // each bin's linear power once per sweep; NaN stays NaN
                linear.removeAll(keepingCapacity: true)
                for value in bins { linear.append(value.isNaN ? .nan : Units.power(decibels: Double(value))) }
            }
            let linear = self.linear
            for i in 0..<binOfChannel.count {
                var level = Double.nan
                if singleBins {
                    let bin = binOfChannel[i]
                    if bin >= 0 { level = Double(bins[bin]) }
                } else if !weights[i].isEmpty {
                    var power = 0.0
                    var counted = false
                    let first = firstBin[i]
                    for (k, weight) in weights[i].enumerated() where weight > 0 {
                        let value = linear[first + k]
                        if value.isNaN { continue }
                        power += weight * value
                        counted = true
                    }
                    if counted { level = Units.decibels(power: power) }
                }
                if level.isNaN {
                    missing[i] += 1
                    continue
                }
                let limit = noise.map { $0 + noiseOffsetDB[i] } ?? fixedLimit
                samples[i] += 1
                thresholdSums[i] += limit
                daySamples[slotBase + i] += 1
                dayThresholdSums[slotBase + i] += limit
                if level >= limit {
                    occupied[i] += 1
                    dayOccupied[slotBase + i] += 1
                }
            }
        }
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
        frame.powerDB.withUnsafeBufferPointer { bins in
            for index in bandBins where !bins[index].isNaN { noiseScratch.append(bins[index]) }
        }
        guard !noiseScratch.isEmpty else { return nil }
        let rank = Self.percentileRank(count: noiseScratch.count)
        return Double(OrderStatistic.select(&noiseScratch, rank: rank))
    }

    /// The 0-based rank of the `noisePercentile` among `count` sorted values
    /// (the nearest-rank method: ⌈p·n⌉-th smallest).
    public static func percentileRank(count: Int) -> Int {
        max(0, Int((OccupancyThreshold.noisePercentile * Double(count)).rounded(.up)) - 1)
    }

    /// the time-of-day slot (UTC, from 0 at midnight) of a Unix time
    static func slotOfDay(_ time: Double, slotSeconds: Double) -> Int {
        var secondOfDay = time.truncatingRemainder(dividingBy: 86_400)
        if secondOfDay < 0 { secondOfDay += 86_400 }
        return min(Int((86_400 / slotSeconds).rounded(.up)) - 1, Int((secondOfDay / slotSeconds).rounded(.down)))
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

    /// The busy hour of each channel in `hourly` (as `OccupancyCounter.timeOfDay`
    /// holds it with hour slots); channels never measured are left out. Ties go to the earlier hour.
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
