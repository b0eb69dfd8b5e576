import Signals
import Terminal
import ViewModels

/// Draws the power meter as a bench meter does: the band and min/max/peak
/// on one line, the reading in digits that grow with the terminal (a third
/// of its height or more) with the unit beside them, and a horizontal bar on
/// the meter's own fixed dB scale (`PowerMeterModel.scaleTopDB`, 60 dB,
/// whatever the width) with ticks every 10 dB, labels and the unit, a
/// peak-hold mark in the bar and min/max marks above it. The digits and the
/// bar take the colour of the level: blue low, through green and yellow, to
/// red near the top of the scale.
public final class PowerMeterView {
    static let infoStyle = CellStyle(foreground: .rgb(200, 200, 200))
    static let scaleStyle = CellStyle(foreground: .rgb(150, 150, 150))
    static let trackStyle = CellStyle(foreground: .rgb(70, 70, 70))
    static let peakStyle = CellStyle(foreground: .rgb(255, 255, 255), attributes: [.bold])
    static let extremeStyle = CellStyle(foreground: .rgb(200, 200, 200))
    /// the colour map from its blue to its red: higher is brighter,
    /// more saturated and nearer red; the map's white top would read as less saturated
    static let colorRange: ClosedRange<Float> = Float(PowerColorMap.blueLevel)...Float(PowerColorMap.redLevel)
    /// the reading the digits are sized for, so they keep their size; a
    /// wider one (−100 dB and below) is drawn a step smaller
    static let typicalReading = "-88.8"

    public init() {}

    /// Where the parts go inside `area`.
    struct Layout {
        var info: Rect
        /// the digits' rect; `scale` 0 = one plain line
        var readout: Rect
        var scale: Int
        /// min/max marks row, above the bar
        var marks: Rect
        var bar: Rect
        /// tick row and label row, under the bar
        var ticks: Rect

        init(area: Rect, unit: PowerUnit = .dB) {
            info = Rect(x: area.x, y: area.y, width: area.width, height: min(1, area.height))
            // the largest digits that fit 45 % of the height and the width with the unit
            var chosen = 0
            var candidate = 1
            while BigDigits.height(scale: candidate) <= area.height * 45 / 100,
                  PowerMeterView.readoutWidth(PowerMeterView.typicalReading, unit: unit, scale: candidate)
                    <= area.width - 2 {
                chosen = candidate
                candidate += 1
            }
            scale = chosen
            let readoutHeight = chosen > 0 ? BigDigits.height(scale: chosen) : min(1, max(0, area.height - 1))
            let barHeight = max(1, min(6, area.height / 8))
            // info, gap, digits, gap, marks, bar, ticks (2): centred in what is left
            let used = 1 + 1 + readoutHeight + 1 + 1 + barHeight + 2
            let spare = max(0, area.height - used)
            let top = area.y + 1 + min(spare / 3, 4)
            readout = Rect(x: area.x, y: top + 1, width: area.width, height: readoutHeight)
            let margin = area.width >= 30 ? 3 : 0
            let barWidth = max(0, area.width - 2 * margin - 3)
            marks = Rect(x: area.x + margin, y: readout.maxY + 1 + spare / 3, width: barWidth, height: 1)
            bar = Rect(x: marks.x, y: marks.maxY, width: barWidth, height: barHeight)
            ticks = Rect(x: bar.x, y: bar.maxY, width: barWidth + 3, height: 2)
            // too small: drop what does not fit, keep the reading
            if ticks.maxY > area.maxY {
                marks = Rect(x: area.x, y: area.maxY, width: 0, height: 0)
                bar = marks
                ticks = marks
            }
        }
    }

    /// The rect a click pauses in (the whole meter).
    static func dataRect(in area: Rect) -> Rect { area }

    /// - Parameters:
    ///   - unit: "dB", or "dBm" for a calibrated analyzer
    ///   - trace: the held or averaged trace measured ("max hold"); nil for the live sweeps
    public func render(meter: PowerMeterModel, band: FrequencyRange, unit: PowerUnit = .dB, trace: String? = nil,
                       in area: Rect, into buffer: inout Buffer) {
        buffer.fill(area, with: .blank)
        let layout = Layout(area: area, unit: unit)
        var info = " band \(band)"
        if let trace { info += "   trace \(trace)" }
        if let minimum = meter.minimum, let maximum = meter.maximum {
            info += "   min \(Self.decibels(minimum))   max \(Self.decibels(maximum))"
        }
        if let peak = meter.peak { info += "   peak \(Self.decibels(peak)) \(unit)" }
        info += "   (r resets)"
        _ = buffer.put(info, x: layout.info.x, y: layout.info.y, style: Self.infoStyle)

        let color = meter.reading.map { levelColor($0, meter: meter) } ?? .rgb(200, 200, 200)
        let style = CellStyle(foreground: color, attributes: [.bold])
        let text = meter.reading.map { Self.decibels($0) } ?? "---"
        if layout.scale > 0 {
            // the unit beside the digits, half their size, on their baseline
            var scale = layout.scale
            while scale > 1, Self.readoutWidth(text, unit: unit, scale: scale) > layout.readout.width - 2 { scale -= 1 }
            let unitScale = max(1, scale / 2)
            let width = Self.readoutWidth(text, unit: unit, scale: scale)
            let x = layout.readout.x + max(0, (layout.readout.width - width) / 2)
            let end = BigDigits.draw(text, x: x, y: layout.readout.maxY - BigDigits.height(scale: scale), scale: scale,
                                     style: style, into: &buffer)
            let unitY = layout.readout.maxY - BigDigits.height(scale: unitScale)
            BigDigits.draw(unit.rawValue, x: end + scale, y: unitY, scale: unitScale, style: style, into: &buffer)
        } else if layout.readout.height == 1 {
            _ = buffer.put(" \(text) \(unit)", x: layout.readout.x, y: layout.readout.y, style: style)
        }
        drawBar(meter: meter, color: color, unit: unit, layout: layout, into: &buffer)
    }

