import Signals
import Terminal
import ViewModels

/// Draws the power meter: a line with the band and min/max/peak, a large
/// readout in big digits (plain text where the terminal is too small), and
/// one bar across the full width whose height and colour both follow the
/// reading over the plot's dB window, with a peak-hold tick.
public final class PowerMeterView {
    static let infoStyle = CellStyle(foreground: .rgb(200, 200, 200))
    static let readoutStyle = CellStyle(foreground: .rgb(255, 255, 255), attributes: [.bold])
    static let scaleStyle = CellStyle(foreground: .rgb(150, 150, 150))
    /// the bar uses the colour map from blue (1/6) to red (5/6): higher is
    /// brighter, more saturated and nearer red; the map's white top would
    /// read as less saturated
    static let colorRange: ClosedRange<Float> = (1.0 / 6)...(5.0 / 6)

    public init() {}

    /// Where the readout and the bar go inside `area`.
    struct Layout {
        var info: Rect
        var readout: Rect
        var bar: Rect

        init(area: Rect) {
            info = Rect(x: area.x, y: area.y, width: area.width, height: min(1, area.height))
            let bigEnough = area.height >= BigDigits.height + 4 && area.width >= 30
            let readoutHeight = bigEnough ? BigDigits.height + 1 : min(1, max(0, area.height - 1))
            readout = Rect(x: area.x, y: area.y + 1, width: area.width, height: readoutHeight)
            bar = Rect(x: area.x, y: readout.maxY, width: area.width, height: area.maxY - readout.maxY)
        }
    }

    /// The rect a click pauses in (the whole meter).
    static func dataRect(in area: Rect) -> Rect { area }

    /// - Parameter unit: "dB", or "dBm" for a calibrated analyzer
    public func render(meter: PowerMeterModel, band: FrequencyRange, bottomDB: Double, topDB: Double,
                       unit: String = "dB", in area: Rect, into buffer: inout Buffer) {
        buffer.fill(area, with: .blank)
        let layout = Layout(area: area)
        var info = " band \(band)"
        if let minimum = meter.minimum, let maximum = meter.maximum {
            info += "   min \(Self.decibels(minimum))   max \(Self.decibels(maximum))"
        }
        if let peak = meter.peak { info += "   peak \(Self.decibels(peak)) \(unit)" }
        info += "   (r resets)"
        _ = buffer.put(info, x: layout.info.x, y: layout.info.y, style: Self.infoStyle)

        let text = meter.reading.map { Self.decibels($0) } ?? "---"
        if layout.readout.height > 1 {
            let width = BigDigits.width(of: text) + 4
            let x = layout.readout.x + max(0, (layout.readout.width - width) / 2)
            let end = BigDigits.draw(text, x: x, y: layout.readout.y, style: Self.readoutStyle, into: &buffer)
            _ = buffer.put(unit, x: end + 2, y: layout.readout.y + BigDigits.height - 1, style: Self.readoutStyle)
        } else if layout.readout.height == 1 {
            _ = buffer.put(" \(text) \(unit)", x: layout.readout.x, y: layout.readout.y, style: Self.readoutStyle)
        }
        drawBar(meter: meter, bottomDB: bottomDB, topDB: topDB, in: layout.bar, into: &buffer)
    }

    /// "-23.4": one decimal
    static func decibels(_ value: Double) -> String { FrequencyFormat.trimmed(value, maxFractionDigits: 1) }

    /// Fraction of the dB window `value` reaches, clamped to 0…1.
    static func fraction(_ value: Double, bottomDB: Double, topDB: Double) -> Double {
        guard topDB > bottomDB, value.isFinite else { return 0 }
        return min(max((value - bottomDB) / (topDB - bottomDB), 0), 1)
    }

    private func drawBar(meter: PowerMeterModel, bottomDB: Double, topDB: Double, in bar: Rect,
                         into buffer: inout Buffer) {
        guard !bar.isEmpty, let reading = meter.reading else { return }
        let level = Self.fraction(reading, bottomDB: bottomDB, topDB: topDB)
        let range = Self.colorRange
        let rgb = PowerColorMap.color(normalized: range.lowerBound + Float(level) * (range.upperBound - range.lowerBound))
        let color = Color.rgb(rgb.red, rgb.green, rgb.blue)
        // height in half cells, from the bottom; a cell with only its lower half lit is '▄'
        let halves = Int((level * Double(bar.height * 2)).rounded())
        for row in 0..<((halves + 1) / 2) {
            let glyph: Unicode.Scalar = 2 * row + 2 <= halves ? "█" : "▄"
            buffer.fill(Rect(x: bar.x, y: bar.maxY - 1 - row, width: bar.width, height: 1),
                        with: Cell(glyph, style: CellStyle(foreground: color)))
        }
        if let peak = meter.peak {
            // the tick: a line at the top of the cell holding the peak, over the bar where they meet
            let peakHalves = Int((Self.fraction(peak, bottomDB: bottomDB, topDB: topDB) * Double(bar.height * 2))
                .rounded())
            let row = max(0, peakHalves - 1) / 2
            let underTick: Color = 2 * row + 2 <= halves ? color : .default
            buffer.fill(Rect(x: bar.x, y: bar.maxY - 1 - row, width: bar.width, height: 1),
                        with: Cell("▔", style: CellStyle(foreground: .rgb(255, 255, 255), background: underTick,
                                                        attributes: [.bold])))
        }
        // dB scale at the left edge of the bar: top and bottom of the window
        _ = buffer.put(Self.decibels(topDB), x: bar.x, y: bar.y, style: Self.scaleStyle)
        if bar.height > 1 { _ = buffer.put(Self.decibels(bottomDB), x: bar.x, y: bar.maxY - 1, style: Self.scaleStyle) }
    }
}
