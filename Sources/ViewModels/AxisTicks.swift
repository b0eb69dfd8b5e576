/// "Nice" tick positions for a labelled axis: steps of 1, 2 or 5 × 10ⁿ.
public enum AxisTicks {
    /// A step that gives about `targetCount` ticks across `span`.
    public static func niceStep(span: Double, targetCount: Int) -> Double {
        guard span > 0, span.isFinite, targetCount > 0 else { return 1 }
        let rough = span / Double(targetCount)
        var magnitude = 1.0
        while magnitude * 10 <= rough { magnitude *= 10 }
        while magnitude > rough { magnitude /= 10 }
        let residual = rough / magnitude
        let factor: Double = residual < 1.5 ? 1 : residual < 3.5 ? 2 : residual < 7.5 ? 5 : 10
        return factor * magnitude
    }

    /// Tick values in [lower, upper], multiples of a nice step.
    public static func ticks(lower: Double, upper: Double, targetCount: Int) -> [Double] {
        guard upper > lower else { return [] }
        let step = niceStep(span: upper - lower, targetCount: targetCount)
        var value = (lower / step).rounded(.up) * step
        var result: [Double] = []
        while value <= upper + step * 1e-9 {
            result.append(abs(value) < step * 1e-9 ? 0 : value)
            value += step
        }
        return result
    }
}
