/// Turns a sweep (one value per strip position [mV], NaN = nothing to draw)
/// into the rows a trace covers in each dot column, so it can be drawn as
/// vertical spans: every column covers the samples that fall in it and the
/// line from the previous sample, so steep QRS edges stay joined whether a
/// column holds many samples or none.
enum ECGTraceRasterizer {
    /// marks a column without trace in `top`
    static let empty = Int32.max

    /// - Parameters:
    ///   - values: the sweep, position 0 at the left edge
    ///   - rows: dot rows of the band; rows are clamped to 0..<rows
    ///   - baselineRow: dot row of 0 mV (may be fractional)
    ///   - dotsPerMillivolt: dot rows per mV (up is negative rows)
    ///   - top, bottom: per dot column, the lowest and highest row covered;
    ///     `top[x] == empty` where nothing is drawn. Same count: the columns.
    static func rasterize(_ values: UnsafeBufferPointer<Float>, rows: Int, baselineRow: Double,
                          dotsPerMillivolt: Double,
                          top: UnsafeMutableBufferPointer<Int32>, bottom: UnsafeMutableBufferPointer<Int32>) {
        let columns = min(top.count, bottom.count)
        top.update(repeating: empty)
        bottom.update(repeating: Int32.min)
        guard columns > 0, rows > 0, !values.isEmpty else { return }
        let count = values.count
        let lowest = Double(rows - 1)
        var previousX = 0, previousY = 0
        var hasPrevious = false
        for position in 0..<count {
            let value = values[position]
            guard value.isFinite else {
                hasPrevious = false
                continue
            }
            let x = position * columns / count
            let y = Int(min(max((baselineRow - Double(value) * dotsPerMillivolt).rounded(), 0), lowest))
            if hasPrevious && x > previousX {
                // The line from the previous sample, shared out over the columns it crosses.
                let dx = x - previousX, dy = y - previousY
                for column in (previousX + 1)...x {
                    let from = previousY + dy * (column - 1 - previousX) / dx
                    let to = previousY + dy * (column - previousX) / dx
                    extend(column, min(from, to), max(from, to), top, bottom)
                }
            } else {
                extend(x, y, y, top, bottom)
            }
            previousX = x
            previousY = y
            hasPrevious = true
        }
    }

    @inline(__always)
    private static func extend(_ column: Int, _ low: Int, _ high: Int,
                               _ top: UnsafeMutableBufferPointer<Int32>, _ bottom: UnsafeMutableBufferPointer<Int32>) {
        top[column] = min(top[column], Int32(truncatingIfNeeded: low))
        bottom[column] = max(bottom[column], Int32(truncatingIfNeeded: high))
    }
}
