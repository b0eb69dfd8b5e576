import Signals
import Terminal
import ViewModels

/// The ECG monitor as a pane beside the spectrum (`tscope watch --ecg`): its
/// own source, pipeline and sample rate, drawn by the analyzer's renderer at
/// the analyzer's frame clock. Right of the spectrum on a wide terminal,
/// below it otherwise. A failing source shows its error in the pane; the
/// spectrum runs on.
public final class ECGSidePane: SidePane {
    /// screens at least this many times wider than tall (in cells) put the pane on the right
    static let wideAspect = 4.0
    /// share of the screen the pane takes
    static let share = 0.4
    /// smallest pane [cells]
    static let minimumHeight = 8, minimumWidth = 40
    static let failureStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(200, 30, 30), attributes: [.bold])

    public let monitor: ECGLiveMonitor
    /// the source's error, once it failed
    public private(set) var failure: String?

    public init(monitor: ECGLiveMonitor) {
        self.monitor = monitor
    }

    public func layout(_ screen: Rect) -> (main: Rect, pane: Rect) {
        if Double(screen.width) >= Self.wideAspect * Double(screen.height) {
            let width = min(screen.width, max(Self.minimumWidth, Int(Double(screen.width) * Self.share)))
            return (Rect(x: screen.x, y: screen.y, width: screen.width - width, height: screen.height),
                    Rect(x: screen.maxX - width, y: screen.y, width: width, height: screen.height))
        }
        let height = min(screen.height, max(Self.minimumHeight, Int(Double(screen.height) * Self.share)))
        return (Rect(x: screen.x, y: screen.y, width: screen.width, height: screen.height - height),
                Rect(x: screen.x, y: screen.maxY - height, width: screen.width, height: height))
    }

    public func update(now: Double) {
        guard failure == nil else { return }
        do {
            try monitor.update(now: now)
        } catch {
            failure = "\(error)"
        }
    }

    public func render(in rect: Rect, into buffer: inout Buffer) {
        monitor.render(in: rect, into: &buffer)
        if let failure {
            let row = Rect(x: rect.x, y: rect.y, width: rect.width, height: 1)
            buffer.fill(row, with: Cell(" ", style: Self.failureStyle))
            buffer.put(" ECG: \(failure)", x: row.x, y: row.y, limit: row.maxX, style: Self.failureStyle)
            monitor.invalidate()
        }
    }

    public func presented(at now: Double) { monitor.presented(at: now) }
}
