import Foundation
import Signals

/// One text label drawn around the picture, and the pixels it covers.
struct WaterfallLabel: Sendable, Equatable {
    var text: String
    var x: Int
    var y: Int
    var width: Int { BitmapFont.width(text) }
    var height: Int { BitmapFont.glyphHeight }

    func overlaps(_ other: WaterfallLabel) -> Bool {
        x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
    }
}

/// The labels around a waterfall picture: a title line, frequency ticks and
/// labels above the plot, UTC times left of it, the colour scale right with
/// its unit. The margins are wide enough for the widest label, and every
/// label is placed so none is clipped or overlaps another; `draw` returns
/// them so tests can check that.
struct WaterfallAxes {
    /// plot area: top-left corner [px], data rows and columns, and how many
    /// pixel rows each data row is drawn as (a short capture is stretched)
    let left: Int
    let top: Int
    let columns: Int
    let rows: Int
    let rowHeight: Int

    static let tickLength = 3
    /// aim for a frequency label about every this many pixels
    static let labelSpacing = 110
    /// least distance between two time labels [px]
    static let timeSpacing = 40
    static let barWidth = 10
    /// gap between plot and colour bar, and between bar and its labels [px]
    static let barGap = 6
    static let barLabelGap = 3
    /// the unit of the colour scale: "dB", or "dBm" for a capture in dBm
    var unit = PowerUnit.dB
    /// frequency across on a logarithmic axis (`FrequencyScale`): ticks at 1-2-5 × 10ⁿ
    var logFrequency = false

    /// how [lowHz, highHz] lies across the columns
    func scale(lowHz: Double, highHz: Double) -> FrequencyScale? {
        FrequencyRange(lowerHz: lowHz, upperHz: highHz).map { FrequencyScale(band: $0, logarithmic: logFrequency) }
    }

    /// plot height [px]
    var height: Int { rows * rowHeight }

    /// Left margin that holds a time label ("HH:MM:SS") or a date under it ("YYYY-MM-DD").
    static var leftMargin: Int { BitmapFont.width("0000-00-00") + tickLength + 4 }
    static let topMargin = 30
    static let bottomMargin = 6

    /// Right margin that holds the colour bar and its widest label.
    static func rightMargin(floorDB: Float, topDB: Float, unit: PowerUnit = .dB) -> Int {
        let widest = [floorDB, topDB, (floorDB + topDB) / 2].map { BitmapFont.width(decibels($0)) }.max() ?? 0
        return barGap + barWidth + barLabelGap + max(widest, BitmapFont.width(unit.rawValue)) + 4
    }

    @discardableResult
    func draw(into image: inout RGBImage, title: String, lowHz: Double, highHz: Double, rowTimes: [Double],
              floorDB: Float, topDB: Float) -> [WaterfallLabel] {
        var labels: [WaterfallLabel] = []
        let firstTime = rowTimes.first { !$0.isNaN }
        let dated = firstTime.map { title + "  " + Self.date(Int($0.rounded(.down))) + " UTC" } ?? title
        labels.append(WaterfallLabel(text: Self.fitted(dated, width: image.width - 4), x: 2, y: 2))
        labels += frequencyLabels(into: &image, lowHz: lowHz, highHz: highHz)
        labels += timeLabels(into: &image, rowTimes: rowTimes)
        labels += colorBar(into: &image, floorDB: floorDB, topDB: topDB)
        for label in labels { image.draw(label.text, x: label.x, y: label.y, color: PNGWaterfallExporter.ink) }
        return labels
    }

    /// `text` cut to `width` pixels, ".." marking the cut.
    static func fitted(_ text: String, width: Int) -> String {
        guard BitmapFont.width(text) > width else { return text }
        var cut = text
        while !cut.isEmpty && BitmapFont.width(cut + "..") > width { cut.removeLast() }
        return cut + ".."
    }

    /// A "nice" step (1, 2 or 5 × 10^k) at least `minimum`.
    static func niceStep(atLeast minimum: Double) -> Double {
        guard minimum.isFinite, minimum > 0 else { return 1 }
        let power = pow(10, (log10(minimum)).rounded(.down))
        for multiple in [1.0, 2, 5, 10] where multiple * power >= minimum { return multiple * power }
        return 10 * power
    }

