import DSP
import Signals
import Terminal
import ViewModels

/// Draws the instantaneous spectrum: a braille trace of power against
/// frequency, a dB axis on the left and a frequency axis below, inside the
/// area it is given. `render(model:frame:status:into:)` draws a whole screen
/// (status line and key help around it).
///
/// Allocation happens only when the layout, band or levels change; an
/// ordinary new frame redraws the trace into preallocated storage.
public final class SpectrumPlotView {
    /// colour of the trace
    static let traceColor = Color.rgb(255, 214, 10)
    /// colour of a stored reference trace: dim, behind the live one
    static let referenceColor = Color.rgb(110, 110, 130)
    /// colour of the --mask limit line
    static let limitColor = Color.rgb(235, 70, 70)
    static let axisStyle = FrequencyAxis.style
    static let helpStyle = CellStyle(foreground: .rgb(140, 140, 140))
    static let helpText = "←/→ pan   +/- zoom   ↑/↓ gain   a autoscale   space pause   q quit"

    private var layout = PlotLayout(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private var canvas = BrailleCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private let decimator = ColumnDecimator(detector: .peak)
    /// power per pixel column [dB], reused every frame
    private var columns: [Float] = []
    /// what the axes were last drawn for; redraw when it changes
    private var drawnAxesKey: AxesKey?
    private let statusLine = StatusLine()
    private var drawnScreen: ScreenLayout?

    public init() {}

    /// Pixel size the plot area has at this terminal size with the drawer
    /// closed (for the model's tuning request).
    public static func plotPixels(width: Int, height: Int) -> (columns: Int, rows: Int) {
        let screen = ScreenLayout(width: width, height: height, drawerOpen: false)
        let plot = PlotLayout(area: screen.main).plot
        return (plot.width * 2, plot.height * 4)
    }

    /// Forces a full redraw of the static parts on the next render.
    public func invalidate() {
        drawnAxesKey = nil
        drawnScreen = nil
        statusLine.invalidate()
    }

    /// Renders a whole screen: status line, the plot, the key help.
    public func render(model: SpectrumPlotModel, frame: SpectrumFrame?, status: SpectrumStatus,
                       into buffer: inout Buffer) {
        let screen = ScreenLayout(width: buffer.width, height: buffer.height, drawerOpen: false)
        if screen != drawnScreen {
            buffer.clear()
            invalidate()
            drawnScreen = screen
            _ = buffer.put(Self.helpText, x: screen.help.x + 1, y: screen.help.y, style: Self.helpStyle)
        }
        statusLine.draw(.init(status: status, band: model.visibleBand, paused: model.isPaused, viewFacts: nil,
                              row: screen.status), into: &buffer)
        render(model: model, frame: frame, unit: status.powerUnit, in: screen.main, into: &buffer)
    }

    /// Renders the axes and the trace into `area` of `buffer`.
    /// - Parameter unit: the level axis' corner label ("dB", "dBm")
    /// - Parameter limitLine: the --mask limit line, in the levels' unit, drawn in red behind the trace
    func render(model: SpectrumPlotModel, frame: SpectrumFrame?, reference: SpectrumFrame? = nil, unit: PowerUnit = .dB,
                limitLine: [LevelPoint]? = nil, in area: Rect, into buffer: inout Buffer) {
        let size = PlotLayout(area: area)
        if size != layout || canvas.area != size.plot {
            layout = size
            canvas = BrailleCanvas(area: size.plot, color: Self.traceColor)
            columns = [Float](repeating: .nan, count: size.plot.width * 2)
            drawnAxesKey = nil
        }
        let axesKey = AxesKey(scale: model.frequencyScale, top: model.referenceLevelDB,
                              bottom: model.bottomLevelDB, area: area)
        if axesKey != drawnAxesKey {
            buffer.fill(area, with: .blank)
            if layout.showsAxes {
                drawLevelAxis(model: model, into: &buffer)
                FrequencyAxis.draw(scale: model.frequencyScale, layout: layout, cornerLabel: unit.rawValue, into: &buffer)
            }
            drawnAxesKey = axesKey
        }
        drawTrace(model: model, frame: frame, reference: reference, limitLine: limitLine, into: &buffer)
    }

    /// The data rect of the plot inside `area` (for mouse gestures).
    static func dataRect(in area: Rect) -> Rect { PlotLayout(area: area).plot }

    // MARK: parts

    private func drawTrace(model: SpectrumPlotModel, frame: SpectrumFrame?, reference: SpectrumFrame? = nil,
                           limitLine: [LevelPoint]? = nil, into buffer: inout Buffer) {
        // The canvas writes only cells with dots: blank the plot first so the
        // previous frame's trace does not linger where this one has none.
        buffer.fill(layout.plot, with: .blank)
        canvas.clear()
        guard !layout.plot.isEmpty,
              let scale = PowerScale(bottomDB: Float(model.bottomLevelDB), topDB: Float(model.referenceLevelDB),
                                     rows: canvas.pixelHeight) else {
            canvas.render(into: &buffer)
            return
        }
        if let reference {
            // first, dimmed: the live trace drawn after it takes the colour of cells they share
            columns.withUnsafeMutableBufferPointer { out in decimator.process(reference, scale: model.frequencyScale, into: out) }
            plotColumns(scale: scale, color: Self.referenceColor)
        }
        if let limitLine {
            // the limit at each column's centre frequency, through the axis' own column ↔ frequency function
            let axis = model.frequencyScale
            columns.withUnsafeMutableBufferPointer { out in
                for x in 0..<out.count {
                    out[x] = LevelPoint.interpolate(limitLine, at: axis.centerHz(ofColumn: x, of: out.count))
                }
            }
            plotColumns(scale: scale, color: Self.limitColor)
        }
        if let frame {
            columns.withUnsafeMutableBufferPointer { out in
                decimator.process(frame, scale: model.frequencyScale, into: out)
            }
        } else {
            columns.withUnsafeMutableBufferPointer { $0.update(repeating: .nan) }
        }
        plotColumns(scale: scale, color: nil)
        canvas.render(into: &buffer)
    }

    /// `columns` into the canvas as a line (`color` nil: the trace colour).
    private func plotColumns(scale: PowerScale, color: Color?) {
        var previousRow: Int?
        columns.withUnsafeBufferPointer { values in
            for x in 0..<values.count {
                guard let row = scale.row(for: values[x]) else {
                    previousRow = nil
                    continue
                }
                // Join to the left neighbour so the trace reads as a line, not dots.
                canvas.verticalSpan(x: x, from: previousRow ?? row, to: row, color: color)
                previousRow = row
            }
        }
    }

    private func drawLevelAxis(model: SpectrumPlotModel, into buffer: inout Buffer) {
        Self.drawLevelAxis(bottomDB: model.bottomLevelDB, topDB: model.referenceLevelDB, in: layout.levelAxis,
                           into: &buffer)
    }

    /// The dB axis left of a plot's data rect: a line with ticks and labels
    /// over `bottomDB`…`topDB` (shared with the persistence view).
    static func drawLevelAxis(bottomDB: Double, topDB: Double, in area: Rect, into buffer: inout Buffer) {
        let lineX = area.x + area.width - 1
        for y in area.y..<(area.y + area.height) {
            buffer.set(x: lineX, y: y, Cell("│", style: Self.axisStyle))
        }
        guard let scale = PowerScale(bottomDB: Float(bottomDB), topDB: Float(topDB), rows: area.height) else { return }
        let ticks = AxisTicks.ticks(lower: bottomDB, upper: topDB, targetCount: max(2, area.height / 3))
        for value in ticks {
            guard let row = scale.row(for: Float(value)) else { continue }
            let label = FrequencyFormat.trimmed(value, maxFractionDigits: 1)
            let y = area.y + row
            _ = buffer.put(label, x: lineX - label.count, y: y, style: Self.axisStyle)
            buffer.set(x: lineX, y: y, Cell("┤", style: Self.axisStyle))
        }
    }
}

/// What the axes were drawn for.
private struct AxesKey: Equatable {
    var scale: FrequencyScale
    var top: Double
    var bottom: Double
    var area: Rect
}
