import DSP
import Signals
import Terminal
import ViewModels

/// Draws the zero-span view: power against time at one frequency on the
/// plot's dB window, time across from the trace's point count (0 at the
/// trigger when one is set, else at the trace's start), the trigger level
/// as a dashed line, the pulse measurements on a row above the trace, and
/// on a wide screen a pane listing the pulses. Where zero span cannot run
/// (no I/Q from the analyzer, a replay) it says so in one line.
///
/// Storage (the canvas, one level per pixel column) is made when the layout
/// changes; the measurement texts are built once per trace.
public final class ZeroSpanView {
    static let traceColor = SpectrumPlotView.traceColor
    static let axisStyle = FrequencyAxis.style
    static let triggerStyle = CellStyle(foreground: .rgb(255, 120, 60))
    static let readingStyle = CellStyle(foreground: .rgb(235, 235, 235), attributes: .bold)
    static let noticeStyle = CellStyle(foreground: .rgb(255, 190, 90), attributes: .bold)
    static let paneStyle = MarkerOverlay.paneStyle
    static let paneTitleStyle = MarkerOverlay.titleStyle
    /// the pane's width [cells] ("12  -123.45 ms  1234.5 µs  -123.4") and the narrowest screen area that gets it
    static let paneWidth = 36
    static let paneMinimumWidth = 140

