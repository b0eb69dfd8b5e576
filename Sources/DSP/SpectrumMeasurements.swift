import Foundation
import Signals

/// What a bench analyzer measures on a trace, as pure functions over device
/// bins (dB per bin; NaN = no data, never a peak and no power).
public enum SpectrumMeasurements {
    /// One peak: its bin and level.
    public struct Peak: Sendable, Equatable {
        public var bin: Int
        public var decibels: Float

        public init(bin: Int, decibels: Float) {
            self.bin = bin
            self.decibels = decibels
        }
    }

    /// The peaks of `values`, highest first, at most `count`.
    ///
    /// A peak is a local maximum that rises at least `excursionDB` above the
    /// lowest point between it and the nearest higher value on each side (or
    /// the trace's end where there is none): the bench analyzers' "peak
    /// excursion". On a plateau the leftmost bin stands for it.
    /// O(n log n): nearest higher values by a stack, the lowest point between
    /// by a sparse table of minima.
    public static func peaks(_ values: [Float], excursionDB: Float = 6, count: Int) -> [Peak] {
        let n = values.count
        guard n > 0, count > 0 else { return [] }
        let v = values.map { $0.isNaN ? -Float.infinity : $0 }
        let minima = RangeMinimum(v)
        // nearest index to the left / right holding a strictly higher value
        var leftHigher = [Int](repeating: -1, count: n)
        var rightHigher = [Int](repeating: n, count: n)
        var stack: [Int] = []
        for i in 0..<n {
            while let top = stack.last, v[top] <= v[i] { stack.removeLast() }
            leftHigher[i] = stack.last ?? -1
            stack.append(i)
        }
        stack.removeAll()
        for i in stride(from: n - 1, through: 0, by: -1) {
            while let top = stack.last, v[top] <= v[i] { stack.removeLast() }
            rightHigher[i] = stack.last ?? n
            stack.append(i)
        }
        var found: [Peak] = []
        for i in 0..<n where v[i].isFinite {
            // a local maximum; on a plateau only its first bin
            if i > 0, v[i - 1] >= v[i] { continue }
            var end = i
            while end + 1 < n, v[end + 1] == v[i] { end += 1 }
            if end + 1 < n, v[end + 1] > v[i] { continue }
            let leftLow = minima.minimum(max(0, leftHigher[i]), i)
            let rightLow = minima.minimum(end, min(n - 1, rightHigher[end]))
            if v[i] - leftLow >= excursionDB, v[i] - rightLow >= excursionDB {
                found.append(Peak(bin: i, decibels: values[i]))
            }
        }
        found.sort { $0.decibels != $1.decibels ? $0.decibels > $1.decibels : $0.bin < $1.bin }
        return Array(found.prefix(count))
    }

    /// Occupied bandwidth: the band between the frequencies below which and
    /// above which (100 − `percent`)/2 % of the total power lies, bins taken
    /// as rectangles of their width (power spread evenly over a bin), as
    /// bench analyzers define it.
    /// - Parameters:
    ///   - decibels: power per bin [dB]; NaN bins carry none
    ///   - startHz: lower edge of bin 0; binWidthHz: width of every bin
    /// - Returns: (start, stop) [Hz], nil without power
    public static func occupiedBandwidth(_ decibels: [Float], startHz: Double, binWidthHz: Double,
                                         percent: Double = 99) -> (startHz: Double, stopHz: Double)? {
        let powers = decibels.map { $0.isNaN ? 0 : pow(10, Double($0) / 10) }
        let total = powers.reduce(0, +)
        guard total > 0, total.isFinite, percent > 0, percent < 100 else { return nil }
        let tail = total * (100 - percent) / 200
        func crossing(_ target: Double, fromLow: Bool) -> Double {
            var cumulative = 0.0
            let order = fromLow ? Array(powers.indices) : Array(powers.indices.reversed())
            for k in order where powers[k] > 0 {
                if cumulative + powers[k] >= target {
                    let fraction = (target - cumulative) / powers[k]
                    let lower = startHz + Double(k) * binWidthHz
                    return fromLow ? lower + fraction * binWidthHz : lower + (1 - fraction) * binWidthHz
                }
                cumulative += powers[k]
            }
            return fromLow ? startHz + Double(powers.count) * binWidthHz : startHz
        }
        return (crossing(tail, fromLow: true), crossing(tail, fromLow: false))
    }
}

/// Minimum of any index range in O(1) after an O(n log n) table.
struct RangeMinimum {
    private var levels: [[Float]]

    init(_ values: [Float]) {
        levels = [values]
        var width = 1
        while 2 * width <= values.count {
            let previous = levels[levels.count - 1]
            var next = [Float](repeating: 0, count: values.count - 2 * width + 1)
            for i in next.indices { next[i] = min(previous[i], previous[i + width]) }
            levels.append(next)
            width *= 2
        }
    }

    /// smallest value at indices `low`…`high` (inclusive, low ≤ high)
    func minimum(_ low: Int, _ high: Int) -> Float {
        let length = high - low + 1
        let level = Int.bitWidth - 1 - length.leadingZeroBitCount
        return min(levels[level][low], levels[level][high - (1 << level) + 1])
    }
}

