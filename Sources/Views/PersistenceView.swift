import DSP
import Signals
import Terminal
import ViewModels

/// Draws the persistence (density) view: frequency across and level down on
/// the plot's axes (its band and dB window), each half-block pixel coloured
/// by how often the spectrum landed there over the persistence time —
/// log10 of the density from 0.1 % to 100 % of the frames over the upper
/// part of `PowerColorMap` — and a colour bar at the right labelled in
/// percent of the time. A cell rarer than 0.1 % stays background.
///
/// The view sets the histogram's geometry (one column per cell, two rows per
/// cell, the plot's band and window) as it draws; storage is allocated when
/// the layout changes, so a steady redraw allocates nothing.
public final class PersistenceView {
    static let axisStyle = FrequencyAxis.style
    /// densities labelled on the colour bar [fraction of frames]
    static let legendDensities: [Float] = [1, 0.1, 0.01, 0.001]

    private var layout = PlotLayout(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private var canvas = HalfBlockCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private var legendCanvas = HalfBlockCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    /// one column's densities, top row first, reused
    private var columnDensities: [Float] = []
    /// PowerColorMap's table as terminal colours
    private let colors: [Color] = PowerColorMap.table.map { Color.rgb($0.red, $0.green, $0.blue) }
    private var drawnAxesKey: AxesKey?

    public init() {}

    public func invalidate() { drawnAxesKey = nil }

    static func layout(in area: Rect) -> PlotLayout { PlotLayout(area: area, legendWidth: PlotLayout.legendWidth) }

    /// The image's rect inside `area` (for the mouse).
    static func dataRect(in area: Rect) -> Rect { layout(in: area).plot }

    /// The histogram geometry the view draws in `area` for `plot`'s band and window.
    static func geometry(in area: Rect, plot: SpectrumPlotModel) -> PersistenceGeometry {
        let data = layout(in: area).plot
        return PersistenceGeometry(columns: data.width, rows: data.height * 2, band: plot.visibleBand,
                                   bottomDB: plot.bottomLevelDB, topDB: plot.referenceLevelDB,
                                   logFrequency: plot.frequencyScale.isLogarithmic)
    }

    /// Renders `persistence` for `plot`'s band and dB window into `area`,
    /// setting the histogram's geometry first (a new band, window or size
    /// starts it again). `unit` labels the level axis ("dB", "dBm").
    public func render(persistence: PersistenceModel, plot: SpectrumPlotModel, unit: PowerUnit = .dB, in area: Rect,
                       into buffer: inout Buffer) {
        let size = Self.layout(in: area)
        if size != layout || canvas.area != size.plot {
            layout = size
            canvas = HalfBlockCanvas(area: size.plot)
            legendCanvas = HalfBlockCanvas(area: Rect(x: size.legend.x + 1, y: size.legend.y,
                                                      width: min(2, size.legend.width), height: size.legend.height))
            columnDensities = Array(repeating: 0, count: size.plot.height * 2)
            drawnAxesKey = nil
        }
        persistence.configure(Self.geometry(in: area, plot: plot))
        let axesKey = AxesKey(scale: plot.frequencyScale, top: plot.referenceLevelDB, bottom: plot.bottomLevelDB,
                              area: area, unit: unit)
        if axesKey != drawnAxesKey {
            buffer.fill(area, with: .blank)
            if layout.showsAxes {
                SpectrumPlotView.drawLevelAxis(bottomDB: plot.bottomLevelDB, topDB: plot.referenceLevelDB,
                                               in: layout.levelAxis, into: &buffer)
                FrequencyAxis.draw(scale: plot.frequencyScale, layout: layout, cornerLabel: unit.rawValue, into: &buffer)
                drawLegend(into: &buffer)
            }
            drawnAxesKey = axesKey
        }
        guard !layout.plot.isEmpty else { return }
        let top = PowerColorMap.tableSize - 1
        columnDensities.withUnsafeMutableBufferPointer { densities in
            for x in 0..<canvas.pixelWidth {
                persistence.densities(column: x, into: densities)
                for y in 0..<densities.count {
                    guard let level = PersistenceModel.paletteLevel(density: densities[y]) else {
                        canvas.set(x: x, y: y, color: .default)
                        continue
                    }
                    canvas.set(x: x, y: y, color: colors[min(PowerColorMap.index(normalized: level), top)])
                }
            }
        }
        canvas.render(into: &buffer)
    }

    /// The colour bar: 100 % at the top of the image, 0.1 % at its bottom on
    /// the same log scale and colours as the image, labelled in percent of
    /// the time to its right, "time" below.
    private func drawLegend(into buffer: inout Buffer) {
        let area = layout.legend
        guard area.width >= 4, area.height >= 2 else { return }
        let pixelRows = legendCanvas.pixelHeight
        let lowest = PersistenceModel.lowestPaletteLevel
        let top = PowerColorMap.tableSize - 1
        for y in 0..<pixelRows {
            // pixel row y's centre, as a palette level between the bar's ends
            let fraction = Float(1 - (Double(y) + 0.5) / Double(pixelRows))
            let level = lowest + (1 - lowest) * fraction
            let color = colors[min(PowerColorMap.index(normalized: level), top)]
            for x in 0..<legendCanvas.pixelWidth { legendCanvas.set(x: x, y: y, color: color) }
        }
        legendCanvas.render(into: &buffer)
        let labelX = area.x + 3
        var lastRow = -2
        for density in Self.legendDensities {
            // the row whose band of the bar holds this density (the lowest on the last row)
            let fraction = Double(PersistenceModel.logFraction(density: density))
            let row = min(Int(((1 - fraction) * Double(area.height)).rounded(.down)), area.height - 1)
            guard row > lastRow + 1 || lastRow < 0 else { continue }  // no label crowding the one above
            _ = buffer.put(Self.percent(density), x: labelX, y: area.y + row, style: Self.axisStyle)
            lastRow = row
        }
        _ = buffer.put("time", x: labelX - 1, y: area.maxY + 1, style: Self.axisStyle)
    }

    /// "100%", "10%", "1%", "0.1%"
    static func percent(_ density: Float) -> String {
        let value = Double(density) * 100
        return FrequencyFormat.trimmed(value, maxFractionDigits: value < 1 ? 1 : 0) + "%"
    }
}

/// What the axes and legend were drawn for.
private struct AxesKey: Equatable {
    var scale: FrequencyScale
    var top: Double
    var bottom: Double
    var area: Rect
    var unit: PowerUnit
}
