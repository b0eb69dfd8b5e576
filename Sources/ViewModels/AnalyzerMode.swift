/// The analyzer's views of the same spectrum stream, in Tab order: the one
/// list of views. The raw value is the digit key that shows the view, and
/// every fact the rest of the program asks about a view is a property here —
/// its `--view` title, key help, drawer fields, what its axes mean to the keys
/// and the mouse — so a new view is a new case answered in this file, plus
/// its drawing in `AnalyzerScreen`'s dispatch (the compiler points at both).
/// Elsewhere the code asks these properties and never compares modes
/// (`ViewListTests` holds that).
public enum AnalyzerMode: Int, Sendable, CaseIterable, Equatable {
    /// power against frequency, now
    case plot = 1
    /// power as colour, frequency against time
    case waterfall = 2
    /// aggregate power over a band, large
    case meter = 3
    /// how often the spectrum landed at each frequency and level (density, "DPX")
    case persistence = 4
    /// the share of sweeps each frequency was occupied (above the noise floor + 10 dB), since the band was tuned
    case occupancy = 5
    /// power against time at the band's centre frequency (a bench analyzer's zero span), with pulse timing
    case zerospan = 6

    /// The view's name: `--view`, the drawer's title, the `?` overlay.
    public var title: String {
        switch self {
        case .plot: return "plot"
        case .waterfall: return "waterfall"
        case .meter: return "meter"
        case .persistence: return "persistence"
        case .occupancy: return "occupancy"
        case .zerospan: return "zerospan"
        }
    }

    /// The view a title names (`--view`), nil for none.
    public init?(title: String) {
        guard let mode = Self.allCases.first(where: { $0.title == title }) else { return nil }
        self = mode
    }

    /// The digit key that shows the view.
    public var digit: Character { Character(String(rawValue)) }

    /// Tab order: each case in turn, the last back to the first.
    public var next: AnalyzerMode { step(1) }
    /// Shift+Tab: the other way round.
    public var previous: AnalyzerMode { step(-1) }

    private func step(_ offset: Int) -> AnalyzerMode {
        let all = Self.allCases
        let index = all.firstIndex(of: self) ?? 0
        return all[((index + offset) % all.count + all.count) % all.count]
    }

    // MARK: keys and gestures

    /// What a view's rows stand for, which decides what PgUp/PgDn, a
    /// vertical drag and the wheel do in it.
    public enum VerticalAxis: Sendable, Equatable {
        /// power levels: PgUp/PgDn and vertical drag move the dB window,
        /// ctrl/shift+wheel changes the display gain
        case level
        /// time: PgUp/PgDn, vertical drag and the wheel scroll through the
        /// history, ctrl+wheel changes its period, shift+wheel zooms
        case time
        /// neither (a single reading): vertical drag and the wheel do
        /// nothing; PgUp/PgDn still move the dB window the other views share
        case none
    }

    public var verticalAxis: VerticalAxis {
        switch self {
        case .plot, .persistence: return .level
        case .waterfall: return .time
        case .meter, .occupancy: return .none
        case .zerospan: return .level
        }
    }

    /// Frequency runs across the view: a sideways drag or wheel pans, the
    /// wheel zooms around the pointer. (The meter shows one band's number.)
    public var hasFrequencyAxis: Bool {
        switch self {
        case .plot, .waterfall, .persistence, .occupancy: return true
        case .meter, .zerospan: return false
        }
    }

    /// A click in the data pauses or resumes. Not in the waterfall, where a
    /// press starts scrolling through time and a slip of the hand would
    /// otherwise freeze the view.
    public var clickPauses: Bool {
        switch self {
        case .plot, .meter, .persistence, .occupancy, .zerospan: return true
        case .waterfall: return false
        }
    }

    /// What `[` and `]` step (by `steps` list entries) in the view: the
    /// persistence view's depth is its persistence time, zero span's its
    /// sweep time, every other view's the waterfall's history period (so
    /// `[ ]` set it before switching).
    public func stepTimeDepth(_ steps: Int) -> AnalyzerIntent {
        switch self {
        case .persistence: return .stepPersistence(steps)
        case .zerospan: return .stepZeroSpanSweep(steps)
        case .plot, .waterfall, .meter, .occupancy: return .stepPeriod(steps)
        }
    }

    /// What `r` does in the view: record, except in the meter, where it
    /// forgets min, max and peak (R records in every view).
    public var rKey: AnalyzerIntent {
        switch self {
        case .meter: return .resetMeter
        case .plot, .waterfall, .persistence, .occupancy, .zerospan: return .toggleRecording
        }
    }

    /// What `t` does in the view: the trace mode, except in zero span, where
    /// it sets a trigger at the trace's mid level or frees the run again.
    public var tKey: AnalyzerIntent {
        switch self {
        case .zerospan: return .toggleZeroSpanTrigger
        case .plot, .waterfall, .meter, .persistence, .occupancy: return .cycleTrace
        }
    }

