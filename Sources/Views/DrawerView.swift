import Signals
import Terminal
import ViewModels

/// Where the drawer's rows go: a title, the frequency range (start and stop
/// fields with the two-thumb slider between them), the view's own fields,
/// and the keys at the bottom. Shared by the renderer and the mouse.
struct DrawerLayout {
    let rect: Rect
    /// each field and its row
    private(set) var rows: [(field: DrawerField, y: Int)] = []
    /// the slider track: row, first column, width [cells]
    private(set) var slider: (y: Int, x: Int, width: Int)?

    init(rect: Rect, fields: [DrawerField]) {
        self.rect = rect
        var y = rect.y + 2
        for field in fields {
            rows.append((field, y))
            y += 1
            if field == .rangeStop {
                if rect.width >= 8 { slider = (y: y, x: rect.x + 2, width: rect.width - 3) }
                y += 2
            }
        }
    }

    func field(atY y: Int) -> DrawerField? { rows.first { $0.y == y }?.field }

    func row(of field: DrawerField) -> Int? { rows.first { $0.field == field }?.y }

    /// The frequency under slider column `x` [Hz], over the device's range.
    func sliderHz(x: Int, limits: FrequencyRange) -> Double? {
        guard let slider else { return nil }
        let fraction = (Double(x - slider.x) + 0.5) / Double(slider.width)
        return limits.lowerHz + min(max(fraction, 0), 1) * limits.spanHz
    }

    /// The slider column showing `hz`.
    func sliderColumn(hz: Double, limits: FrequencyRange) -> Int? {
        guard let slider else { return nil }
        let fraction = (hz - limits.lowerHz) / limits.spanHz
        return slider.x + min(max(Int(fraction * Double(slider.width)), 0), slider.width - 1)
    }
}

