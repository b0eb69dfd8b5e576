import ECG
import Terminal
import ViewModels

/// The ECG monitor in a rect: a status line on top (heart rate, rhythm, rate,
/// strip, latency), the strips or the 12-lead printout, the keys at the
/// bottom, and the event list over them when open. Renders into any rect of a
/// buffer, so a pane beside the spectrum can hold it.
public final class ECGMonitorView {
    static let statusStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(30, 50, 90))
    static let normalStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(90, 220, 120), attributes: [.bold])
    static let alarmStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(200, 30, 30), attributes: [.bold])
    static let badgeStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(120, 200, 255), attributes: [.bold])
    static let helpStyle = CellStyle(foreground: .rgb(140, 140, 140))
    /// strips stacked in the strip layout at most
    static let maximumStripLeads = 3
    /// rows each stacked strip needs at least
    static let minimumRowsPerStrip = 6

    private let strips = ECGStripView()
    private let trend = ECGTrendView()
    /// what the status line was drawn for; redrawn only when it changes
    private var drawnStatus: StatusKey?
    /// what the heart-rate panel was drawn for
    private var drawnVitals: StatusKey?

    /// whether the key help line is drawn (not in a pane whose keys belong to another view)
    private let showsKeys: Bool

    public init(showsKeys: Bool = true) {
        self.showsKeys = showsKeys
    }

    /// Forces the status line to be redrawn on the next render.
    public func invalidate() {
        drawnStatus = nil
        drawnVitals = nil
    }

    public func render(model: ECGMonitorModel, status: ECGMonitorStatus, in rect: Rect, into buffer: inout Buffer) {
        let area = rect.intersection(buffer.area)
        guard !area.isEmpty else { return }
        let showsHelp = showsKeys && area.width >= 40 && area.height >= 10
        let statusRow = Rect(x: area.x, y: area.y, width: area.width, height: 1)
        let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - (showsHelp ? 2 : 1))

        // The status and help lines change a few times a second at most: drawn only then.
        let key = StatusKey(status: status, area: area, paused: model.strip.isPaused,
                            stripSeconds: model.strip.stripSeconds, gain: model.strip.gainMillimetresPerMillivolt,
                            sampleRate: model.strip.sampleRate, events: model.events.count,
                            speed: model.playbackSpeed, layout: model.layout)
        if key != drawnStatus {
            drawStatus(model: model, status: status, row: statusRow, into: &buffer)
            if showsHelp {
                let help = Rect(x: area.x, y: area.maxY - 1, width: area.width, height: 1)
                buffer.fill(help, with: .blank)
                buffer.put(model.trendOnly ? ECGKeyMap.trendOnlyHelpText : ECGKeyMap.helpText(layout: model.layout),
                           x: help.x + 1, y: help.y, limit: help.maxX,
                           style: Self.helpStyle)
            }
            drawnStatus = key
        }
        guard !body.isEmpty else { return }
        // a bedside monitor's readout at the right: heart rate large, rhythm under it
        let panelWidth = Self.vitalsWidth(bodyWidth: body.width)
        let traces = Rect(x: body.x, y: body.y, width: body.width - panelWidth, height: body.height)
        if model.showsTrend {
            trend.render(model.trend, in: traces, into: &buffer)
        } else {
            switch model.layout {
            case .twelveLead:
                strips.renderTwelveLead(model: model.strip, layout: model.twelveLead, in: traces, into: &buffer)
            case .strip:
                let fitting = min(Self.maximumStripLeads, max(1, traces.height / Self.minimumRowsPerStrip))
                strips.render(model: model.strip, leads: model.stripLeads(fitting: fitting), in: traces, into: &buffer)
            }
        }
        if panelWidth > 0 {
            let panel = Rect(x: traces.maxX, y: body.y, width: panelWidth, height: body.height)
            if key != drawnVitals { drawVitals(status: status, in: panel, into: &buffer) }
            drawnVitals = key
        }
        // overlays stay over the strips, so the panel (drawn on change only) is never covered
        if model.events.isOpen {
            ECGEventListView.render(model.events, in: traces, into: &buffer)
        }
        if model.showsHelp { Self.drawHelp(in: traces, into: &buffer) }
    }

    /// narrowest body that gets the heart-rate panel [cells]
    static let minimumWidthForVitals = 60

    /// Cells the heart-rate panel takes: a fifth of the body, 14 to 48.
    static func vitalsWidth(bodyWidth: Int) -> Int {
        bodyWidth >= minimumWidthForVitals ? min(max(bodyWidth / 5, 14), 48) : 0
    }

    static let vitalsStyle = CellStyle(foreground: .rgb(200, 200, 200))
    static let heartRateNormal = CellStyle(foreground: .rgb(90, 255, 140), attributes: [.bold])
    static let heartRateAlarm = CellStyle(foreground: .rgb(255, 70, 70), attributes: [.bold])

    /// "HR", the rate in big digits scaled to the panel, "bpm", the rhythm.
    private func drawVitals(status: ECGMonitorStatus, in panel: Rect, into buffer: inout Buffer) {
        buffer.fill(panel, with: .blank)
        for y in panel.y..<panel.maxY { buffer.set(x: panel.x, y: y, Cell("│", style: Self.helpStyle)) }
        let inner = Rect(x: panel.x + 2, y: panel.y + 1, width: panel.width - 3, height: panel.height - 1)
        let abnormal = status.rhythm?.code.isAbnormal == true
        let style = abnormal ? Self.heartRateAlarm : Self.heartRateNormal
        buffer.put("HR", x: inner.x, y: inner.y, limit: inner.maxX, style: Self.vitalsStyle)
        var scale = 1
        while BigDigits.width(of: "188", scale: scale + 1) <= inner.width,
              BigDigits.height(scale: scale + 1) <= inner.height / 3 { scale += 1 }
        let rate = status.heartRateBPM.map { "\(Int($0.rounded()))" } ?? "---"
        let digitsY = inner.y + 1
        BigDigits.draw(rate, x: inner.x, y: digitsY, scale: scale, style: style, into: &buffer)
        var y = digitsY + BigDigits.height(scale: scale)
        buffer.put("bpm", x: inner.x, y: y, limit: inner.maxX, style: Self.vitalsStyle)
        y += 2
        if let rhythm = status.rhythm {
            let text = rhythm.text.isEmpty ? ECGText.name(rhythm.code) : rhythm.text
            // wrapped at spaces to the panel
            var line = ""
            for word in text.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > inner.width {
                    buffer.put(line, x: inner.x, y: y, limit: inner.maxX, style: style)
                    y += 1
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            if !line.isEmpty, y < inner.maxY { buffer.put(line, x: inner.x, y: y, limit: inner.maxX, style: style) }
        }
    }

    static let helpBoxStyle = CellStyle(foreground: .rgb(235, 235, 235), background: .rgb(20, 40, 70))

    /// `?`: every key, in a box in the middle of the strips.
    static func drawHelp(in area: Rect, into buffer: inout Buffer) {
        let lines = ECGKeyMap.helpLines
        let width = min(area.width, (lines.map { $0.unicodeScalars.count }.max() ?? 0) + 2)
        let height = min(area.height, lines.count + 2)
        guard width > 4, height > 2 else { return }
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        buffer.fill(box, with: Cell(" ", style: helpBoxStyle))
        for (index, line) in lines.enumerated() where index + 1 < height - 1 {
            buffer.put(line, x: box.x, y: box.y + 1 + index, limit: box.maxX, style: helpBoxStyle)
        }
    }

    private func drawStatus(model: ECGMonitorModel, status: ECGMonitorStatus, row: Rect, into buffer: inout Buffer) {
        buffer.fill(row, with: Cell(" ", style: Self.statusStyle))
        var x = row.x
        if model.strip.isPaused { x = buffer.put(" PAUSED ", x: x, y: row.y, limit: row.maxX, style: Self.badgeStyle) }
        if status.ended { x = buffer.put(" END ", x: x, y: row.y, limit: row.maxX, style: Self.badgeStyle) }
        let heartRate = status.heartRateBPM.map { "\(Int($0.rounded()))" } ?? "--"
        x = buffer.put(" HR \(heartRate) ", x: x, y: row.y, limit: row.maxX, style: Self.statusStyle)
        if let rhythm = status.rhythm {
            let text = rhythm.text.isEmpty ? ECGText.name(rhythm.code) : rhythm.text
            x = buffer.put(" \(text) ", x: x, y: row.y, limit: row.maxX,
                           style: rhythm.code.isAbnormal ? Self.alarmStyle : Self.normalStyle)
        }
        let strip = model.strip
        // beats alone (a strap) have no sample rate, strip length or gain to show
        var text = model.trendOnly ? " RR intervals" : " \(ECGText.number(strip.sampleRate)) Hz"
        if model.playbackSpeed != 1 { text += " ×\(ECGText.number(model.playbackSpeed))" }
        if !model.trendOnly {
            text += " │ \(ECGText.number(strip.stripSeconds)) s"
            text += " │ \(ECGText.number(strip.gainMillimetresPerMillivolt)) mm/mV"
        }
        text += " │ latency p99 " + (status.latencyP99Seconds.map { ECGText.number($0 * 1000) + " ms" } ?? "--")
        text += " │ \(ECGText.number(status.framesPerSecond, maxFractionDigits: 0)) fps"
        text += " │ events \(model.events.count) │ \(status.sourceName)"
        if let message = status.message { text += " │ \(message)" }
        buffer.put(text, x: x, y: row.y, limit: row.maxX, style: Self.statusStyle)
    }
}

/// What the status line was drawn for.
private struct StatusKey: Equatable {
    var status: ECGMonitorStatus
    var area: Rect
    var paused: Bool
    var stripSeconds: Double
    var gain: Double
    var sampleRate: Double
    var events: Int
    var speed: Double
    var layout: ECGMonitorModel.Layout
}
