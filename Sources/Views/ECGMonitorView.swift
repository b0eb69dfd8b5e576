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

    /// whether the key help line is drawn (not in a pane whose keys belong to another view)
    private let showsKeys: Bool

    public init(showsKeys: Bool = true) {
        self.showsKeys = showsKeys
    }

    /// Forces the status line to be redrawn on the next render.
    public func invalidate() { drawnStatus = nil }

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
                            speed: model.playbackSpeed)
        if key != drawnStatus {
            drawStatus(model: model, status: status, row: statusRow, into: &buffer)
            if showsHelp {
                let help = Rect(x: area.x, y: area.maxY - 1, width: area.width, height: 1)
                buffer.fill(help, with: .blank)
                buffer.put(ECGKeyMap.helpText, x: help.x + 1, y: help.y, limit: help.maxX, style: Self.helpStyle)
            }
            drawnStatus = key
        }
        guard !body.isEmpty else { return }
        if model.showsTrend {
            trend.render(model.trend, in: body, into: &buffer)
        } else {
            switch model.layout {
        case .twelveLead:
            strips.renderTwelveLead(model: model.strip, layout: model.twelveLead, in: body, into: &buffer)
        case .strip:
            let fitting = min(Self.maximumStripLeads, max(1, body.height / Self.minimumRowsPerStrip))
            strips.render(model: model.strip, leads: model.stripLeads(fitting: fitting), in: body, into: &buffer)
            }
        }
        if model.events.isOpen {
            ECGEventListView.render(model.events, in: body, into: &buffer)
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
        var text = " \(ECGText.number(strip.sampleRate)) Hz"
        if model.playbackSpeed != 1 { text += " ×\(ECGText.number(model.playbackSpeed))" }
        text += " │ \(ECGText.number(strip.stripSeconds)) s"
        text += " │ \(ECGText.number(strip.gainMillimetresPerMillivolt)) mm/mV"
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
}
