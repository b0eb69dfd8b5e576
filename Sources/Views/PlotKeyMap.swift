import Terminal
import ViewModels

/// Keys of the spectrum plot: ←/→ pan, +/- zoom, ↑/↓ display gain, a
/// autoscale, space pause/resume, q (or Esc, Ctrl-C) quit.
public enum PlotKeyMap {
    /// pan step per arrow press [fraction of the span]
    static let panStep = 0.1
    /// zoom factor per +/- press
    static let zoomStep = 0.5

    public static func intent(for event: InputEvent) -> PlotIntent? {
        guard case .key(let key) = event else { return nil }
        switch key.code {
        case .left: return .pan(fractionOfSpan: -panStep)
        case .right: return .pan(fractionOfSpan: panStep)
        case .up: return .increaseDisplayGain
        case .down: return .decreaseDisplayGain
        case .escape: return .quit
        case .character(let c):
            if key.modifiers.contains(.ctrl) { return c == "c" ? .quit : nil }
            switch c {
            case "+", "=": return .zoom(factor: zoomStep)
            case "-", "_": return .zoom(factor: 1 / zoomStep)
            case " ": return .togglePause
            case "a", "A": return .autoscale
            case "q", "Q": return .quit
            default: return nil
            }
        default: return nil
        }
    }
}
