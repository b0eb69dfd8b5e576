import Signals
import Terminal
import ViewModels

/// The frequency axis under the plot and the waterfall: a tick line with
/// "nice" tick values and their labels in one unit, the unit at the right end
/// and a short label (the left axis' unit) at the left.
enum FrequencyAxis {
    static let style = CellStyle(foreground: .rgb(150, 150, 150))

    static func draw(band: FrequencyRange, layout: PlotLayout, cornerLabel: String, into buffer: inout Buffer) {
        let area = layout.frequencyAxis
        let plot = layout.plot
        guard !area.isEmpty else { return }
        buffer.set(x: area.x, y: area.y, Cell("└", style: style))
        for x in plot.x..<(plot.x + plot.width) {
            buffer.set(x: x, y: area.y, Cell("─", style: style))
        }
        let (_, unit) = FrequencyFormat.scaled(band.upperHz)
        let unitScale = band.upperHz / FrequencyFormat.scaled(band.upperHz).0
        let ticks = AxisTicks.ticks(lower: band.lowerHz, upper: band.upperHz, targetCount: max(2, plot.width / 14))
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : band.spanHz
        let digits = fractionDigits(step: step / unitScale)
        // a long corner label ("dBuV/m") reaches past the level axis: the first tick label gives way to it
        let cornerX = area.x - (PlotLayout.levelAxisWidth - 1)
        var nextFreeX = max(plot.x, cornerX + cornerLabel.count + 1)
        let unitLabelX = plot.x + plot.width - unit.count
        for value in ticks {
            let x = plot.x + Int(((value - band.lowerHz) / band.spanHz * Double(plot.width)).rounded(.down))
            guard x >= plot.x, x < plot.x + plot.width else { continue }
            buffer.set(x: x, y: area.y, Cell("┬", style: style))
            let label = FrequencyFormat.trimmed(value / unitScale, maxFractionDigits: digits)
            let labelX = max(x - label.count / 2, plot.x)
            guard labelX >= nextFreeX, labelX + label.count < unitLabelX - 1 else { continue }
            _ = buffer.put(label, x: labelX, y: area.y + 1, style: style)
            nextFreeX = labelX + label.count + 2
        }
        _ = buffer.put(unit, x: unitLabelX, y: area.y + 1, style: style)
        _ = buffer.put(cornerLabel, x: cornerX, y: area.y + 1, style: style)
    }

    /// Decimals needed to tell ticks `step` apart (step in display units).
    static func fractionDigits(step: Double) -> Int {
        var digits = 0
        var scaled = step
        while digits < 4 && abs(scaled - scaled.rounded()) > 1e-9 {
            scaled *= 10
            digits += 1
        }
        return digits
    }
}
