import Terminal
import ViewModels

/// Keys of the analyzer: the plot's keys (PlotKeyMap) in every view, plus
/// the digits 1… (AnalyzerMode's raw values) and Tab for the views, PgUp/PgDn
/// (views of levels: dB offset; of time, the waterfall: back in time / towards
/// now), Home/End (now), [ ] (what the view's `stepTimeDepth` steps: the
/// waterfall period, the persistence time), r (the view's `rKey`: record, or
/// reset min/max in the meter), R (record in every view),
/// b (the band plan's channel grid), l (logarithmic frequency axis), e (the
/// plot's measurement: harmonics, TOI, ACPR, noise marker, off), d (drawer), ? (help). With the drawer open, arrows move between and
/// nudge its fields, Enter starts typing a number (or switches a choice),
/// Esc closes it; every other key keeps its meaning, and digits type only
/// after Enter.
///
/// In a replay: space pauses the playhead, < > (or , .) halve and double the
/// speed, shift+←/→ skip 10 s, Home/End go to the start/end, g opens a typed
/// time (digits, `:`; Enter goes there, Esc cancels).
public enum AnalyzerKeyMap {
    /// PgUp/PgDn in the plot moves the dB window by this fraction of its span
    static let levelStep = 0.1
    /// PgUp/PgDn in the waterfall scrolls by this fraction of the period
    static let timeStep = 0.5
    /// shift+←/→ in a replay skips this much file time [s]
    static let replaySkipSeconds = 10.0

    public static func intent(for event: InputEvent, model: AnalyzerModel) -> AnalyzerIntent? {
        guard case .key(let key) = event else { return nil }
        if model.showsHelp, key.code == .escape || key.code == .character("?") { return .toggleHelp }
        if model.drawer.isOpen,
           let intent = drawerIntent(for: key, editing: model.drawer.editText != nil) { return intent }
        if model.replay != nil {
            if model.timeEntry != nil { return timeEntryIntent(for: key) }
            if let intent = replayIntent(for: key) { return intent }
        }
        switch key.code {
        case .tab: return .nextMode
        case .backtab: return .show(model.mode.previous)
        case .pageUp: return pageIntent(model: model, towardsPast: true)
        case .pageDown: return pageIntent(model: model, towardsPast: false)
        case .home, .end: return .scrollToNow
        case .character(let c) where !key.modifiers.contains(.ctrl):
            // a digit shows the view it numbers (AnalyzerMode's raw value)
            if ("0"..."9").contains(c), let wanted = AnalyzerMode(rawValue: Int(c.value) - 48) {
                return .show(wanted)
            }
            switch c {
            // the view says what [ ] step and what r does there (AnalyzerMode)
            case "[": return model.mode.stepTimeDepth(-1)
            case "]": return model.mode.stepTimeDepth(1)
            case "r": return model.mode.rKey
            case "R": return .toggleRecording
            // t: the trace mode, or zero span's trigger (the view says, AnalyzerMode.tKey)
            case "t", "T": return model.mode.tKey
            case "w": return .stepZeroSpanRBW(-1)
            case "W": return .stepZeroSpanRBW(1)
            case "m": return .marker(.highestPeak)
            case "n": return .marker(.nextPeak(right: true))
            case "N": return .marker(.nextPeak(right: false))
            case "M": return .marker(.cycle)
            case "x": return .marker(.toggleDelta)
            case "e": return .cycleMeasurement
            case "s": return .storeReference
            case "S": return .clearReference
            case "b", "B": return .toggleChannelGrid
            case "l", "L": return .plot(.toggleLogFrequency)
            case "d", "D": return .toggleDrawer
            case "?": return .toggleHelp
            default: break
            }
        default: break
        }
        return PlotKeyMap.intent(for: event).map { .plot($0) }
    }

    private static func pageIntent(model: AnalyzerModel, towardsPast: Bool) -> AnalyzerIntent {
        let sign = towardsPast ? 1.0 : -1.0
        switch model.mode.verticalAxis {
        case .time: return .scrollTime(seconds: sign * timeStep * model.waterfall.periodSeconds)
        case .level, .none:
            // PgUp shows higher levels (the trace moves down), like dragging it down
            return .shiftLevels(decibels: sign * levelStep * model.plot.displaySpanDB)
        }
    }

    private static func replayIntent(for key: KeyEvent) -> AnalyzerIntent? {
        switch key.code {
        case .left where key.modifiers.contains(.shift): return .replay(.skip(seconds: -replaySkipSeconds))
        case .right where key.modifiers.contains(.shift): return .replay(.skip(seconds: replaySkipSeconds))
        case .home: return .replay(.toStart)
        case .end: return .replay(.toEnd)
        case .character(let c) where !key.modifiers.contains(.ctrl):
            switch c {
            case "<", ",": return .replay(.stepSpeed(faster: false))
            case ">", ".": return .replay(.stepSpeed(faster: true))
            case "g", "G": return .timeEntry(.begin)
            default: return nil
            }
        default: return nil
        }
    }

    /// While a time is typed every key belongs to it; others are ignored.
    private static func timeEntryIntent(for key: KeyEvent) -> AnalyzerIntent? {
        switch key.code {
        case .enter: return .timeEntry(.commit)
        case .backspace: return .timeEntry(.erase)
        case .escape: return .timeEntry(.cancel)
        case .character(let c) where key.modifiers.contains(.ctrl) && c == "c": return .plot(.quit)
        case .character(let c) where c.properties.numericType != nil || c == ":" || c == ".":
            return .timeEntry(.type(Character(c)))
        default: return nil
        }
    }

    private static func drawerIntent(for key: KeyEvent, editing: Bool) -> AnalyzerIntent? {
        let large = key.modifiers.contains(.shift)
        switch key.code {
        case .up: return .drawer(.focus(-1))
        case .down: return .drawer(.focus(1))
        case .left: return .drawer(.adjust(steps: -1, large: large))
        case .right: return .drawer(.adjust(steps: 1, large: large))
        case .enter: return .drawer(editing ? .commit : .edit)
        case .backspace where editing: return .drawer(.erase)
        case .escape: return .drawer(.cancel)
        case .character(let c) where editing && key.modifiers.isEmpty
            && (c.properties.numericType != nil || c == "." || c == "-"):
            return .drawer(.type(Character(c)))
        default: return nil
        }
    }
}
