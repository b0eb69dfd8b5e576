import DSP
import Signals
import Terminal
import ViewModels

/// Draws the instantaneous spectrum: a braille trace of power against
/// frequency, a dB axis on the left, a frequency axis below, a status line on
/// top and the keys at the bottom.
///
/// Allocation happens only when the layout, band, levels or status text
/// change; an ordinary new frame redraws the trace into preallocated storage.
public final class SpectrumPlotView {
    /// colour of the trace
    static let traceColor = Color.rgb(255, 214, 10)
    static let axisStyle = CellStyle(foreground: .rgb(150, 150, 150))
    static let statusStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(30, 50, 90))
    static let demoStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(255, 190, 0),
                                     attributes: [.bold])
    static let pausedStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(120, 200, 255),
                                       attributes: [.bold])
    static let helpStyle = CellStyle(foreground: .rgb(140, 140, 140))
    static let helpText = "←/→ pan   +/- zoom   ↑/↓ gain   a autoscale   space pause   q quit"

    private var layout = PlotLayout(width: 0, height: 0)
    private var canvas = BrailleCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private let decimator = ColumnDecimator(detector: .peak)
    /// power per pixel column [dB], reused every frame
    private var columns: [Float] = []
    /// what the static parts were last drawn for; redraw when it changes
    private var drawnAxesKey: AxesKey?
    private var drawnStatus: StatusKey?

    public init() {}

    /// Pixel size the plot area has at this terminal size (for the model's
    /// tuning request).
    public static func plotPixels(width: Int, height: Int) -> (columns: Int, rows: Int) {
        let plot = PlotLayout(width: width, height: height).plot
        return (plot.width * 2, plot.height * 4)
    }

    /// Forces a full redraw of the static parts on the next render.
    public func invalidate() {
        drawnAxesKey = nil
        drawnStatus = nil
    }

    /// Renders the model and (if any) the frame it shows into `buffer`.
    public func render(model: SpectrumPlotModel, frame: SpectrumFrame?, status: SpectrumStatus,
                       into buffer: inout Buffer) {
        let size = PlotLayout(width: buffer.width, height: buffer.height)
        if size != layout || canvas.area != size.plot {
            layout = size
            canvas = BrailleCanvas(area: size.plot, color: Self.traceColor)
            columns = [Float](repeating: .nan, count: size.plot.width * 2)
            drawnAxesKey = nil
            drawnStatus = nil
        }
        let axesKey = AxesKey(band: model.visibleBand, top: model.referenceLevelDB,
                              bottom: model.bottomLevelDB, width: buffer.width, height: buffer.height)
        if axesKey != drawnAxesKey {
            buffer.clear()
            if layout.showsAxes {
                drawLevelAxis(model: model, into: &buffer)
                drawFrequencyAxis(band: model.visibleBand, into: &buffer)
                _ = buffer.put(Self.helpText, x: layout.help.x + 1, y: layout.help.y, style: Self.helpStyle)
            }
            drawnAxesKey = axesKey
            drawnStatus = nil
        }
        var statusWithoutRate = status
        statusWithoutRate.framesPerSecond = 0
        let statusKey = StatusKey(status: statusWithoutRate, band: model.visibleBand, paused: model.isPaused,
                                  fpsTenths: Int((status.framesPerSecond * 10).rounded()))
        if statusKey != drawnStatus {
            drawStatus(model: model, status: status, into: &buffer)
            drawnStatus = statusKey
        }
        drawTrace(model: model, frame: frame, into: &buffer)
    }

    // MARK: parts

    private func drawTrace(model: SpectrumPlotModel, frame: SpectrumFrame?, into buffer: inout Buffer) {
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
        if let frame {
            columns.withUnsafeMutableBufferPointer { out in
                decimator.process(frame, visible: model.visibleBand, into: out)
            }
        } else {
            columns.withUnsafeMutableBufferPointer { $0.update(repeating: .nan) }
        }
        var previousRow: Int?
        columns.withUnsafeBufferPointer { values in
            for x in 0..<values.count {
                guard let row = scale.row(for: values[x]) else {
                    previousRow = nil
                    continue
                }
                // Join to the left neighbour so the trace reads as a line, not dots.
                canvas.verticalSpan(x: x, from: previousRow ?? row, to: row)
                previousRow = row
            }
        }
        canvas.render(into: &buffer)
    }

    private func drawLevelAxis(model: SpectrumPlotModel, into buffer: inout Buffer) {
        let area = layout.levelAxis
        let lineX = area.x + area.width - 1
        for y in area.y..<(area.y + area.height) {
            buffer.set(x: lineX, y: y, Cell("│", style: Self.axisStyle))
        }
        guard let scale = PowerScale(bottomDB: Float(model.bottomLevelDB), topDB: Float(model.referenceLevelDB),
                                     rows: area.height) else { return }
        let ticks = AxisTicks.ticks(lower: model.bottomLevelDB, upper: model.referenceLevelDB,
                                    targetCount: max(2, area.height / 3))
        for value in ticks {
            guard let row = scale.row(for: Float(value)) else { continue }
            let label = FrequencyFormat.trimmed(value, maxFractionDigits: 1)
            let y = area.y + row
            _ = buffer.put(label, x: lineX - label.count, y: y, style: Self.axisStyle)
            buffer.set(x: lineX, y: y, Cell("┤", style: Self.axisStyle))
        }
    }

    private func drawFrequencyAxis(band: FrequencyRange, into buffer: inout Buffer) {
        let area = layout.frequencyAxis
        let plot = layout.plot
        buffer.set(x: area.x, y: area.y, Cell("└", style: Self.axisStyle))
        for x in plot.x..<(plot.x + plot.width) {
            buffer.set(x: x, y: area.y, Cell("─", style: Self.axisStyle))
        }
        let (_, unit) = FrequencyFormat.scaled(band.upperHz)
        let unitScale = band.upperHz / FrequencyFormat.scaled(band.upperHz).0
        let ticks = AxisTicks.ticks(lower: band.lowerHz, upper: band.upperHz, targetCount: max(2, plot.width / 14))
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : band.spanHz
        let digits = fractionDigits(step: step / unitScale)
        var nextFreeX = plot.x
        let unitLabelX = plot.x + plot.width - unit.count
        for value in ticks {
            let x = plot.x + Int(((value - band.lowerHz) / band.spanHz * Double(plot.width)).rounded(.down))
            guard x >= plot.x, x < plot.x + plot.width else { continue }
            buffer.set(x: x, y: area.y, Cell("┬", style: Self.axisStyle))
            let label = FrequencyFormat.trimmed(value / unitScale, maxFractionDigits: digits)
            let labelX = max(x - label.count / 2, plot.x)
            guard labelX >= nextFreeX, labelX + label.count < unitLabelX - 1 else { continue }
            _ = buffer.put(label, x: labelX, y: area.y + 1, style: Self.axisStyle)
            nextFreeX = labelX + label.count + 2
        }
        _ = buffer.put(unit, x: unitLabelX, y: area.y + 1, style: Self.axisStyle)
        _ = buffer.put("dB", x: 0, y: area.y + 1, style: Self.axisStyle)
    }

    private func drawStatus(model: SpectrumPlotModel, status: SpectrumStatus, into buffer: inout Buffer) {
        let row = layout.status
        guard !row.isEmpty else { return }
        buffer.fill(row, with: Cell(" ", style: Self.statusStyle))
        var x = row.x
        if status.isDemo {
            x = buffer.put(" DEMO ", x: x, y: row.y, style: Self.demoStyle)
        }
        if model.isPaused {
            x = buffer.put(" PAUSED ", x: x, y: row.y, style: Self.pausedStyle)
        }
        // The axis shows the band; the status line gives what it does not.
        var text = " \(status.deviceName) │ span \(FrequencyFormat.label(model.visibleBand.spanHz))"
        if status.binWidthHz > 0 { text += " │ bin \(FrequencyFormat.label(status.binWidthHz, maxFractionDigits: 2))" }
        text += " │ \(FrequencyFormat.trimmed(status.framesPerSecond, maxFractionDigits: 1)) fps"
        text += " │ dropped \(status.droppedBlocks) │ bad \(status.badBlocks)"
        if let message = status.message { text += " │ \(message)" }
        _ = buffer.put(text, x: x, y: row.y, style: Self.statusStyle)
    }

    /// Decimals needed to tell ticks `step` apart (step in display units).
    private func fractionDigits(step: Double) -> Int {
        var digits = 0
        var scaled = step
        while digits < 4 && abs(scaled - scaled.rounded()) > 1e-9 {
            scaled *= 10
            digits += 1
        }
        return digits
    }
}

/// What the axes were drawn for.
private struct AxesKey: Equatable {
    var band: FrequencyRange
    var top: Double
    var bottom: Double
    var width: Int
    var height: Int
}

/// What the status line was drawn for.
private struct StatusKey: Equatable {
    var status: SpectrumStatus
    var band: FrequencyRange
    var paused: Bool
    var fpsTenths: Int
}
