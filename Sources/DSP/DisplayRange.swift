/// The vertical range of a spectrum plot as a bench analyzer states it: a
/// reference level (the top line) and a scale in dB per division.
///
/// "Display gain" moves the trace without touching the device: more gain
/// lowers the reference level by one division, so the trace rises on screen.
public struct DisplayRange: Sendable, Equatable {
    /// dB/div steps offered by `finerScale` / `coarserScale`
    public static let scaleSteps: [Float] = [1, 2, 5, 10, 20]
    /// allowed reference levels [dB]
    public static let referenceLimits: ClosedRange<Float> = -200...100

    /// level at the top of the plot [dB]
    public private(set) var referenceLevelDB: Float
    /// vertical scale [dB per division]
    public private(set) var decibelsPerDivision: Float
    /// divisions from top to bottom
    public let divisions: Int

    /// Values out of range are clamped: the reference level into
    /// `referenceLimits`, the scale to the nearest of `scaleSteps`,
    /// divisions to at least 1.
    public init(referenceLevelDB: Float = 0, decibelsPerDivision: Float = 10, divisions: Int = 10) {
        self.referenceLevelDB = Self.clampedReference(referenceLevelDB)
        self.decibelsPerDivision = Self.nearestStep(decibelsPerDivision)
        self.divisions = max(1, divisions)
    }

    /// total span top to bottom [dB]
    public var spanDB: Float { decibelsPerDivision * Float(divisions) }
    /// level at the bottom of the plot [dB]
    public var bottomDB: Float { referenceLevelDB - spanDB }

    /// The row mapping for a plot of `rows` pixel rows (nil if rows < 1).
    public func scale(rows: Int) -> PowerScale? {
        PowerScale(bottomDB: bottomDB, topDB: referenceLevelDB, rows: rows)
    }

    /// ↑: more display gain, reference level one division lower.
    public mutating func increaseGain() {
        referenceLevelDB = Self.clampedReference(referenceLevelDB - decibelsPerDivision)
    }

    /// ↓: less display gain, reference level one division higher.
    public mutating func decreaseGain() {
        referenceLevelDB = Self.clampedReference(referenceLevelDB + decibelsPerDivision)
    }

    /// Next smaller dB/div step (zoom in vertically); stays at the finest.
    public mutating func finerScale() {
        if let index = Self.scaleSteps.firstIndex(of: decibelsPerDivision), index > 0 {
            decibelsPerDivision = Self.scaleSteps[index - 1]
        }
    }

    /// Next larger dB/div step (zoom out vertically); stays at the coarsest.
    public mutating func coarserScale() {
        if let index = Self.scaleSteps.firstIndex(of: decibelsPerDivision), index + 1 < Self.scaleSteps.count {
            decibelsPerDivision = Self.scaleSteps[index + 1]
        }
    }

    private static func clampedReference(_ level: Float) -> Float {
        guard level.isFinite else { return 0 }
        return min(max(level, referenceLimits.lowerBound), referenceLimits.upperBound)
    }

    private static func nearestStep(_ value: Float) -> Float {
        guard value.isFinite else { return 10 }
        return scaleSteps.min { abs($0 - value) < abs($1 - value) } ?? 10
    }
}
