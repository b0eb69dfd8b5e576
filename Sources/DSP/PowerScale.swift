/// Maps power [dB] onto the pixel rows of a plot and back.
///
/// Row 0 is the top pixel row (the terminal's y grows downward); row
/// `rows − 1` is the bottom. Row `r` covers the dB interval
/// (top − (r+1)·step, top − r·step] with step = (top − bottom) / rows, so
/// `topDB` itself lands in row 0 and `bottomDB` in the last row.
public struct PowerScale: Sendable, Equatable {
    /// level at the bottom edge of the plot [dB]
    public let bottomDB: Float
    /// level at the top edge of the plot [dB]
    public let topDB: Float
    /// pixel rows in the plot
    public let rows: Int

    /// nil unless both levels are finite, bottom < top, and rows ≥ 1.
    public init?(bottomDB: Float, topDB: Float, rows: Int) {
        guard bottomDB.isFinite, topDB.isFinite, bottomDB < topDB, rows >= 1 else { return nil }
        self.bottomDB = bottomDB
        self.topDB = topDB
        self.rows = rows
    }

    /// height of one pixel row [dB]
    public var decibelsPerRow: Float { (topDB - bottomDB) / Float(rows) }

    /// The row that draws `decibels`: clamped to the plot when above the top
    /// or below the bottom (±infinity included); nil for NaN (no data, no pixel).
    public func row(for decibels: Float) -> Int? {
        if decibels.isNaN { return nil }
        if decibels >= topDB { return 0 }
        if decibels <= bottomDB { return rows - 1 }
        let fromTop = Int(((topDB - decibels) / decibelsPerRow).rounded(.down))
        return min(max(fromTop, 0), rows - 1)
    }

    /// Level at the centre of `row` [dB], for axis labels; rows outside the
    /// plot extrapolate linearly.
    public func centerDB(ofRow row: Int) -> Float {
        topDB - (Float(row) + 0.5) * decibelsPerRow
    }

    /// Level at the top edge of `row` [dB] (row `rows` gives the bottom edge).
    public func topEdgeDB(ofRow row: Int) -> Float {
        topDB - Float(row) * decibelsPerRow
    }
}
