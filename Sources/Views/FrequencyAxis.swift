import Signals
import Terminal
import ViewModels

/// The frequency axis under the plot and the waterfall: a tick line with
/// "nice" tick values and their labels in one unit, the unit at the right end
/// and a short label (the left axis' unit) at the left.
enum FrequencyAxis {
    static let style = CellStyle(foreground: .rgb(150, 150, 150))

    static func draw(band: FrequencyRange, layout: PlotLayout, cornerLabel: String, into buffer: inout Buffer) {
        draw(scale: .linear(band), layout: layout, cornerLabel: cornerLabel, into: &buffer)
    }

    /// The axis for `scale`: on a logarithmic one, ticks at 1-2-5 × 10ⁿ (and the
    /// band's lower edge) labelled with SI prefixes ("150k 200k 500k 1M … 30M"),
    /// no unit at the right end; each tick in the column `FrequencyScale` puts it.
    static func draw(scale: FrequencyScale, layout: PlotLayout, cornerLabel: String, into buffer: inout Buffer) {
        let band = scale.band
        let area = layout.frequencyAxis
        let plot = layout.plot
        guard !area.isEmpty else { return }
        buffer.set(x: area.x, y: area.y, Cell("└", style: style))
        for x in plot.x..<(plot.x + plot.width) {
            buffer.set(x: x, y: area.y, Cell("─", style: style))
        }
        let ticks: [Double]
        let unit: String
        let label: (Double) -> String
        if scale.isLogarithmic {
            // labelled ticks at 1-2-5 × 10ⁿ (or sparser), unlabelled ones between (1…9 × 10ⁿ) where they fit
            let major = scale.logTicks(targetCount: max(2, plot.width / 10))
            for value in scale.logTicks(targetCount: max(2, plot.width / 3)) {
                let x = plot.x + scale.column(ofHz: value, of: plot.width)
                if x >= plot.x, x < plot.x + plot.width { buffer.set(x: x, y: area.y, Cell("┴", style: style)) }
            }
            // the lower edge is labelled too (an EMC plot's "30M" or "150k") unless a tick sits there
            ticks = (major.first.map { $0 > band.lowerHz * 1.000001 } ?? true) ? [band.lowerHz] + major : major
            // the labels carry their prefix ("30M", "1G"): no unit at the right end, room for the top tick's label
            unit = ""
            label = { siLabel($0) }
        } else {
            let (_, linearUnit) = FrequencyFormat.scaled(band.upperHz)
            let unitScale = band.upperHz / FrequencyFormat.scaled(band.upperHz).0
            ticks = AxisTicks.ticks(lower: band.lowerHz, upper: band.upperHz, targetCount: max(2, plot.width / 14))
            let step = ticks.count > 1 ? ticks[1] - ticks[0] : band.spanHz
            let digits = fractionDigits(step: step / unitScale)
            unit = linearUnit
            label = { FrequencyFormat.trimmed($0 / unitScale, maxFractionDigits: digits) }
        }
        // a long corner label ("dBuV/m") reaches past the level axis: the first tick label gives way to it
        let cornerX = area.x - (PlotLayout.levelAxisWidth - 1)
        var nextFreeX = max(plot.x, cornerX + cornerLabel.count + 1)
        let unitLabelX = plot.x + plot.width - unit.count
        for value in ticks {
            // on a log axis the band's upper edge (1G) is ticked in the last column, the right side of it
            let atUpperEdge = scale.isLogarithmic && value >= band.upperHz * (1 - 1e-9)
            let x = plot.x + (atUpperEdge ? plot.width - 1 : scale.column(ofHz: value, of: plot.width))
            guard x >= plot.x, x < plot.x + plot.width else { continue }
            buffer.set(x: x, y: area.y, Cell("┬", style: style))
            let text = label(value)
            let centred = max(x - text.count / 2, plot.x)
            // the last label may end at the right edge when no unit stands there
            let labelX = unit.isEmpty ? min(centred, plot.x + plot.width - text.count) : centred
            guard labelX >= nextFreeX, labelX + text.count < unitLabelX - 1 || (unit.isEmpty && labelX + text.count <= unitLabelX)
            else { continue }
            _ = buffer.put(text, x: labelX, y: area.y + 1, style: style)
            nextFreeX = labelX + text.count + 2
        }
        _ = buffer.put(unit, x: unitLabelX, y: area.y + 1, style: style)
        _ = buffer.put(cornerLabel, x: cornerX, y: area.y + 1, style: style)
    }

    /// "150k", "30M", "1G", "2.4G": a frequency with an SI prefix, for the logarithmic axis.
    static func siLabel(_ hz: Double) -> String {
        let (value, unit) = FrequencyFormat.scaled(hz)
        return FrequencyFormat.trimmed(value, maxFractionDigits: 2) + String(unit.dropLast(2))
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
