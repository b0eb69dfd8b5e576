import Signals

/// Combines the frames that arrive between two stored frames into one: the
/// per-bin maximum (a bin without data, NaN, takes the other's value), so a
/// burst seen in one sweep is never lost by recording fewer frames than the
/// device delivers. Storage is allocated once and reused.
struct PeakHold {
    private(set) var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
    private(set) var isHolding = false

    /// Whether `next` lies on the held frame's bin grid (same band and bins).
    func matches(_ next: SpectrumFrame) -> Bool {
        isHolding && next.powerDB.count == frame.powerDB.count && next.startHz == frame.startHz
            && next.binWidthHz == frame.binWidthHz
    }

    /// Adds `next`: merged when on the same grid, else it replaces the held frame.
    mutating func add(_ next: SpectrumFrame) {
        if matches(next) {
            frame.powerDB.withUnsafeMutableBufferPointer { held in
                next.powerDB.withUnsafeBufferPointer { incoming in
                    for i in 0..<held.count { held[i] = Self.peak(held[i], incoming[i]) }
                }
            }
        } else {
            frame.startHz = next.startHz
            frame.binWidthHz = next.binWidthHz
            frame.noiseBandwidthHz = next.noiseBandwidthHz
            frame.windowing = next.windowing
            frame.powerDB.removeAll(keepingCapacity: true)
            frame.powerDB.append(contentsOf: next.powerDB)
            isHolding = true
        }
        frame.timestamp = next.timestamp
    }

    /// Empties the hold (after the frame was stored).
    mutating func clear() { isHolding = false }

    /// The larger value; NaN (no data) loses to any number.
    @inline(__always)
    static func peak(_ a: Float, _ b: Float) -> Float {
        if a.isNaN { return b }
        if b.isNaN { return a }
        return a >= b ? a : b
    }
}
