import Signals
import Terminal
import ViewModels

/// Draws the plot's markers over the trace (a numbered ◆ at each marker's
/// level) and their table in the plot's top-right corner.
enum MarkerOverlay {
    static let markerStyle = CellStyle(foreground: .rgb(80, 220, 255), attributes: .bold)
    static let tableStyle = CellStyle(foreground: .rgb(235, 235, 235), background: .rgb(20, 40, 70))

    static func draw(_ markers: MarkerSet, frame: SpectrumFrame?, plot: SpectrumPlotModel, unit: String, data: Rect,
                     into buffer: inout Buffer) {
        guard !markers.isEmpty, let frame, data.width > 2, data.height > 2 else { return }
        let band = plot.visibleBand
        let span = plot.referenceLevelDB - plot.bottomLevelDB
        for (index, marker) in markers.markers.enumerated() where band.lowerHz <= marker.hz && marker.hz <= band.upperHz {
            let x = data.x + min(data.width - 1, Int((marker.hz - band.lowerHz) / band.spanHz * Double(data.width)))
            let level = Double(markers.level(at: marker.hz, frame))
            let fraction = level.isFinite && span > 0 ? (plot.referenceLevelDB - level) / span : 1
            let y = data.y + max(0, min(data.height - 1, Int(fraction * Double(data.height))))
            buffer.set(x: x, y: y, Cell("◆", style: markerStyle))
            if y > data.y { _ = buffer.put("\(index + 1)", x: x, y: y - 1, style: markerStyle) }
        }
        let lines = markers.table(frame: frame, unit: unit)
        let width = min(data.width, (lines.map { $0.unicodeScalars.count }.max() ?? 0) + 2)
        let left = data.x + data.width - width
        for (row, line) in lines.enumerated() where row < data.height {
            buffer.fill(Rect(x: left, y: data.y + row, width: width, height: 1), with: Cell(" ", style: tableStyle))
            _ = buffer.put(line, x: left + 1, y: data.y + row, style: tableStyle)
        }
    }
}
