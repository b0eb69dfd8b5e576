import Signals

/// Where and when one waterfall row was measured.
public struct WaterfallRowInfo: Sendable, Equatable {
    /// start of the row's time slot (a half second at the default rate) [s since the Unix epoch, UTC, or a
    /// replay's timeline]
    public var timestamp: Double
    /// lower edge of bin 0 [Hz]
    public var startHz: Double
    /// width of one stored bin [Hz]
    public var binWidthHz: Double
    /// bins stored for this row (≤ `maxBinsPerRow`)
    public var binCount: Int
    /// bumped on every write to the row, so a cache of derived columns knows when to refresh
    public var version: Int
}

/// The waterfall's memory: a preallocated ring of timestamped rows of power
/// per device bin [dB] (not pixels), so zoom, pan, resize and period changes
/// redraw from data.
///
/// Rows are addressed by a sequence number that only grows: sequence `s` lives
/// in slot `s % capacity`; the oldest kept row is `endSequence - count`. A row
/// collects every frame that arrives in its time slot (1 / `rowsPerSecond`)
/// with a per-bin max, so a burst seen in one frame is never lost. Frames with
/// more bins than a row holds are reduced by an integer factor with max.
///
/// The row rate is set at creation: 2 rows/s by default (DESIGN: the
/// waterfall asks for no more), up to 30 so a real-time source delivering
/// about 30 frames/s gets one row per frame.
public final class WaterfallHistory {
    /// rows per second by default (the time resolution)
    public static let defaultRowsPerSecond = 2.0
    /// row rates accepted [rows/s]: a row at most every 2 s, at most one per drawn frame (30/s)
    public static let rowsPerSecondLimits = 0.5...30.0
    /// default capacity: 12.8 minutes at 2 rows/s
    public static let defaultCapacity = 1536
    /// seconds of history a default capacity holds at any row rate, memory allowing (12.8 min)
    public static let historySeconds = Double(defaultCapacity) / defaultRowsPerSecond
    /// most values the ring may hold (rows × bins): 4 × the default ring's 1536 × 2048, i.e. 48 MiB
    /// of Float, so a fast row rate keeps a few minutes (30 rows/s: 6144 rows, 3.4 min) and memory
    /// stays bounded whatever the rate
    public static let maxStoredValues = 4 * defaultCapacity * 2048
    /// default bins kept per row: more than any terminal has pixel columns
    public static let defaultMaxBinsPerRow = 2048

    /// The capacity a history at `rowsPerSecond` gets by default: `historySeconds` of rows (never
    /// fewer than `defaultCapacity`), within `maxStoredValues` at `maxBinsPerRow` bins a row.
    public static func capacity(rowsPerSecond: Double, maxBinsPerRow: Int = defaultMaxBinsPerRow) -> Int {
        let rate = clampedRate(rowsPerSecond)
        let wanted = max(defaultCapacity, Int((rate * historySeconds).rounded(.up)))
        return max(1, min(wanted, maxStoredValues / max(1, maxBinsPerRow)))
    }

    /// `rowsPerSecond` within `rowsPerSecondLimits` (NaN: the default).
    public static func clampedRate(_ rowsPerSecond: Double) -> Double {
        guard !rowsPerSecond.isNaN else { return defaultRowsPerSecond }
        return min(max(rowsPerSecond, rowsPerSecondLimits.lowerBound), rowsPerSecondLimits.upperBound)
    }

    /// rows per second of history [rows/s]
    public let rowsPerSecond: Double
    /// seconds one row covers [s]
    public let rowSeconds: Double
    public let capacity: Int
    public let maxBinsPerRow: Int
    /// rows held (≤ capacity)
    public private(set) var count = 0
    /// one past the newest row's sequence number
    public private(set) var endSequence = 0

    /// capacity × maxBinsPerRow values [dB]
    private let storage: UnsafeMutablePointer<Float>
    private var infos: [WaterfallRowInfo]
    /// time slot (floor(timestamp × rowsPerSecond)) of the newest row, which is
    /// still collecting frames
    private var openSlot: Int64?
    private var nextVersion = 1
    /// frames merged into each slot's row (for the average)
    private var frameCounts: [Int]
    /// the average detector: frames arriving in a row's time slot are
    /// averaged in linear power instead of max-held (bins reduced by `factor`
    /// still keep their peak); applies to rows written from now on
    public var combineByMean = false

    /// - Parameters:
    ///   - rowsPerSecond: the row rate [rows/s], clamped to `rowsPerSecondLimits`
    ///   - capacity: rows kept; nil: `capacity(rowsPerSecond:maxBinsPerRow:)`
    public init(rowsPerSecond: Double = WaterfallHistory.defaultRowsPerSecond, capacity: Int? = nil,
                maxBinsPerRow: Int = WaterfallHistory.defaultMaxBinsPerRow) {
        self.rowsPerSecond = Self.clampedRate(rowsPerSecond)
        rowSeconds = 1 / self.rowsPerSecond
        self.capacity = max(1, capacity ?? Self.capacity(rowsPerSecond: self.rowsPerSecond, maxBinsPerRow: maxBinsPerRow))
        self.maxBinsPerRow = max(1, maxBinsPerRow)
        storage = .allocate(capacity: self.capacity * self.maxBinsPerRow)
        storage.initialize(repeating: .nan, count: self.capacity * self.maxBinsPerRow)
        frameCounts = Array(repeating: 0, count: self.capacity)
        infos = Array(repeating: WaterfallRowInfo(timestamp: 0, startHz: 0, binWidthHz: 0, binCount: 0, version: 0),
                      count: self.capacity)
    }

    deinit { storage.deallocate() }