/// Draws the control drawer: a panel at the right edge holding, per view,
/// only the frequency range (two-thumb slider in 10 kHz steps and numeric
/// start/stop fields) and that view's one setting.
final class DrawerView {
    static let panelStyle = CellStyle(foreground: .rgb(220, 220, 220), background: .rgb(25, 25, 35))
    static let focusStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(120, 200, 255))
    static let thumbStyle = CellStyle(foreground: .rgb(255, 214, 10), background: .rgb(25, 25, 35),
                                      attributes: [.bold])
    static let noticeStyle = CellStyle(foreground: .rgb(255, 120, 120), background: .rgb(25, 25, 35))

    /// - Parameter status: the analyzer, its settings and calibration, shown in the device section
    func render(model: AnalyzerModel, layout: DrawerLayout, status: SpectrumStatus? = nil, into buffer: inout Buffer) {
        let rect = layout.rect
        guard !rect.isEmpty else { return }
        buffer.fill(rect, with: Cell(" ", style: Self.panelStyle))
        for y in rect.y..<rect.maxY { buffer.set(x: rect.x, y: y, Cell("│", style: Self.panelStyle)) }
        _ = buffer.put("controls · \(model.mode.title)", x: rect.x + 2, y: rect.y, style: Self.panelStyle)
        let drawer = model.drawer
        for (field, y) in layout.rows {
            let focused = drawer.focus == field
            let value = focused && drawer.editText != nil ? (drawer.editText ?? "") + "▏" : Self.text(field, model)
            _ = buffer.put(field.label, x: rect.x + 2, y: y, style: Self.panelStyle)
            let box = " \(value) "
            _ = buffer.put(box, x: rect.maxX - box.unicodeScalars.count - 1, y: y,
                           style: focused ? Self.focusStyle : Self.panelStyle)
        }
        if let slider = layout.slider {
            let limits = model.sliderRange
            for x in slider.x..<(slider.x + slider.width) {
                buffer.set(x: x, y: slider.y, Cell("─", style: Self.panelStyle))
            }
            let band = model.plot.visibleBand
            if let low = layout.sliderColumn(hz: band.lowerHz, limits: limits),
               let high = layout.sliderColumn(hz: band.upperHz, limits: limits) {
                for x in low...high { buffer.set(x: x, y: slider.y, Cell("━", style: Self.thumbStyle)) }
                buffer.set(x: low, y: slider.y, Cell("◆", style: Self.thumbStyle))
                buffer.set(x: high, y: slider.y, Cell("◆", style: Self.thumbStyle))
            }
            let lowLabel = FrequencyFormat.label(limits.lowerHz)
            let highLabel = FrequencyFormat.label(limits.upperHz)
            _ = buffer.put(lowLabel, x: slider.x, y: slider.y + 1, style: Self.panelStyle)
            _ = buffer.put(highLabel, x: slider.x + slider.width - highLabel.count, y: slider.y + 1,
                           style: Self.panelStyle)
        }
        if let notice = model.notice, let last = layout.rows.last {
            _ = buffer.put(notice, x: rect.x + 2, y: last.y + 2, style: Self.noticeStyle)
        }
        let hints = ["↑↓ field  ←→ adjust", "Enter, a number, Enter", "d or Esc closes"]
        if let status {
            // the device section: what the analyzer runs with (set on the command line), below the fields
            var y = (layout.rows.last?.y ?? rect.y) + (model.notice == nil ? 2 : 4)
            let lines = Self.deviceLines(status)
            for (index, line) in lines.enumerated() where y < rect.maxY - hints.count - 1 {
                let shown = String(line.prefix(max(0, rect.width - 3)))
                _ = buffer.put(shown, x: rect.x + 2, y: y, style: index == 0 ? Self.thumbStyle : Self.panelStyle)
                y += 1
            }
        }
        for (index, hint) in hints.enumerated() {
            let y = rect.maxY - hints.count + index
            guard y > (layout.rows.last?.y ?? rect.y) + 2 else { continue }
            _ = buffer.put(hint, x: rect.x + 2, y: y, style: Self.panelStyle)
        }
    }

    /// "device", the analyzer, one line per setting, the unit and calibration.
    static func deviceLines(_ status: SpectrumStatus) -> [String] {
        var lines = ["device", status.deviceName]
        let parts = (status.settings ?? "").split(separator: "│").map { $0.trimmingCharacters(in: .whitespaces) }
        for part in parts where !part.isEmpty {
            if part.hasPrefix("cal") {
                lines.append(part.hasPrefix("cal ") ? "calibrated \(part.dropFirst(4))" : part)
            } else {
                lines += part.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
        lines.append("levels in \(status.powerUnit)")
        return lines
    }

    /// A field's value as shown: MHz to 10 kHz, dB, the period.
    static func text(_ field: DrawerField, _ model: AnalyzerModel) -> String {
        let value = model.value(of: field)
        switch field {
        case .rangeStart, .rangeStop, .bandStart, .bandStop: return String(format2: value)
        case .displaySpan: return FrequencyFormat.trimmed(value, maxFractionDigits: 1) + " dB"
        case .period: return value < 60 ? "\(Int(value)) s" : "\(Int(value / 60)) min"
        case .persistence:
            guard value.isFinite else { return "∞" }
            return FrequencyFormat.trimmed(value, maxFractionDigits: 1) + " s"
        case .autoLevels: return model.autoLevels ? "on" : "off"
        case .detector: return model.waterfallDetector == .peak ? "peak" : "average"
        case .trace: return "\(model.traceMode)"
        case .channelWidth, .channelSpacing: return FrequencyFormat.trimmed(value, maxFractionDigits: 3)
        case .zeroSpanRBW: return FrequencyFormat.trimmed(value, maxFractionDigits: 3)
        case .zeroSpanSweep: return FrequencyFormat.trimmed(value, maxFractionDigits: 4)
        case .triggerLevel: return value.isFinite ? FrequencyFormat.trimmed(value, maxFractionDigits: 1) : "free run"
        case .triggerEdge: return model.zeroSpan.trigger.map { $0.slope.rawValue } ?? "free run"
        }
    }
}

extension String {
    /// `value` with exactly two decimals ("88.00"): MHz to the 10 kHz step.
    init(format2 value: Double) {
        let hundredths = Int((abs(value) * 100).rounded())
        let fraction = hundredths % 100
        self = (value < 0 && hundredths > 0 ? "-" : "") + "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// The overlay `?` shows: every key and the gesture that does the same.
enum HelpOverlay {
    static let style = CellStyle(foreground: .rgb(235, 235, 235), background: .rgb(20, 40, 70))
    /// the keys every view shares, then each view's own lines (AnalyzerMode.overlayLines), then the rest
    static let lines = [
        " keys                             mouse",
        viewsLine,
        " ←/→         pan                  drag sideways",
        " +/-         zoom                 wheel (waterfall: shift+wheel)",
        " ↑/↓         plot gain            ctrl or shift+wheel",
    ] + AnalyzerMode.allCases.flatMap(\.overlayLines) + [
        " space       pause / resume       click plot or meter",
        " a           autoscale (floor near the bottom, peak near the top)",
        " r           plot, waterfall: record; meter: reset min/max",
        " R           record (any view)",
        " t           trace (plot, meter): live, max hold, min hold, average of 16",
        "             (zero span: trigger at the trace's mid level, or free run)",
        " m n N M x   markers: highest peak, next peak →/←, next marker, delta/noise",
        " e           measure (plot): harmonics, TOI, ACPR, noise marker, off",
        " s / S       store the shown trace as the reference (dimmed) / drop it",
        " b           band plan (--band-plan): channel grid on/off in the plot",
        " l           logarithmic frequency axis on/off (--log-frequency)",
        " d           control drawer       click ◀ at the right edge",
        "             (band, dB span, auto levels, detector, persistence, zero span's",
        "             RBW, sweep and trigger; Enter types)",
        " replay: < >  speed ×½ ×2   shift+←/→ ±10 s   g time   Home/End",
        " ?           this help",
        " q           quit",
    ]

    /// " 1-4, Tab    plot/waterfall/meter/persistence": every view, in key order
    static var viewsLine: String {
        let modes = AnalyzerMode.allCases
        let keys = "\(modes.first?.rawValue ?? 1)-\(modes.last?.rawValue ?? 1), Tab"
        return " " + keys + String(repeating: " ", count: max(1, 12 - keys.count)) + modes.map(\.title).joined(separator: "/")
    }

    static func draw(in area: Rect, into buffer: inout Buffer) {
        let width = min(area.width, (lines.map { $0.unicodeScalars.count }.max() ?? 0) + 2)
        let height = min(area.height, lines.count + 2)
        let box = Rect(x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2,
                       width: width, height: height)
        buffer.fill(box, with: Cell(" ", style: style))
        for (index, line) in lines.enumerated() where index + 1 < height - 1 || height < 3 {
            _ = buffer.put(line, x: box.x, y: box.y + 1 + index, style: style)
        }
    }
}
