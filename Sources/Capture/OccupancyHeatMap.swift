import DSP
import Foundation
import Signals

/// `tscope export --occupancy OUT.png`: occupancy as a picture, channel
/// across and time of day (UTC) down, as monitoring reports show it
/// (Recommendation ITU-R SM.1880 §3.6.3, occupancy by colours): each cell
/// one channel in one slot of the day over every day of the capture, from
/// the quiet colour (0 %) to the loud one (100 %); black where the channel
/// was never measured in that slot. Times of day left, frequencies above,
/// the scale right.
public enum OccupancyHeatMap {
    /// most columns of cells; wider channel lists share a column (their mean occupancy)
    static let maxColumns = 1200
    /// tallest cell and plot [px]
    static let maxCellHeight = 12
    static let targetPlotHeight = 480
    static let barWidth = 10
    static let margin = 6

    public struct Summary: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var columns: Int
        public var slots: Int
    }

    /// Draws `timeOfDay` (slot × channel counts, `OccupancyCounter.timeOfDay`) and writes the PNG.
    public static func write(_ timeOfDay: [[OccupancyChannelCount]], slotSeconds: Double, title: String,
                             to path: String) throws -> Summary {
        guard let channels = timeOfDay.first, !channels.isEmpty else {
            throw CaptureError(file: path, "no channel was counted: no occupancy to draw")
        }
        let (image, summary) = draw(timeOfDay, slotSeconds: slotSeconds, title: title)
        let output = AtomicOutput(target: path)
        do {
            try image.writePNG(path: output.path)
            try output.commit()
        } catch {
            throw output.naming(error)
        }
        return summary
    }

    static func draw(_ timeOfDay: [[OccupancyChannelCount]], slotSeconds: Double,
                     title: String) -> (RGBImage, Summary) {
        let channels = timeOfDay[0]
        let slots = timeOfDay.count
        let perColumn = max(1, (channels.count + maxColumns - 1) / maxColumns)
        let columns = (channels.count + perColumn - 1) / perColumn
        let cellWidth = max(1, min(8, maxColumns / columns))
        let cellHeight = max(1, min(maxCellHeight, targetPlotHeight / slots))
        let plotWidth = columns * cellWidth, plotHeight = slots * cellHeight
        let left = BitmapFont.width("00:00") + 4 + margin
        let top = 2 * (BitmapFont.glyphHeight + 4) + 4
        let scaleLabel = BitmapFont.width("100 %")
        let width = left + plotWidth + margin + barWidth + 3 + scaleLabel + margin
        let height = top + plotHeight + margin
        var image = RGBImage(width: width, height: max(height, top + 3 * BitmapFont.glyphHeight + margin),
                             fill: PNGWaterfallExporter.background)

        // cells: a column's occupancy is the mean over its channels' samples
        for slot in 0..<slots {
            for column in 0..<columns {
                let group = timeOfDay[slot][(column * perColumn)..<min(channels.count, (column + 1) * perColumn)]
                let samples = group.reduce(0) { $0 + $1.samples }
                let color = samples == 0 ? PNGWaterfallExporter.noData
                    : PowerColorMap.color(normalized: Float(Double(group.reduce(0) { $0 + $1.occupied }) / Double(samples)))
                for y in 0..<cellHeight {
                    for x in 0..<cellWidth { image.set(left + column * cellWidth + x, top + slot * cellHeight + y, color) }
                }
            }
        }

        let ink = PNGWaterfallExporter.ink
        image.draw(title, x: 2, y: 2, color: ink)
        // frequencies above: the first channel's lower edge, the last's upper, and the middle if there is room
        let low = channels.first!.range.lowerHz, high = channels.last!.range.upperHz
        let labelY = top - BitmapFont.glyphHeight - 4
        var lastEnd = Int.min
        for (fraction, hz) in [(0.0, low), (0.5, (low + high) / 2), (1.0, high)] {
            let text = FrequencyFormat.label(hz, maxFractionDigits: 6)
            let x = left + Int(fraction * Double(plotWidth))
            let labelX = min(max(x - BitmapFont.width(text) / 2, left), left + plotWidth - BitmapFont.width(text))
            guard labelX > lastEnd + 6 else { continue }
            image.draw(text, x: labelX, y: labelY, color: ink)
            for y in (top - 3)..<top { image.set(min(x, left + plotWidth - 1), y, ink) }
            lastEnd = labelX + BitmapFont.width(text)
        }
        // times of day left, at least two text lines apart
        var nextFree = top
        for slot in 0..<slots {
            let y = top + slot * cellHeight
            guard y >= nextFree else { continue }
            let second = Int((Double(slot) * slotSeconds).rounded())
            image.draw(String(format: "%02d:%02d", second / 3600, second / 60 % 60), x: margin,
                       y: min(y, top + plotHeight - BitmapFont.glyphHeight), color: ink)
            nextFree = y + 2 * (BitmapFont.glyphHeight + 2)
        }
        // the scale right, 100 % at the top
        let barX = left + plotWidth + margin
        for y in 0..<plotHeight {
            let level = plotHeight > 1 ? 1 - Float(y) / Float(plotHeight - 1) : 1
            for x in 0..<barWidth { image.set(barX + x, top + y, PowerColorMap.color(normalized: level)) }
        }
        image.draw("100 %", x: barX + barWidth + 3, y: top, color: ink)
        image.draw("0 %", x: barX + barWidth + 3, y: top + plotHeight - BitmapFont.glyphHeight, color: ink)
        return (image, Summary(width: image.width, height: image.height, columns: columns, slots: slots))
    }
}