    /// Ticks above the plot and their labels, each inside the picture and
    /// apart from its neighbours (a label that would not fit is left out).
    private func frequencyLabels(into image: inout RGBImage, lowHz: Double, highHz: Double) -> [WaterfallLabel] {
        let span = highHz - lowHz
        let wanted = max(1, columns / Self.labelSpacing)
        let step = Self.niceStep(atLeast: span / Double(wanted))
        guard let scale = self.scale(lowHz: lowHz, highHz: highHz) else { return [] }
        // a logarithmic axis: 1-2-5 × 10ⁿ (fewer on many decades), labels about 60 px apart
        var logTicks = scale.isLogarithmic ? scale.logTicks(targetCount: max(2, columns / 60)) : []
        var tick = scale.isLogarithmic ? (logTicks.isEmpty ? .infinity : logTicks.removeFirst()) : (lowHz / step).rounded(.up) * step
        var labels: [WaterfallLabel] = []
        var lastLabelEnd = Int.min
        while tick <= highHz {
            defer {
                if scale.isLogarithmic { tick = logTicks.isEmpty ? .infinity : logTicks.removeFirst() } else { tick += step }
            }
            let x = left + max(0, min(columns - 1, scale.column(ofHz: tick, of: columns)))
            for y in (top - Self.tickLength)..<top { image.set(min(x, left + columns - 1), y, PNGWaterfallExporter.ink) }
            let text = FrequencyFormat.label(tick, maxFractionDigits: 6)
            let width = BitmapFont.width(text)
            // ends by the colour bar, well short of the unit over its values
            let labelX = min(max(x - width / 2, 0), left + columns + Self.barGap - width)
            if labelX > lastLabelEnd + 6 {
                labels.append(WaterfallLabel(text: text, x: labelX, y: top - Self.tickLength - BitmapFont.glyphHeight - 2))
                lastLabelEnd = labelX + width
            }
        }
        return labels
    }

    /// UTC times left of the plot at the top of their row, at least
    /// `timeSpacing` px apart and inside the plot's height; a new day's date
    /// under its time.
    private func timeLabels(into image: inout RGBImage, rowTimes: [Double]) -> [WaterfallLabel] {
        var labels: [WaterfallLabel] = []
        var nextFree = top
        var lastDay = Int.min
        for row in 0..<rows where !rowTimes[row].isNaN {
            let y = top + row * rowHeight
            let labelY = min(max(y - BitmapFont.glyphHeight / 2, top), top + height - BitmapFont.glyphHeight)
            guard labelY >= nextFree else { continue }
            let seconds = Int(saturating: rowTimes[row].rounded(.down))
            let day = seconds.quotientFloor(86_400)
            let text = Self.clock(seconds)
            for x in (left - Self.tickLength)..<left { image.set(x, y, PNGWaterfallExporter.ink) }
            labels.append(WaterfallLabel(text: text, x: left - Self.tickLength - 2 - BitmapFont.width(text), y: labelY))
            nextFree = labelY + max(Self.timeSpacing, BitmapFont.glyphHeight + 2)
            let dateY = labelY + BitmapFont.glyphHeight + 2
            if day != lastDay && lastDay != Int.min && dateY + BitmapFont.glyphHeight <= top + height {
                // a new day: its date under the time
                labels.append(WaterfallLabel(text: Self.date(seconds), x: 0, y: dateY))
                nextFree = max(nextFree, dateY + BitmapFont.glyphHeight + 2)
            }
            lastDay = day
        }
        return labels
    }

    /// The colour bar right of the plot, loudest at the top; beside it the
    /// top, middle and floor values with their unit over them (in the
    /// frequency labels' row).
    private func colorBar(into image: inout RGBImage, floorDB: Float, topDB: Float) -> [WaterfallLabel] {
        let x0 = left + columns + Self.barGap
        for y in 0..<height {
            let level = height > 1 ? 1 - Float(y) / Float(height - 1) : 1
            let color = PowerColorMap.color(normalized: level)
            for x in x0..<(x0 + Self.barWidth) { image.set(x, top + y, color) }
        }
        let labelX = x0 + Self.barWidth + Self.barLabelGap
        var labels = [
            WaterfallLabel(text: unit.rawValue, x: labelX, y: top - Self.tickLength - BitmapFont.glyphHeight - 2),
            WaterfallLabel(text: Self.decibels(topDB), x: labelX, y: top),
            WaterfallLabel(text: Self.decibels(floorDB), x: labelX, y: top + height - BitmapFont.glyphHeight),
        ]
        let middle = WaterfallLabel(text: Self.decibels((floorDB + topDB) / 2), x: labelX,
                                    y: top + height / 2 - BitmapFont.glyphHeight / 2)
        if !labels.contains(where: { $0.overlaps(middle) }) { labels.append(middle) }
        return labels
    }

    /// a colour-bar value [dB]; the unit stands above the bar
    static func decibels(_ value: Float) -> String { String(format: "%.1f", value) }

    /// "HH:MM:SS" UTC
    static func clock(_ seconds: Int) -> String {
        let inDay = seconds - seconds.quotientFloor(86_400) * 86_400
        return String(format: "%02d:%02d:%02d", inDay / 3600, inDay / 60 % 60, inDay % 60)
    }

    /// "YYYY-MM-DD" UTC
    static func date(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }
}
