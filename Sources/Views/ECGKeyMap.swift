import Terminal
import ViewModels

/// Keys of the ECG viewer: space pause, ←/→ strip length, ↑/↓ gain, v
/// strip/12-lead, l next leads, e event list, t heart-rate trend, [ ] the synthetic source's
/// sample rate, - + the refresh rate, < > a record's replay speed, q (or Ctrl-C) quit. With the event list
/// open, ↑/↓ select, x deletes, e or Esc close it.
public enum ECGKeyMap {
    public static let helpText = "space pause  ←/→ length  ↑/↓ gain  v 12-lead  l leads  e events  t trend  [/] rate  -/+ fps  </> speed  q quit"

    public static func intent(for event: InputEvent, eventListOpen: Bool) -> ECGIntent? {
        guard case .key(let key) = event else { return nil }
        if key.modifiers.contains(.ctrl) {
            if case .character("c") = key.code { return .quit }
            return nil
        }
        if eventListOpen {
            switch key.code {
            case .up: return .moveEventSelection(-1)
            case .down: return .moveEventSelection(1)
            case .escape: return .closeEventList
            case .character("x"), .character("X"), .delete: return .deleteSelectedEvent
            default: break
            }
        }
        switch key.code {
        case .left: return .stepStripLength(-1)
        case .right: return .stepStripLength(1)
        case .up: return .stepGain(1)
        case .down: return .stepGain(-1)
        case .escape: return .quit
        case .character(let c):
            switch c {
            case " ": return .togglePause
            case "v", "V": return .toggleLayout
            case "l", "L": return .nextLeads
            case "e", "E": return .toggleEventList
            case "t", "T": return .toggleTrend
            case "[": return .stepSampleRate(-1)
            case "]": return .stepSampleRate(1)
            case "-", "_": return .stepRefreshRate(-1)
            case "+", "=": return .stepRefreshRate(1)
            case "<", ",": return .stepPlaybackSpeed(-1)
            case ">", ".": return .stepPlaybackSpeed(1)
            case "q", "Q": return .quit
            default: return nil
            }
        default: return nil
        }
    }
}