    /// The view measures power against time at one frequency: the analyzer
    /// is asked for zero span (`TuningRequest.zeroSpan`) rather than a spectrum.
    public var measuresZeroSpan: Bool {
        switch self {
        case .zerospan: return true
        case .plot, .waterfall, .meter, .persistence, .occupancy: return false
        }
    }

    /// The marker keys (m n N M x) work and the marker table is drawn: the
    /// markers sit on the plot's trace.
    public var hasMarkers: Bool {
        switch self {
        case .plot: return true
        case .waterfall, .meter, .persistence, .occupancy, .zerospan: return false
        }
    }

    /// The device sweeps the view's own band (the meter's band, when one is
    /// set) rather than the visible band.
    public var tunesToMeterBand: Bool {
        switch self {
        case .meter: return true
        case .plot, .waterfall, .persistence, .occupancy, .zerospan: return false
        }
    }

    // MARK: drawer

    /// Fields the drawer holds in the view: the frequency range everywhere,
    /// plus the settings the view has (nothing cosmetic).
    public var drawerFields: [DrawerField] {
        switch self {
        case .plot: return [.rangeStart, .rangeStop, .displaySpan, .autoLevels, .trace]
        case .waterfall: return [.rangeStart, .rangeStop, .period, .autoLevels, .detector]
        case .meter: return [.rangeStart, .rangeStop, .bandStart, .bandStop, .trace]
        case .persistence: return [.rangeStart, .rangeStop, .displaySpan, .persistence, .autoLevels]
        case .occupancy: return [.rangeStart, .rangeStop]
        case .zerospan: return [.rangeStart, .rangeStop, .zeroSpanRBW, .zeroSpanSweep, .triggerLevel, .triggerEdge]
        }
    }

    // MARK: help

    /// The key help row's keys for the view, after the view keys
    /// (`AnalyzerScreen` puts "1/2/3/4 view" before it).
    public var helpKeys: String {
        switch self {
        case .plot: return "←/→ pan  +/- zoom  ↑/↓ gain  a auto  space pause  d drawer  ? keys  q quit"
        case .waterfall: return "←/→ pan  +/- zoom  PgUp/PgDn time  End now  [/] period  d drawer  ? keys  q quit"
        case .meter: return "r reset min/max  t trace  space pause  d drawer  ? keys  q quit"
        case .persistence: return "←/→ pan  +/- zoom  ↑/↓ gain  a auto  [/] persistence  d drawer  ? keys  q quit"
        case .occupancy: return "←/→ pan  +/- zoom  space pause  d drawer  ? keys  q quit"
        case .zerospan: return "[/] sweep time  w/W RBW  t trigger  ←/→ centre  ↑/↓ gain  a auto  space hold  ? keys  q quit"
        }
    }

    /// The view's own lines in the `?` overlay (key, what, gesture), which
    /// lists them view by view in this order after the keys every view shares.
    public var overlayLines: [String] {
        switch self {
        case .plot: return [" PgUp/PgDn   plot: dB offset      drag up/down"]
        case .waterfall:
            return [" PgUp/PgDn   waterfall: back/now  wheel, drag up/down",
                    " Home/End    waterfall: now",
                    " [ / ]       waterfall period     ctrl+wheel"]
        case .meter, .occupancy: return []
        case .persistence: return [" [ / ]       persistence: shorter / longer persistence time"]
        case .zerospan:
            return [" [ / ]       zero span: shorter / longer sweep time",
                    " w / W       zero span: narrower / wider RBW",
                    " t           zero span: trigger at the trace's mid level / free run",
                    " ←/→         zero span: centre frequency (of the band's span)"]
        }
    }

    /// A note after the view's name in `watch --help`, for a view whose name
    /// does not say what it shows; nil for none.
    public var commandHelpNote: String? {
        switch self {
        case .persistence: return "how often the spectrum was at each level; [ ] its persistence time"
        case .occupancy: return "the share of sweeps each frequency was 10 dB above the noise floor, as `occupancy --threshold auto` counts"
        case .zerospan: return "power against time at the band's centre frequency, with pulse width, period and duty; analyzers that stream I/Q"
        case .plot, .waterfall, .meter: return nil
        }
    }

    /// "1/2/3/4": every view's digit key, for the help row and `replay --help`.
    public static let digitKeys = allCases.map { String($0.digit) }.joined(separator: "/")

    /// "plot, waterfall, meter and persistence", for the commands' abstracts.
    public static var titlesInWords: String {
        let titles = allCases.map(\.title)
        guard let last = titles.last, titles.count > 1 else { return titles.first ?? "" }
        return titles.dropLast().joined(separator: ", ") + " and " + last
    }

    /// "1 plot, 2 waterfall, 3 meter, 4 persistence (…)": every view with its
    /// key and note, for `watch --help`.
    public static var keyedList: String {
        allCases.map { mode in
            "\(mode.digit) \(mode.title)" + (mode.commandHelpNote.map { " (\($0))" } ?? "")
        }.joined(separator: ", ")
    }
}
