import Foundation
import Terminal
import ViewModels

/// The heart-rate trend (key t): one dot column per second of signal, swept
/// left to right like the strips, the measured rate as a line, the reference
/// rate (a record's annotations) in dots of another colour, the target zone's
/// bounds dotted, a break in the stream (a sensor's dropped link) as a dotted
/// line across the plot before the second after it. Drawn incrementally: each
/// render plots only the seconds that arrived since the last one; a new rect
/// redraws what the window holds.
public final class ECGTrendView {
    /// the rate axis [beats/min]
    static let lowest = 30.0, highest = 200.0
    /// label columns left of the plot
    static let labelWidth = 4
    /// dot columns cleared ahead of the newest second
    static let gap = 4
    static let measuredColor = Color.rgb(90, 220, 120)
    static let referenceColor = Color.rgb(120, 200, 255)
    static let targetColor = Color.rgb(230, 180, 60)
    /// the measured rate's colour in seconds of atrial fibrillation
    static let afColor = Color.rgb(255, 110, 90)
    /// a break in the stream
    static let gapColor = Color.rgb(150, 150, 150)
    static let labelStyle = CellStyle(foreground: .rgb(180, 180, 180))

    private var canvas = BrailleCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    /// seconds plotted so far
    private var drawnSeconds = 0
    private var drawnRect: Rect?

    public init() {}

    /// seconds the plot spans in `rect` (one per dot column)
    public static func span(of rect: Rect) -> Int { max(0, rect.width - labelWidth) * 2 }

    public func render(_ trend: ECGHeartRateTrend, in rect: Rect, into buffer: inout Buffer) {
        let area = rect.intersection(buffer.area)
        guard area.width > Self.labelWidth + 2, area.height >= 3 else { return }
        let plot = Rect(x: area.x + Self.labelWidth, y: area.y + 1, width: area.width - Self.labelWidth, height: area.height - 1)
        if drawnRect != area || trend.seconds < drawnSeconds {
            canvas = BrailleCanvas(area: plot, color: Self.measuredColor)
            drawnRect = area
            drawnSeconds = max(0, trend.seconds - canvas.pixelWidth + Self.gap)
        }
        for second in drawnSeconds..<trend.seconds { draw(second: second, of: trend) }
        drawnSeconds = trend.seconds

        buffer.fill(area, with: .blank)
        drawLegend(trend, x: area.x, y: area.y, limit: area.maxX, into: &buffer)
        for bpm in stride(from: 40, through: 180, by: 20) {
            let row = plot.y + y(Double(bpm)) / 4
            if row >= plot.y && row < plot.maxY { buffer.put("\(bpm)", x: area.x, y: row, limit: plot.x, style: Self.labelStyle) }
        }
        canvas.render(into: &buffer)
    }

    /// "HR trend 4 min │ measured 85 │ annotated 84 │ AF burden 31 % │ target 60–100 │ gap 3.1 s" (AF
    /// burden once there was AF, in the colour the rate line takes in AF seconds; 60 columns without
    /// it: it fits the trend's width at 80×24; the last break's length once the stream broke),
    /// each name in its trace's colour,
    /// with the newest second's rates [beats/min] ("–" while there is none),
    /// so the two can be told apart where they overlap.
    private func drawLegend(_ trend: ECGHeartRateTrend, x: Int, y: Int, limit: Int, into buffer: inout Buffer) {
        func rate(_ value: Float) -> String { value.isFinite ? "\(Int(value.rounded()))" : "–" }
        let newest = trend.rates(at: trend.seconds - 1)
        var column = buffer.put("HR trend \(canvas.pixelWidth / 60) min │ ", x: x, y: y, limit: limit, style: Self.labelStyle)
        column = buffer.put("measured \(rate(newest.measured))", x: column, y: y, limit: limit,
                            style: CellStyle(foreground: Self.measuredColor))
        if trend.hasReference {
            column = buffer.put(" │ ", x: column, y: y, limit: limit, style: Self.labelStyle)
            column = buffer.put("annotated \(rate(newest.reference))", x: column, y: y, limit: limit,
                                style: CellStyle(foreground: Self.referenceColor))
        }
        if trend.hasAF, let burden = trend.afBurden {
            column = buffer.put(" │ ", x: column, y: y, limit: limit, style: Self.labelStyle)
            column = buffer.put("AF burden \(Int((burden * 100).rounded())) %", x: column, y: y, limit: limit,
                                style: CellStyle(foreground: Self.afColor))
        }
        if let target = trend.target {
            column = buffer.put(" │ ", x: column, y: y, limit: limit, style: Self.labelStyle)
            column = buffer.put("target \(Int(target.lowerBound))–\(Int(target.upperBound))", x: column, y: y, limit: limit,
                                style: CellStyle(foreground: Self.targetColor))
        }
        if let gap = trend.gaps.last {
            column = buffer.put(" │ ", x: column, y: y, limit: limit, style: Self.labelStyle)
            buffer.put(String(format: "gap %.1f s", gap.seconds), x: column, y: y, limit: limit,
                       style: CellStyle(foreground: Self.gapColor))
        }
    }

    private func y(_ bpm: Double) -> Int {
        let clamped = min(max(bpm, Self.lowest), Self.highest)
        return Int(((Self.highest - clamped) / (Self.highest - Self.lowest) * Double(canvas.pixelHeight - 1)).rounded())
    }

    private func draw(second: Int, of trend: ECGHeartRateTrend) {
        let width = canvas.pixelWidth
        guard width > Self.gap else { return }
        let x = second % width
        for ahead in 0...Self.gap { canvas.clear(column: (x + ahead) % width) }
        if trend.gap(before: second) != nil {
            for row in stride(from: 0, to: canvas.pixelHeight, by: 2) {
                // a cell has one colour: the cells the rate line beside it already uses keep theirs
                let cellTop = row / 4 * 4
                let shared = (cellTop..<min(cellTop + 4, canvas.pixelHeight)).contains { canvas.isSet(x: x ^ 1, y: $0) }
                if !shared { canvas.set(x: x, y: row, color: Self.gapColor) }
            }
        }
        if let target = trend.target, second % 3 == 0 {
            canvas.set(x: x, y: y(target.lowerBound), color: Self.targetColor)
            canvas.set(x: x, y: y(target.upperBound), color: Self.targetColor)
        }
        let (measured, reference) = trend.rates(at: second)
        if reference.isFinite { canvas.set(x: x, y: y(Double(reference)), color: Self.referenceColor) }
        guard measured.isFinite else { return }
        let previous = trend.rates(at: second - 1).measured
        let color = trend.isAF(at: second) ? Self.afColor : Self.measuredColor
        if previous.isFinite && x > 0 {
            canvas.verticalSpan(x: x, from: y(Double(previous)), to: y(Double(measured)), color: color)
        } else {
            canvas.set(x: x, y: y(Double(measured)), color: color)
        }
    }
}
