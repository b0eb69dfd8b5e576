import Terminal
import ViewModels

/// Keys of the ECG viewer: space pause, ←/→ strip length, ↑/↓ gain, v
/// strip/12-lead, l next leads, e event list, t heart-rate trend, [ ] the synthetic source's
/// sample rate, - + the refresh rate, < > a record's replay speed, q (or Ctrl-C) quit. With the event list
/// open, ↑/↓ select, x deletes, e or Esc close it.
public enum ECGKeyMap {
    public static let helpText = helpText(layout: .strip)

    /// The key line for `layout`: `v` is named by what it switches to (in the 12-lead printout it goes to
    /// the strips), so a user never presses it expecting the view already shown.
    public static func helpText(layout: ECGMonitorModel.Layout) -> String {
        "space pause  ←/→ length  ↑/↓ gain  v \(layout == .twelveLead ? "strips" : "12-lead")  l leads  e events  ? keys  q quit"
    }

    /// The key line over beats alone (a heart-rate strap): the trend is the view, the strip keys do nothing.
    public static let trendOnlyHelpText = "e events  - + refresh  ? keys  q quit"

    /// What `?` shows: every key and what it does.
    public static let helpLines = [
        " keys",
        " space     pause / resume",
        " ←/→       strip length (s across the screen)",
        " ↑/↓       gain (mm/mV)",
        " v         stacked strips / 12-lead printout",
        " l         next leads (strips)",
        " e         event list (↑/↓ select, x delete)",
        " t         heart-rate trend (against the .atr or --target-hr)",
        " [ / ]     sample rate (synthetic source)",
        " - / +     frames per second",
        " < / >     replay speed (a record)",
        " ?         this help (Esc closes)",
        " q         quit",
        "",
        " paper: 25 mm/s, 10 mm/mV; minor and major boxes",
        " 0.04 s / 0.2 s (0.2 s / 1 s where too fine)",
    ]

    public static func intent(for event: InputEvent, eventListOpen: Bool, helpOpen: Bool = false) -> ECGIntent? {
        guard case .key(let key) = event else { return nil }
        if key.modifiers.contains(.ctrl) {
            if case .character("c") = key.code { return .quit }
            return nil
        }
        if helpOpen, key.code == .escape || key.code == .character("?") { return .toggleHelp }
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
            case "?": return .toggleHelp
            case "q", "Q": return .quit
            default: return nil
            }
        default: return nil
        }
    }
}
