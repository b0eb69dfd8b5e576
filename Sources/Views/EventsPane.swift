import DSP
import Foundation
import Signals
import Terminal
import ViewModels

/// The events `watch` has seen, newest first, one per line, beside the
/// spectrum (right of it on a wide screen, under it otherwise): UTC start,
/// duration, peak frequency and level.
public final class EventsPane: SidePane {
    static let titleStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(200, 0, 120))
    static let style = CellStyle(foreground: .rgb(220, 220, 220))
    static let openStyle = CellStyle(foreground: .rgb(255, 214, 10))
    /// width of the pane beside the spectrum [cells]; narrower screens put it underneath
    static let width = 44

    private let model: AnalyzerModel
    private let unit: PowerUnit

    public init(model: AnalyzerModel, unit: PowerUnit) {
        self.model = model
        self.unit = unit
    }

    public func layout(_ screen: Rect) -> (main: Rect, pane: Rect) {
        if screen.width >= 120 {
            let main = Rect(x: screen.x, y: screen.y, width: screen.width - Self.width, height: screen.height)
            return (main, Rect(x: screen.x + main.width, y: screen.y, width: Self.width, height: screen.height))
        }
        let rows = min(8, screen.height / 4)
        let main = Rect(x: screen.x, y: screen.y, width: screen.width, height: screen.height - rows)
        return (main, Rect(x: screen.x, y: screen.y + main.height, width: screen.width, height: rows))
    }

    public func update(now: Double) {}

    public func render(in rect: Rect, into buffer: inout Buffer) {
        guard rect.width > 4, rect.height > 0 else { return }
        buffer.fill(rect, with: Cell(" ", style: Self.style))
        let log = model.events
        let title = " events \(log.count) (newest first)"
        buffer.fill(Rect(x: rect.x, y: rect.y, width: rect.width, height: 1), with: Cell(" ", style: Self.titleStyle))
        _ = buffer.put(title, x: rect.x, y: rect.y, style: Self.titleStyle)
        var rows: [(DetectedEvent, Bool)] = log.open.map { [($0, true)] } ?? []
        rows += log.closed.suffix(rect.height).reversed().map { ($0, false) }
        for (index, row) in rows.prefix(rect.height - 1).enumerated() {
            _ = buffer.put(Self.line(row.0, open: row.1, unit: unit), x: rect.x + 1, y: rect.y + 1 + index,
                           style: row.1 ? Self.openStyle : Self.style)
        }
    }

    public func presented(at now: Double) {}

    /// "03:31:57Z  4.0 s  88.0977 MHz −23.0 dB" ("open" instead of the duration while it lasts)
    static func line(_ event: DetectedEvent, open: Bool, unit: PowerUnit) -> String {
        var seconds = time_t(event.start.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let clock = String(format: "%02d:%02d:%02dZ", Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        let duration = open ? "open " : String(format: "%.1f s", event.durationSeconds)
        let level = String(format: "%.1f", event.peakDB).replacingOccurrences(of: "-", with: "−")
        return "\(clock) \(duration) \(FrequencyFormat.label(event.peakHz, maxFractionDigits: 4)) \(level) \(unit)"
    }
}
