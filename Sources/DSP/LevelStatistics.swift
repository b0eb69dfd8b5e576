/// The noise floor and the strongest level of a spectrum, from which the
/// views set their dB window. The floor is a low percentile of the bins (most
/// of a band is noise, so a low percentile is the noise level even when
/// stations fill a quarter of it); the peak is the largest bin.
///
/// A histogram in `stepDB` steps, allocated once: one pass over the bins, no
/// allocation per frame (continuous auto mode runs it on every drawn frame).
public final class LevelStatistics {
    /// the floor is this fraction of the bins from the bottom
    public static let floorPercentile = 0.2
    /// histogram resolution [dB]
    public static let stepDB: Float = 0.25
    /// lowest and highest level the histogram holds [dB]; bins outside are clamped
    static let lowestDB: Float = -250
    static let highestDB: Float = 100

    private var counts: [Int32]

    public init() {
        counts = [Int32](repeating: 0, count: Int((Self.highestDB - Self.lowestDB) / Self.stepDB) + 1)
    }

    /// Floor (the `percentile` of the finite bins) and peak of `values` [dB];
    /// nil when no bin is finite.
    public func measure(_ values: UnsafeBufferPointer<Float>,
                        percentile: Double = LevelStatistics.floorPercentile) -> (floorDB: Double, peakDB: Double)? {
        var finite = 0
        var peak = -Float.infinity
        let last = counts.count - 1
        counts.withUnsafeMutableBufferPointer { histogram in
            histogram.update(repeating: 0)
            for value in values where value.isFinite {
                let slot = Int((min(max(value, Self.lowestDB), Self.highestDB) - Self.lowestDB) / Self.stepDB)
                histogram[min(slot, last)] += 1
                finite += 1
                peak = max(peak, value)
            }
        }
        guard finite > 0 else { return nil }
        // the first slot where the running count passes the percentile's rank
        let rank = Int32(min(max(percentile, 0), 1) * Double(finite - 1)) + 1
        var running: Int32 = 0
        var slot = 0
        for (index, count) in counts.enumerated() {
            running += count
            if running >= rank {
                slot = index
                break
            }
        }
        // the slot's centre, never above the peak (few bins: the floor is a bin)
        let floor = min(Self.lowestDB + (Float(slot) + 0.5) * Self.stepDB, peak)
        return (Double(floor), Double(peak))
    }

    /// `measure` over an array.
    public func measure(_ values: [Float],
                        percentile: Double = LevelStatistics.floorPercentile) -> (floorDB: Double, peakDB: Double)? {
        values.withUnsafeBufferPointer { measure($0, percentile: percentile) }
    }
}