    /// sequence number of the oldest row held
    public var startSequence: Int { endSequence - count }

    /// Metadata of row `sequence` (must be held).
    @inline(__always)
    public func info(_ sequence: Int) -> WaterfallRowInfo {
        assert(sequence >= startSequence && sequence < endSequence, "row \(sequence) not held")
        return infos[sequence % capacity]
    }

    /// The stored bins of row `sequence` (valid until the row is overwritten).
    @inline(__always)
    public func bins(_ sequence: Int) -> UnsafeBufferPointer<Float> {
        let slot = sequence % capacity
        return UnsafeBufferPointer(start: storage + slot * maxBinsPerRow, count: infos[slot].binCount)
    }

    /// Forgets every row (e.g. a replay jumped back in time).
    public func clear() {
        count = 0
        openSlot = nil
    }

    /// Adds a frame: merged by max into the newest row when it falls in the
    /// same time slot with the same geometry, else a new row (overwriting
    /// the oldest when full). A frame older than the newest row's slot
    /// merges into it (clocks may jitter); one more than a row older means the
    /// timeline jumped back, and the history starts again.
    public func add(_ frame: SpectrumFrame) {
        guard frame.timestamp.isFinite, frame.binWidthHz.isFinite, frame.binWidthHz > 0,
              frame.startHz.isFinite, !frame.powerDB.isEmpty else { return }
        // a frame stamped exactly on a slot edge (a source at the row rate) belongs to the slot it
        // opens, whatever the rounding of timestamp × rate: a millionth of a slot of tolerance
        var slot = Int64((frame.timestamp * rowsPerSecond + 1e-6).rounded(.down))
        if let open = openSlot {
            if slot < open - 1 { clear() } else { slot = max(slot, open) }
        }
        let factor = (frame.powerDB.count + maxBinsPerRow - 1) / maxBinsPerRow
        let binCount = (frame.powerDB.count + factor - 1) / factor
        let binWidth = frame.binWidthHz * Double(factor)
        if slot == openSlot, count > 0 {
            let newest = endSequence - 1
            let current = infos[newest % capacity]
            if current.startHz == frame.startHz, current.binWidthHz == binWidth, current.binCount == binCount {
                merge(frame.powerDB, factor: factor, into: newest)
                return
            }
        }
        let sequence = endSequence
        endSequence += 1
        count = min(count + 1, capacity)
        openSlot = slot
        infos[sequence % capacity] = WaterfallRowInfo(
            timestamp: Double(slot) / rowsPerSecond, startHz: frame.startHz, binWidthHz: binWidth,
            binCount: binCount, version: 0)
        let row = storage + (sequence % capacity) * maxBinsPerRow
        row.update(repeating: .nan, count: binCount)
        frameCounts[sequence % capacity] = 0
        merge(frame.powerDB, factor: factor, into: sequence)
    }

    /// Merges `values` (reduced by `factor` bins per stored bin, by max) into
    /// row `sequence`: by max, or by linear-power mean with `combineByMean`.
    private func merge(_ values: [Float], factor: Int, into sequence: Int) {
        let slot = sequence % capacity
        let row = storage + slot * maxBinsPerRow
        let binCount = infos[slot].binCount
        let merged = frameCounts[slot]
        frameCounts[slot] = merged + 1
        values.withUnsafeBufferPointer { source in
            let averaging = combineByMean && merged > 0
            let weight = Double(merged)
            for bin in 0..<binCount {
                var held = row[bin]
                var reduced = Float.nan
                let end = min((bin + 1) * factor, source.count)
                var i = bin * factor
                while i < end {
                    let value = source[i]
                    if value > reduced || reduced.isNaN { reduced = value }
                    i += 1
                }
                if averaging, reduced.isFinite, held.isFinite {
                    let power = (weight * Units.power(decibels: Double(held)) + Units.power(decibels: Double(reduced)))
                        / (weight + 1)
                    held = Float(Units.decibels(power: power))
                } else if reduced > held || held.isNaN {
                    held = reduced
                }
                row[bin] = held
            }
        }
        infos[slot].version = nextVersion
        nextVersion += 1
    }

    /// The first held sequence whose row starts at or after `time` [s]
    /// (`endSequence` if none). Row times never decrease along the ring.
    public func firstSequence(startingAtOrAfter time: Double) -> Int {
        var low = startSequence, high = endSequence
        while low < high {
            let middle = (low + high) / 2
            if infos[middle % capacity].timestamp < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The row whose time slot contains `time`, or that holds it (a slow
    /// source, below), if any.
    public func sequence(covering time: Double) -> Int? {
        let after = firstSequence(startingAtOrAfter: time + rowSeconds * 1e-9)
        let candidate = after - 1
        guard candidate >= startSequence else { return nil }
        let start = infos[candidate % capacity].timestamp
        guard time >= start + rowSeconds else { return candidate }
        // A source slower than the row rate (rtl_power at -i 1, a slow tinySA
        // sweep) fills the time to its next row: its row is held for up to
        // 1.5 of its own cadence (the spacing from the row before), so a
        // stall or an outage still shows as a gap soon after. The oldest row
        // has no row before it: the spacing to the row after it serves (else
        // a replay's first row would be followed by a gap).
        let cadence: Double
        if candidate > startSequence {
            cadence = start - infos[(candidate - 1) % capacity].timestamp
        } else if candidate + 1 < endSequence {
            cadence = infos[(candidate + 1) % capacity].timestamp - start
        } else {
            return nil
        }
        let hold = min(1.5 * cadence, Self.maxHoldSeconds)
        return time < start + hold ? candidate : nil
    }

    /// longest a row of a slow source is held to fill the time to the next [s]
    public static let maxHoldSeconds = 10.0
}
