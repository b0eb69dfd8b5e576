import Signals
import Terminal
import ViewModels

/// Draws the occupancy view: frequency across on the plot's band, and for
/// each column a bar as tall as the share of sweeps its busiest bin was
/// occupied (0–100 % up the level axis), coloured by that share on the
/// upper part of `PowerColorMap` (blue for rare, red and white for always);
/// a column measured but never busy shows one grey pixel row at 0 %. Columns with nothing measured stay empty. Storage
/// is allocated when the layout changes; a steady redraw allocates nothing.
public final class OccupancyView {
    private var layout = PlotLayout(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private var canvas = HalfBlockCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    /// PowerColorMap's table as terminal colours
    private let colors: [Color] = PowerColorMap.table.map { Color.rgb($0.red, $0.green, $0.blue) }
    private var drawnAxes: (scale: FrequencyScale, area: Rect)?
    /// the bottom pixel of a column measured but never busy
    static let neverBusy = Color.rgb(90, 90, 90)

    public init() {}

    public func invalidate() { drawnAxes = nil }

    static func layout(in area: Rect) -> PlotLayout { PlotLayout(area: area) }

    /// The bars' rect inside `area` (for the mouse).
    static func dataRect(in area: Rect) -> Rect { layout(in: area).plot }

    /// - Parameter logFrequency: columns on a logarithmic frequency axis (`FrequencyScale`)
    public func render(occupancy: OccupancyTraceModel, band: FrequencyRange, logFrequency: Bool = false, in area: Rect,
                       into buffer: inout Buffer) {
        let scale = FrequencyScale(band: band, logarithmic: logFrequency)
        let size = Self.layout(in: area)
        if size != layout || canvas.area != size.plot {
            layout = size
            canvas = HalfBlockCanvas(area: size.plot)
            drawnAxes = nil
        }
        if drawnAxes.map({ $0.scale != scale || $0.area != area }) ?? true {
            buffer.fill(area, with: .blank)
            if layout.showsAxes {
                SpectrumPlotView.drawLevelAxis(bottomDB: 0, topDB: 100, in: layout.levelAxis, into: &buffer)
                FrequencyAxis.draw(scale: scale, layout: layout, cornerLabel: "%", into: &buffer)
            }
            drawnAxes = (scale, area)
        }
        guard !layout.plot.isEmpty else { return }
        let columns = canvas.pixelWidth, rows = canvas.pixelHeight
        let top = PowerColorMap.tableSize - 1
        for x in 0..<columns {
            let share = occupancy.peak(from: scale.lowerHz(ofColumn: x, of: columns),
                                       to: scale.lowerHz(ofColumn: x + 1, of: columns))
            // pixel rows lit from the bottom: at least one for any share above 0, and for a share of 0 one in
            // grey, so that "measured, never busy" differs from "not measured"
            let lit = share.isNaN ? 0 : max(1, Int((share * Double(rows)).rounded()))
            // from the palette's blue (a little) to its red and white (all the time): the darker colours
            // below blue would hide a rarely busy channel
            let level = Float(PowerColorMap.blueLevel + (1 - PowerColorMap.blueLevel) * (share.isNaN ? 0 : share))
            let color = share.isNaN ? Color.default
                : share <= 0 ? Self.neverBusy : colors[min(PowerColorMap.index(normalized: level), top)]
            for y in 0..<rows { canvas.set(x: x, y: y, color: y >= rows - lit ? color : .default) }
        }
        canvas.render(into: &buffer)
    }
}
