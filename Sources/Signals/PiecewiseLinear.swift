/// Linear interpolation over points sorted by x, the end values held beyond
/// them: the one lookup behind the calibration table, the correction tables
/// (`LevelCorrectionTable`) and event masks (`LevelPoint`).
public enum PiecewiseLinear {
    /// y at `x` over `count` points whose x (non-decreasing) and y are given
    /// by index; where two neighbours share an x, the larger y. nil without points.
    public static func value(at x: Double, count: Int, x xAt: (Int) -> Double, y yAt: (Int) -> Double) -> Double? {
        guard count > 0 else { return nil }
        if x <= xAt(0) { return yAt(0) }
        if x >= xAt(count - 1) { return yAt(count - 1) }
        var low = 0, high = count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if xAt(middle) <= x { low = middle } else { high = middle }
        }
        let (x0, x1, y0, y1) = (xAt(low), xAt(high), yAt(low), yAt(high))
        guard x1 > x0 else { return max(y0, y1) }
        return y0 + (x - x0) / (x1 - x0) * (y1 - y0)
    }
}