    private var layout = PlotLayout(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private var canvas = BrailleCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    /// the trace's peak per pixel column [dB], reused
    private var columns: [Float] = []
    /// the measurement row and the pane's lines, for the trace they were built for
    private var texts: (number: Int, reading: String, pane: [String])?

    public init() {}

    public func invalidate() { texts = nil }

    /// The parts of `area`: the measurement row, the plot's area, the pulse pane (empty when narrow).
    static func split(_ area: Rect) -> (reading: Rect, plot: Rect, pane: Rect) {
        let reading = Rect(x: area.x, y: area.y, width: area.width, height: area.height >= 6 ? 1 : 0)
        let rest = Rect(x: area.x, y: area.y + reading.height, width: area.width, height: area.height - reading.height)
        guard area.width >= paneMinimumWidth else { return (reading, rest, Rect(x: rest.maxX, y: rest.y, width: 0, height: 0)) }
        return (reading, Rect(x: rest.x, y: rest.y, width: rest.width - paneWidth, height: rest.height),
                Rect(x: rest.maxX - paneWidth, y: rest.y, width: paneWidth, height: rest.height))
    }

    /// The data rect inside `area` (for the mouse).
    static func dataRect(in area: Rect) -> Rect { PlotLayout(area: split(area).plot).plot }

    public func render(zeroSpan: ZeroSpanModel, plot: SpectrumPlotModel, unit: PowerUnit, in area: Rect,
                       into buffer: inout Buffer) {
        let parts = Self.split(area)
        let size = PlotLayout(area: parts.plot)
        if size != layout || canvas.area != size.plot {
            layout = size
            canvas = BrailleCanvas(area: size.plot, color: Self.traceColor)
            columns = [Float](repeating: .nan, count: size.plot.width * 2)
        }
        buffer.fill(area, with: .blank)
        let points = zeroSpan.levels.count
        let info = zeroSpan.info
        // the time axis: from the trace's facts, else from the settings asked for
        let pointSeconds = info?.pointSeconds ?? zeroSpan.sweepSeconds / Double(ZeroSpanPlan.defaultPoints)
        let count = points > 0 ? points : ZeroSpanPlan.defaultPoints
        let pre = info?.preTriggerPoints ?? (zeroSpan.trigger == nil ? 0
            : Int((Double(count) * zeroSpan.preTriggerPercent / 100).rounded()))
        let start = -Double(pre) * pointSeconds
        let end = start + Double(count) * pointSeconds
        if layout.showsAxes {
            SpectrumPlotView.drawLevelAxis(bottomDB: plot.bottomLevelDB, topDB: plot.referenceLevelDB,
                                           in: layout.levelAxis, into: &buffer)
            Self.drawTimeAxis(from: start, to: end, triggered: pre > 0, layout: layout, cornerLabel: unit.rawValue,
                              into: &buffer)
        }
        guard !layout.plot.isEmpty else { return }
        if let trigger = zeroSpan.trigger { drawTrigger(trigger, plot: plot, label: false, into: &buffer) }
        drawTrace(zeroSpan.levels, plot: plot, into: &buffer)
        // the trigger's level over the trace, so no dot hides it
        if let trigger = zeroSpan.trigger { drawTrigger(trigger, plot: plot, label: true, into: &buffer) }
        if let notice = zeroSpan.notice {
            Self.centre(notice, in: layout.plot, style: Self.noticeStyle, into: &buffer)
        } else if info == nil {
            Self.centre(zeroSpan.trigger == nil ? "waiting for the first trace…" : "waiting for a trigger…",
                        in: layout.plot, style: Self.axisStyle, into: &buffer)
        }
        if let info, let train = zeroSpan.train {
            if texts?.number != info.number { texts = (info.number, Self.reading(train, info: info, unit: unit), Self.pane(train, info: info, unit: unit)) }
        } else {
            texts = nil
        }
        if let texts, !parts.reading.isEmpty {
            _ = buffer.put(String(texts.reading.prefix(max(0, parts.reading.width - 2))), x: parts.reading.x + 1,
                           y: parts.reading.y, style: Self.readingStyle)
        }
        if !parts.pane.isEmpty {
            let lines = texts?.pane ?? ["pulses", "  (none yet)"]
            for (k, line) in lines.prefix(parts.pane.height).enumerated() {
                _ = buffer.put(line, x: parts.pane.x + 1, y: parts.pane.y + k, style: k == 0 ? Self.paneTitleStyle : Self.paneStyle)
            }
        }
    }

    /// The trace, as the peak of the points in each pixel column, joined into a line.
    private func drawTrace(_ levels: [Float], plot: SpectrumPlotModel, into buffer: inout Buffer) {
        canvas.clear()
        defer { canvas.render(into: &buffer) }
        guard !levels.isEmpty,
              let scale = PowerScale(bottomDB: Float(plot.bottomLevelDB), topDB: Float(plot.referenceLevelDB),
                                     rows: canvas.pixelHeight) else { return }
        let width = columns.count
        let n = levels.count
        levels.withUnsafeBufferPointer { points in
            columns.withUnsafeMutableBufferPointer { out in
                for x in 0..<width {
                    let first = x * n / width
                    let last = max(first, (x + 1) * n / width - 1)
                    var peak = -Float.infinity
                    for k in first...min(last, n - 1) where points[k] > peak { peak = points[k] }
                    out[x] = peak == -.infinity ? .nan : peak
                }
            }
        }
        var previousRow: Int?
        for x in 0..<width {
            guard let row = scale.row(for: columns[x]) else {
                previousRow = nil
                continue
            }
            canvas.verticalSpan(x: x, from: previousRow ?? row, to: row)
            previousRow = row
        }
    }

    /// The trigger level: a dashed line across the plot (under the trace), or its level at the right (over it).
    private func drawTrigger(_ trigger: ZeroSpanTrigger, plot: SpectrumPlotModel, label: Bool, into buffer: inout Buffer) {
        let data = layout.plot
        guard let scale = PowerScale(bottomDB: Float(plot.bottomLevelDB), topDB: Float(plot.referenceLevelDB),
                                     rows: data.height),
              Float(trigger.levelDB) < scale.topDB, Float(trigger.levelDB) > scale.bottomDB,
              let row = scale.row(for: Float(trigger.levelDB)) else { return }
        guard label else {
            // dashed: a line in every other cell
            for x in stride(from: data.x, to: data.maxX, by: 2) { buffer.set(x: x, y: data.y + row, Cell("─", style: Self.triggerStyle)) }
            return
        }
        let text = " trig \(FrequencyFormat.trimmed(trigger.levelDB, maxFractionDigits: 1)) \(trigger.slope == .rising ? "↑" : "↓") "
        _ = buffer.put(text, x: max(data.x, data.maxX - text.count - 1), y: data.y + row, style: Self.triggerStyle)
    }

    /// The time axis: a tick line with nice times in one unit, 0 marked T when triggered.
    static func drawTimeAxis(from start: Double, to end: Double, triggered: Bool, layout: PlotLayout,
                             cornerLabel: String, into buffer: inout Buffer) {
        let area = layout.frequencyAxis
        let plot = layout.plot
        guard !area.isEmpty, end > start else { return }
        buffer.set(x: area.x, y: area.y, Cell("└", style: axisStyle))
        for x in plot.x..<plot.maxX { buffer.set(x: x, y: area.y, Cell("─", style: axisStyle)) }
        let (scale, unit) = timeUnit(max(abs(start), abs(end)))
        let ticks = AxisTicks.ticks(lower: start, upper: end, targetCount: max(2, plot.width / 12))
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : end - start
        let digits = FrequencyAxis.fractionDigits(step: step / scale)
        let cornerX = area.x - (PlotLayout.levelAxisWidth - 1)
        var nextFreeX = max(plot.x, cornerX + cornerLabel.count + 1)
        let unitLabelX = plot.maxX - unit.count
        for value in ticks {
            let x = plot.x + Int(((value - start) / (end - start) * Double(plot.width)).rounded(.down))
            guard x >= plot.x, x < plot.maxX else { continue }
            let isTrigger = triggered && abs(value) < step / 2
            buffer.set(x: x, y: area.y, Cell(isTrigger ? "T" : "┬", style: isTrigger ? triggerStyle : axisStyle))
            let label = FrequencyFormat.trimmed(value / scale, maxFractionDigits: digits)
            let labelX = max(x - label.count / 2, plot.x)
            guard labelX >= nextFreeX, labelX + label.count < unitLabelX - 1 else { continue }
            _ = buffer.put(label, x: labelX, y: area.y + 1, style: axisStyle)
            nextFreeX = labelX + label.count + 2
        }
        _ = buffer.put(unit, x: unitLabelX, y: area.y + 1, style: axisStyle)
        _ = buffer.put(cornerLabel, x: cornerX, y: area.y + 1, style: axisStyle)
    }

    /// the unit a time axis reaching `seconds` is labelled in, and its size [s]
    static func timeUnit(_ seconds: Double) -> (Double, String) {
        seconds >= 1 ? (1, "s") : seconds >= 1e-3 ? (1e-3, "ms") : (1e-6, "µs")
    }

    /// "4 pulses  width 50.0 µs  period 2.5 ms  duty 2.0 %  rise 0.68 µs  fall 0.7 µs  floor -80.1 dB"
    /// With points farther apart than the RBW filter's rise time, times read only to about a point: said last.
    static func reading(_ train: PulseTrain, info: ZeroSpanTraceInfo, unit: PowerUnit) -> String {
        func time(_ seconds: Double?) -> String { seconds.map(TimeFormat.label) ?? "–" }
        let pulses = train.pulses
        guard !pulses.isEmpty else {
            return "no pulse (nothing 10 dB over the floor)  floor " + level(train.floorDB, unit)
        }
        let coarse = info.pointSeconds > ZeroSpanRBWFilter.riseTimeTimesRBW / info.rbwHz
            ? "  (times ± a point: \(TimeFormat.label(info.pointSeconds)); shorten the sweep)" : ""
        let width = pulses.map(\.widthSeconds).reduce(0, +) / Double(pulses.count)
        return "\(pulses.count) pulse\(pulses.count == 1 ? "" : "s")  width \(time(width))  period \(time(train.periodSeconds))"
            + "  duty " + (train.duty.map { String(format: "%.1f %%", 100 * $0) } ?? "–")
            + "  rise \(time(train.riseSeconds))  fall \(time(train.fallSeconds))  floor " + level(train.floorDB, unit) + coarse
    }

    static func level(_ decibels: Double, _ unit: PowerUnit) -> String {
        decibels.isFinite ? String(format: "%.1f %@", decibels, unit.rawValue) : "–"
    }

    /// The pane: a title, then per pulse its start (from the trigger), width and peak.
    static func pane(_ train: PulseTrain, info: ZeroSpanTraceInfo, unit: PowerUnit) -> [String] {
        func column(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        var lines = [" n     start      width   peak \(unit.rawValue)".padding(toLength: paneWidth - 2, withPad: " ", startingAt: 0)]
        let zero = Double(info.preTriggerPoints) * info.pointSeconds
        for (k, pulse) in train.pulses.enumerated() {
            lines.append(column("\(k + 1)", 2) + column(TimeFormat.label(pulse.startSeconds - zero), 11)
                + column(TimeFormat.label(pulse.widthSeconds), 11) + column(String(format: "%.1f", pulse.peakDB), 8))
        }
        if train.pulses.isEmpty { lines.append("  no pulse 10 dB over the floor") }
        lines.append("")
        lines.append(" \(info.source)")
        if info.droppedSamples > 0 { lines.append(" \(info.droppedSamples) samples dropped") }
        return lines
    }

    static func centre(_ text: String, in rect: Rect, style: CellStyle, into buffer: inout Buffer) {
        let shown = String(text.prefix(max(0, rect.width - 2)))
        _ = buffer.put(shown, x: rect.x + max(0, (rect.width - shown.count) / 2), y: rect.y + rect.height / 2, style: style)
    }
}