    /// Cells the reading `text` and its unit take at `scale` (the unit at half
    /// the scale, one digit pixel apart).
    static func readoutWidth(_ text: String, unit: PowerUnit, scale: Int) -> Int {
        BigDigits.width(of: text, scale: scale) + scale + BigDigits.width(of: unit.rawValue, scale: max(1, scale / 2))
    }

    /// "-23.4": one decimal
    static func decibels(_ value: Double) -> String { FrequencyFormat.trimmed(value, maxFractionDigits: 1) }

    /// Fraction of the scale `value` reaches, clamped to 0…1.
    static func fraction(_ value: Double, bottomDB: Double, topDB: Double) -> Double {
        guard topDB > bottomDB, value.isFinite else { return 0 }
        return min(max((value - bottomDB) / (topDB - bottomDB), 0), 1)
    }

    private func levelColor(_ value: Double, meter: PowerMeterModel) -> Color {
        guard let top = meter.scaleTopDB, let bottom = meter.scaleBottomDB else { return .rgb(200, 200, 200) }
        let level = Float(Self.fraction(value, bottomDB: bottom, topDB: top))
        let range = Self.colorRange
        let rgb = PowerColorMap.color(normalized: range.lowerBound + level * (range.upperBound - range.lowerBound))
        return .rgb(rgb.red, rgb.green, rgb.blue)
    }

    /// The column of `value` on the bar (eighths of a cell for the fill).
    private func eighths(_ value: Double, bar: Rect, bottom: Double, top: Double) -> Int {
        Int((Self.fraction(value, bottomDB: bottom, topDB: top) * Double(bar.width * 8)).rounded())
    }

    private func drawBar(meter: PowerMeterModel, color: Color, unit: PowerUnit, layout: Layout,
                         into buffer: inout Buffer) {
        let bar = layout.bar
        guard !bar.isEmpty, let top = meter.scaleTopDB, let bottom = meter.scaleBottomDB else { return }
        // the track, then the fill in eighths of a cell
        for y in bar.y..<bar.maxY {
            for x in bar.x..<bar.maxX { buffer.set(x: x, y: y, Cell("░", style: Self.trackStyle)) }
        }
        if let reading = meter.reading {
            let filled = eighths(reading, bar: bar, bottom: bottom, top: top)
            let partial: [Unicode.Scalar] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]
            for y in bar.y..<bar.maxY {
                for cell in 0..<(filled / 8) { buffer.set(x: bar.x + cell, y: y, Cell("█", style: .init(foreground: color))) }
                if filled % 8 > 0, filled / 8 < bar.width {
                    buffer.set(x: bar.x + filled / 8, y: y,
                               Cell(partial[filled % 8 - 1], style: .init(foreground: color)))
                }
            }
        }
        // the peak hold: a bright line across the bar
        if let peak = meter.peak {
            let x = bar.x + min(eighths(peak, bar: bar, bottom: bottom, top: top) / 8, bar.width - 1)
            for y in bar.y..<bar.maxY { buffer.set(x: x, y: y, Cell("┃", style: Self.peakStyle)) }
        }
        // min and max since reset: marks above the bar
        if let minimum = meter.minimum, let maximum = meter.maximum {
            let minX = bar.x + min(eighths(minimum, bar: bar, bottom: bottom, top: top) / 8, bar.width - 1)
            let maxX = bar.x + min(eighths(maximum, bar: bar, bottom: bottom, top: top) / 8, bar.width - 1)
            let marks = layout.marks
            if maxX - minX >= 8 {
                _ = buffer.put("min▼", x: minX - 3, y: marks.y, style: Self.extremeStyle)
                _ = buffer.put("▼max", x: maxX, y: marks.y, style: Self.extremeStyle)
            } else {
                buffer.set(x: minX, y: marks.y, Cell("▼", style: Self.extremeStyle))
                buffer.set(x: maxX, y: marks.y, Cell("▼", style: Self.extremeStyle))
            }
        }
        // the scale: a tick every 10 dB, labelled where there is room, the unit at the end
        let ticks = layout.ticks
        var nextFree = ticks.x
        var value = bottom
        while value <= top + 0.5 {
            let x = bar.x + min(eighths(value, bar: bar, bottom: bottom, top: top) / 8, bar.width - 1)
            buffer.set(x: x, y: ticks.y, Cell(value == bottom ? "└" : value >= top ? "┘" : "┴", style: Self.scaleStyle))
            let label = Self.decibels(value)
            let labelX = max(ticks.x, min(x - label.count / 2, bar.maxX - label.count))
            if labelX >= nextFree {
                _ = buffer.put(label, x: labelX, y: ticks.y + 1, style: Self.scaleStyle)
                nextFree = labelX + label.count + 1
            }
            value += 10
        }
        for x in bar.x..<bar.maxX where buffer.cell(x: x, y: ticks.y)?.scalar == " " {
            buffer.set(x: x, y: ticks.y, Cell("─", style: Self.scaleStyle))
        }
        _ = buffer.put(unit.rawValue, x: bar.maxX + 1, y: ticks.y + 1, style: Self.scaleStyle)
    }
}