/// Per-bin holds over many sweeps of one geometry, on device bins: the
/// largest, the smallest, or the mean in linear power (NaN bins are skipped;
/// a bin never measured stays NaN).
public struct TraceHold: Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case max, min, avg
    }

    public let kind: Kind
    public private(set) var startHz = 0.0
    public private(set) var binWidthHz = 0.0
    /// sweeps added
    public private(set) var sweeps = 0
    /// sweeps left out because their bins were not the first sweep's
    public private(set) var skipped = 0
    /// dB (max, min) or the sum of linear power (avg)
    private var values: [Double] = []
    private var counts: [Int] = []

    public init(kind: Kind) { self.kind = kind }

    /// Adds one sweep; returns false (and counts it) if its bins differ from the first sweep's.
    @discardableResult
    public mutating func add(startHz: Double, binWidthHz: Double, decibels: [Float]) -> Bool {
        if sweeps == 0 {
            self.startHz = startHz
            self.binWidthHz = binWidthHz
            values = [Double](repeating: kind == .min ? .infinity : (kind == .max ? -.infinity : 0), count: decibels.count)
            counts = [Int](repeating: 0, count: decibels.count)
        } else if startHz != self.startHz || binWidthHz != self.binWidthHz || decibels.count != values.count {
            skipped += 1
            return false
        }
        sweeps += 1
        for (i, value) in decibels.enumerated() where !value.isNaN {
            counts[i] += 1
            switch kind {
            case .max: values[i] = Swift.max(values[i], Double(value))
            case .min: values[i] = Swift.min(values[i], Double(value))
            case .avg: values[i] += pow(10, Double(value) / 10)
            }
        }
        return true
    }

    /// The held trace [dB per bin].
    public var decibels: [Float] {
        values.indices.map { i in
            guard counts[i] > 0 else { return .nan }
            return kind == .avg ? Float(10 * log10(values[i] / Double(counts[i]))) : Float(values[i])
        }
    }

    /// centre of bin `i` [Hz]
    public func binCenterHz(_ i: Int) -> Double { startHz + (Double(i) + 0.5) * binWidthHz }
}

/// The meter's measurements of one interval's mean spectrum inside its band:
/// occupied bandwidth and the highest peaks.
public struct BandMeasurements: Sendable, Equatable {
    /// occupied bandwidth [Hz]: start and stop
    public var occupied: (startHz: Double, stopHz: Double)?
    /// highest first: each a tone's frequency and level as `ToneLevel` reads
    /// it (on an FFT-made spectrum, interpolated between bins and corrected
    /// for the window; else the bin's centre and level) [Hz, dB]
    public var peaks: [(hz: Double, decibels: Float)]

    public static func == (a: BandMeasurements, b: BandMeasurements) -> Bool {
        a.occupied?.startHz == b.occupied?.startHz && a.occupied?.stopHz == b.occupied?.stopHz
            && a.peaks.map(\.hz) == b.peaks.map(\.hz) && a.peaks.map(\.decibels) == b.peaks.map(\.decibels)
    }

    /// Measures the bins of `hold` whose centres lie in `band`.
    /// - Parameters:
    ///   - windowing: the FFT window its sweeps were made with (nil: a device's RBW filter)
    ///   - occupiedPercent: e.g. 99; nil = no OBW
    ///   - peakCount: peaks to report (0 = none)
    public static func measure(_ hold: TraceHold, windowing: FFTWindowing?, band: FrequencyRange,
                               occupiedPercent: Double?, peakCount: Int, excursionDB: Float) -> BandMeasurements {
        measure(SpectrumFrame(startHz: hold.startHz, binWidthHz: hold.binWidthHz, timestamp: 0, powerDB: hold.decibels,
                              windowing: windowing),
                band: band, occupiedPercent: occupiedPercent, peakCount: peakCount, excursionDB: excursionDB)
    }

    /// Measures the bins of `frame` (device bins, dB) whose centres lie in `band`.
    public static func measure(_ frame: SpectrumFrame, band: FrequencyRange, occupiedPercent: Double?, peakCount: Int,
                               excursionDB: Float) -> BandMeasurements {
        let values = frame.powerDB
        let inside = values.indices.filter { (band.lowerHz...band.upperHz).contains(frame.binCenterHz($0)) }
        guard let first = inside.first, let last = inside.last else { return BandMeasurements(occupied: nil, peaks: []) }
        let slice = Array(values[first...last])
        let occupied = occupiedPercent.flatMap {
            SpectrumMeasurements.occupiedBandwidth(slice, startHz: frame.startHz + Double(first) * frame.binWidthHz,
                                                   binWidthHz: frame.binWidthHz, percent: $0)
        }
        // the tone under each peak: on an FFT-made frame its neighbours (even outside the band) place it
        let peaks = SpectrumMeasurements.peaks(slice, excursionDB: excursionDB, count: peakCount).map {
            let tone = ToneLevel.read(bin: first + $0.bin, of: frame)
            return (hz: tone.hz, decibels: tone.decibels)
        }.sorted { $0.decibels > $1.decibels }
        return BandMeasurements(occupied: occupied, peaks: peaks)
    }
}
