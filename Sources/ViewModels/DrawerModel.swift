/// One setting in the control drawer.
public enum DrawerField: Sendable, Equatable, CaseIterable {
    /// frequency range: lower thumb / start field [MHz]
    case rangeStart
    /// frequency range: upper thumb / stop field [MHz]
    case rangeStop
    /// plot: dB across the plot (smaller = more display gain)
    case displaySpan
    /// waterfall: history period
    case period
    /// meter: measured band start [MHz]
    case bandStart
    /// meter: measured band stop [MHz]
    case bandStop
    /// plot and waterfall: the dB window follows the data continuously
    case autoLevels
    /// waterfall: how a row's bins and frames combine (peak or average)
    case detector
    /// plot: the trace mode (live, max hold, min hold, average), as t cycles it
    case trace
    /// persistence: how long a hit takes to fade (the decay time) [s]
    case persistence
    /// plot, while ACPR is measured: the main and adjacent channels' width [kHz]
    case channelWidth
    /// plot, while ACPR is measured: the adjacent channels' spacing from the main one [kHz]
    case channelSpacing
    /// zero span: the RBW filter's −3 dB width [kHz]
    case zeroSpanRBW
    /// zero span: the time one trace spans [ms]
    case zeroSpanSweep
    /// zero span: the trigger's level [dB, or dBm calibrated]; typing one sets the trigger
    case triggerLevel
    /// zero span: the trigger's edge, rising or falling, or free run
    case triggerEdge

    public var label: String {
        switch self {
        case .rangeStart: return "start MHz"
        case .rangeStop: return "stop MHz"
        case .displaySpan: return "gain: dB span"
        case .period: return "period"
        case .bandStart: return "band start MHz"
        case .bandStop: return "band stop MHz"
        case .autoLevels: return "auto levels"
        case .detector: return "detector"
        case .trace: return "trace"
        case .persistence: return "persistence"
        case .channelWidth: return "ACPR ch kHz"
        case .channelSpacing: return "ACPR spacing kHz"
        case .zeroSpanRBW: return "RBW kHz"
        case .zeroSpanSweep: return "sweep ms"
        case .triggerLevel: return "trigger dB"
        case .triggerEdge: return "trigger edge"
        }
    }

    /// Fields the drawer holds in `mode` (the view list's `drawerFields`).
    public static func fields(for mode: AnalyzerMode) -> [DrawerField] { mode.drawerFields }

    /// true for the frequency-range slider thumbs
    public var isThumb: Bool { self == .rangeStart || self == .rangeStop }

    /// true for the fields that are a choice (←/→, Enter or space switch
    /// them), not a typed number
    public var isChoice: Bool { self == .autoLevels || self == .detector || self == .trace || self == .triggerEdge }
}

/// The control drawer's own state: open or not, which field has the focus,
/// and the text being typed into it.
public struct DrawerModel: Sendable, Equatable {
    public private(set) var isOpen = false
    public private(set) var focus: DrawerField = .rangeStart
    /// text typed into the focused field, not yet applied; nil when not editing
    public private(set) var editText: String?

    /// longest number the fields accept [characters]
    static let maximumEditLength = 12

    public init() {}

    public mutating func toggle() {
        isOpen.toggle()
        editText = nil
    }

    public mutating func close() {
        isOpen = false
        editText = nil
    }

    /// Moves the focus by `steps` among `fields` (wrapping).
    public mutating func moveFocus(by steps: Int, among fields: [DrawerField]) {
        editText = nil
        guard !fields.isEmpty else { return }
        let current = fields.firstIndex(of: focus) ?? 0
        focus = fields[((current + steps) % fields.count + fields.count) % fields.count]
    }

    public mutating func select(_ field: DrawerField) {
        if field != focus { editText = nil }
        focus = field
    }

    /// Keeps the focus on a field of `fields` (after a mode change).
    public mutating func keepFocus(among fields: [DrawerField]) {
        if !fields.contains(focus), let first = fields.first {
            focus = first
            editText = nil
        }
    }

    /// Enter on a number field: typing starts (digits are view keys until then).
    public mutating func beginEdit() {
        if editText == nil { editText = "" }
    }

    /// Appends a digit, '.' or '-' to the typed text; other characters are ignored.
    public mutating func type(_ character: Character) {
        guard character.isASCII, character.isNumber || character == "." || character == "-" else { return }
        var text = editText ?? ""
        guard text.count < Self.maximumEditLength else { return }
        text.append(character)
        editText = text
    }

    public mutating func erase() {
        guard var text = editText else { return }
        if !text.isEmpty { text.removeLast() }
        editText = text
    }

    /// The typed value, clearing the edit; nil when nothing parseable was typed.
    public mutating func takeTypedValue() -> Double? {
        defer { editText = nil }
        guard let text = editText, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Esc: drop the typed text and close (one Esc always closes).
    public mutating func cancel() {
        close()
    }
}
