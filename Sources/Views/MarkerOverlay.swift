import Signals
import Terminal
import ViewModels

/// Draws the plot's markers over the trace (a numbered ◆ at each marker's
/// level) and their table: in a pane right of the plot on a wide screen,
/// in the plot's top-right corner otherwise.
enum MarkerOverlay {
    static let markerStyle = CellStyle(foreground: .rgb(80, 220, 255), attributes: .bold)
    static let tableStyle = CellStyle(foreground: .rgb(235, 235, 235), background: .rgb(20, 40, 70))
    static let titleStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(40, 90, 150), attributes: .bold)
    static let paneStyle = CellStyle(foreground: .rgb(220, 220, 220))
    /// the allocation a marker falls in, on the line under it
    static let allocationStyle = CellStyle(foreground: .rgb(150, 190, 150))
    /// the pane's width [cells]: the longest line ("▸N2 2.441234 GHz  −123.45 dBm/Hz") and a margin
    static let paneWidth = 34
    /// the narrowest screen that gets the pane; narrower ones keep the whole width for the plot
    static let paneMinimumScreenWidth = 110

    /// Whether the table takes a pane beside the plot in `area` (it holds e's measurement too, when shown).
    static func wantsPane(_ markers: MarkerSet, measuring: Bool = false, area: Rect) -> Bool {
        (!markers.isEmpty || measuring) && area.width >= paneMinimumScreenWidth
    }

    /// Splits `area` into the plot's part and the pane's.
    static func split(_ area: Rect) -> (plot: Rect, pane: Rect) {
        let plot = Rect(x: area.x, y: area.y, width: area.width - paneWidth, height: area.height)
        return (plot, Rect(x: plot.maxX, y: area.y, width: paneWidth, height: area.height))
    }

    /// The marks on the trace, and the table in the plot's corner unless `pane` is given.
    /// - Parameter bandPlan: names, under each marker's line, the allocation it falls in
    /// - Parameter measurement: e's measurement, its table in the pane under the markers'
    static func draw(_ markers: MarkerSet, frame: SpectrumFrame?, plot: SpectrumPlotModel, unit: PowerUnit, data: Rect,
                     pane: Rect? = nil, bandPlan: BandPlan? = nil, measurement: BenchMeasurementModel? = nil,
                     into buffer: inout Buffer) {
        if let pane {
            if let measurement, measurement.kind != nil {
                buffer.fill(pane, with: Cell(" ", style: paneStyle))
                // the markers' part first (a title and its lines), the measurement below it
                let markerRows = markers.isEmpty ? 0 : min(pane.height / 2, 3 + tableLineCount(markers, bandPlan: bandPlan))
                if markerRows > 0 {
                    drawPane(markers, frame: frame, unit: unit, bandPlan: bandPlan,
                             in: Rect(x: pane.x, y: pane.y, width: pane.width, height: markerRows), help: false, into: &buffer)
                }
                MeasurementOverlay.drawSection(measurement, unit: unit,
                                               in: Rect(x: pane.x, y: pane.y + markerRows, width: pane.width,
                                                        height: pane.height - markerRows), into: &buffer)
            } else {
                drawPane(markers, frame: frame, unit: unit, bandPlan: bandPlan, in: pane, into: &buffer)
            }
        }
        guard !markers.isEmpty, let frame, data.width > 2, data.height > 2 else { return }
        let scale = plot.frequencyScale
        let band = scale.band
        let span = plot.referenceLevelDB - plot.bottomLevelDB
        for (index, marker) in markers.markers.enumerated() where band.lowerHz <= marker.hz && marker.hz <= band.upperHz {
            // the column the trace draws the marker's frequency in (linear or logarithmic axis)
            let x = data.x + max(0, min(data.width - 1, scale.column(ofHz: marker.hz, of: data.width)))
            let level = Double(markers.level(at: marker.hz, frame))
            let fraction = level.isFinite && span > 0 ? (plot.referenceLevelDB - level) / span : 1
            let y = data.y + max(0, min(data.height - 1, Int(fraction * Double(data.height))))
            buffer.set(x: x, y: y, Cell("◆", style: markerStyle))
            if y > data.y { _ = buffer.put("\(index + 1)", x: x, y: y - 1, style: markerStyle) }
        }
        guard pane == nil else { return }
        let lines = tableLines(markers, frame: frame, unit: unit, bandPlan: bandPlan).map(\.text)
        let width = min(data.width, (lines.map { $0.unicodeScalars.count }.max() ?? 0) + 2)
        let left = data.x + data.width - width
        for (row, line) in lines.enumerated() where row < data.height {
            buffer.fill(Rect(x: left, y: data.y + row, width: width, height: 1), with: Cell(" ", style: tableStyle))
            _ = buffer.put(line, x: left + 1, y: data.y + row, style: tableStyle)
        }
    }

    /// The table in a pane of its own: a title, one marker per line, what the keys do.
    private static func drawPane(_ markers: MarkerSet, frame: SpectrumFrame?, unit: PowerUnit, bandPlan: BandPlan?,
                                 in pane: Rect, help showsHelp: Bool = true, into buffer: inout Buffer) {
        guard pane.width > 4, pane.height > 0 else { return }
        buffer.fill(pane, with: Cell(" ", style: paneStyle))
        buffer.fill(Rect(x: pane.x, y: pane.y, width: pane.width, height: 1), with: Cell(" ", style: titleStyle))
        _ = buffer.put(" markers \(markers.markers.count) of \(MarkerSet.maximumCount)", x: pane.x, y: pane.y,
                       style: titleStyle)
        let lines = frame.map { tableLines(markers, frame: $0, unit: unit, bandPlan: bandPlan) } ?? []
        var row = pane.y + 2
        for line in lines where row < pane.maxY {
            let style = line.isAllocation ? allocationStyle : line.marker == markers.selected ? markerStyle : paneStyle
            _ = buffer.put(line.text, x: pane.x + 1, y: row, style: style)
            row += 1
        }
        let help = showsHelp ? ["n/N next peak →/←", "M next marker, x delta/noise", "m highest peak"] : []
        for (index, line) in help.enumerated() {
            let y = pane.maxY - help.count + index
            if y > row { _ = buffer.put(line, x: pane.x + 1, y: y, style: AnalyzerScreen.helpStyle) }
        }
    }

    /// How many lines the marker table takes (a marker's, and up to two allocations each with a band plan).
    private static func tableLineCount(_ markers: MarkerSet, bandPlan: BandPlan?) -> Int {
        markers.markers.reduce(0) { count, marker in
            count + 1 + (bandPlan.map { min(2, $0.enclosingAllocations(at: marker.hz).count) } ?? 0)
        }
    }

    /// The marker table's lines, each marker's followed (with a band plan) by
    /// the allocations it falls in, a line each, narrowest first: "    in VOR",
    /// "    in Aeronautical radionavigation" (at most two), cut to the pane.
    static func tableLines(_ markers: MarkerSet, frame: SpectrumFrame, unit: PowerUnit,
                           bandPlan: BandPlan?) -> [(text: String, marker: Int, isAllocation: Bool)] {
        var lines: [(text: String, marker: Int, isAllocation: Bool)] = []
        for (index, line) in markers.table(frame: frame, unit: unit).enumerated() {
            lines.append((line, index, false))
            guard let bandPlan, index < markers.markers.count else { continue }
            // the narrowest allocation, then the next wider one holding the marker too, a line each
            for allocation in bandPlan.enclosingAllocations(at: markers.markers[index].hz).prefix(2) {
                let text = "    in " + allocation.label
                let room = paneWidth - 2
                let fitted = text.unicodeScalars.count <= room ? text
                    : String(String.UnicodeScalarView(text.unicodeScalars.prefix(room - 1))) + "…"
                lines.append((fitted, index, true))
            }
        }
        return lines
    }
}
