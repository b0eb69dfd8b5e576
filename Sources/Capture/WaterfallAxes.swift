import Foundation
import Signals

/// The labels around a waterfall picture: a title line, frequency ticks and
/// labels above the plot, UTC times left of it, the colour scale right.
struct WaterfallAxes {
    /// plot area: top-left corner and size [px]
    let left: Int
    let top: Int
    let columns: Int
    let rows: Int

    static let tickLength = 3
    /// aim for a frequency label about every this many pixels
    static let labelSpacing = 110
    static let barWidth = 10

    func draw(into image: inout RGBImage, title: String, lowHz: Double, highHz: Double, rowTimes: [Double],
              floorDB: Float, topDB: Float) {
        let ink = PNGWaterfallExporter.ink
        let firstTime = rowTimes.first { !$0.isNaN }
        let dated = firstTime.map { title + "  " + Self.date(Int($0.rounded(.down))) + " UTC" } ?? title
        image.draw(dated, x: 2, y: 2, color: ink)
        drawFrequencyAxis(into: &image, lowHz: lowHz, highHz: highHz)
        drawTimeAxis(into: &image, rowTimes: rowTimes)
        drawColorBar(into: &image, floorDB: floorDB, topDB: topDB)
    }

    /// A "nice" step (1, 2 or 5 × 10^k) at least `minimum`.
    static func niceStep(atLeast minimum: Double) -> Double {
        guard minimum.isFinite, minimum > 0 else { return 1 }
        let power = pow(10, (log10(minimum)).rounded(.down))
        for multiple in [1.0, 2, 5, 10] where multiple * power >= minimum { return multiple * power }
        return 10 * power
    }

    private func drawFrequencyAxis(into image: inout RGBImage, lowHz: Double, highHz: Double) {
        let span = highHz - lowHz
        let wanted = max(1, columns / Self.labelSpacing)
        let step = Self.niceStep(atLeast: span / Double(wanted))
        var tick = (lowHz / step).rounded(.up) * step
        var lastLabelEnd = Int.min
        while tick <= highHz {
            let x = left + Int(saturating: ((tick - lowHz) / span * Double(columns)).rounded(.down))
            for y in (top - Self.tickLength)..<top { image.set(min(x, left + columns - 1), y, PNGWaterfallExporter.ink) }
            let label = FrequencyFormat.label(tick, maxFractionDigits: 6)
            let width = BitmapFont.width(label)
            let labelX = min(max(x - width / 2, 0), image.width - width)
            if labelX > lastLabelEnd + 6 {
                image.draw(label, x: labelX, y: top - Self.tickLength - BitmapFont.glyphHeight - 2, color: PNGWaterfallExporter.ink)
                lastLabelEnd = labelX + width
            }
            tick += step
        }
    }

    private func drawTimeAxis(into image: inout RGBImage, rowTimes: [Double]) {
        let spacing = 40
        var row = 0
        var lastDay = Int.min
        while row < rows {
            if !rowTimes[row].isNaN {
                let seconds = Int(saturating: rowTimes[row].rounded(.down))
                let day = seconds.quotientFloor(86_400)
                let label = Self.clock(seconds)
                for x in (left - Self.tickLength)..<left { image.set(x, top + row, PNGWaterfallExporter.ink) }
                let y = min(max(top + row - BitmapFont.glyphHeight / 2, top), top + rows - BitmapFont.glyphHeight)
                image.draw(label, x: left - Self.tickLength - 2 - BitmapFont.width(label), y: max(y, 0),
                           color: PNGWaterfallExporter.ink)
                if day != lastDay && row + 10 < rows && lastDay != Int.min {
                    // a new day: its date under the time
                    image.draw(Self.date(seconds), x: 0, y: y + 9, color: PNGWaterfallExporter.ink)
                }
                lastDay = day
                row += spacing
            } else {
                row += 1
            }
        }
    }

    private func drawColorBar(into image: inout RGBImage, floorDB: Float, topDB: Float) {
        let x0 = left + columns + 6
        for row in 0..<rows {
            let level = rows > 1 ? 1 - Float(row) / Float(rows - 1) : 1
            let color = PowerColorMap.color(normalized: level)
            for x in x0..<(x0 + Self.barWidth) { image.set(x, top + row, color) }
        }
        let labelX = x0 + Self.barWidth + 3
        image.draw(Self.decibels(topDB), x: labelX, y: top, color: PNGWaterfallExporter.ink)
        if rows >= 2 * BitmapFont.glyphHeight + 4 {
            image.draw(Self.decibels(floorDB), x: labelX, y: top + rows - BitmapFont.glyphHeight, color: PNGWaterfallExporter.ink)
        }
        if rows >= 60 {
            image.draw(Self.decibels((floorDB + topDB) / 2), x: labelX, y: top + rows / 2 - BitmapFont.glyphHeight / 2,
                       color: PNGWaterfallExporter.ink)
        }
    }

    static func decibels(_ value: Float) -> String { String(format: "%.1f dB", value) }

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
