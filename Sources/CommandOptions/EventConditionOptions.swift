import ArgumentParser
import Capture
import DSP
import Runs
import ViewModels

/// The condition of `events` (and of `watch`'s event list): one of --above,
/// --mask or --over-baseline (with --learn or --baseline), --for, --hysteresis.
public struct EventConditionOptions: ParsableArguments {
    public init() {}

    @Option(parsing: .unconditional, help: "Level [dB or dBm, the device's unit] a bin must exceed, e.g. -60.")
    public var above: Float?

    @Option(help: "Limit line: CSV of frequency_hz,level_db rows; a header level_dbm, level_dbuv, level_dbmv or level_dbuv_m states its unit (converted to the levels' unit), level_db or none: the levels' unit.")
    public var mask: String?

    @Option(name: .customLong("over-baseline"), parsing: .unconditional,
            help: "dB a bin must rise over the baseline (--learn or --baseline).")
    public var overBaseline: Float?

    @Option(help: "Learn the baseline as the per-bin median of this long first, e.g. 30s or 5m.",
            transform: TimeSpan.init(parsing:))
    public var learn: TimeSpan?

    @Option(help: "Baseline CSV of frequency_hz,power_db rows (`export --csv F --trace avg`).")
    public var baseline: String?

    @Option(name: .customLong("for"), help: "How long the condition must hold before an event starts (default 0).",
            transform: TimeSpan.init(parsingZeroOrMore:))
    public var holdFor: TimeSpan = .zero

    @Option(help: "An event ends when every bin is this many dB below the limit (default 0).")
    public var hysteresis: Float = 0

    /// one condition was given
    public var isGiven: Bool { above != nil || mask != nil || overBaseline != nil }

    public func validate() throws {
        let conditions = [above != nil, mask != nil, overBaseline != nil].filter { $0 }.count
        guard conditions <= 1 else { throw ValidationError("give one condition: --above LEVEL, --mask FILE or --over-baseline DB") }
        if overBaseline != nil, (learn == nil) == (baseline == nil) {
            throw ValidationError("--over-baseline needs one of --learn DURATION or --baseline FILE")
        }
        if overBaseline == nil, learn != nil || baseline != nil {
            throw ValidationError("--learn and --baseline go with --over-baseline DB")
        }
        if let above, !above.isFinite { throw ValidationError("--above \(above): expected a level in dB") }
        guard hysteresis.isFinite, hysteresis >= 0 else { throw ValidationError("--hysteresis \(hysteresis): expected dB ≥ 0") }
    }

    public func holdSeconds() -> Double { holdFor.seconds }

    public func learnSeconds() -> Double? { learn?.seconds }

    /// The condition, with its files read (nil: a baseline to learn, or none given).
    public func condition() throws -> EventCondition? {
        if let above { return .above(above) }
        if let mask { return .mask(try LevelPointsCSV.read(path: mask), unit: try LevelPointsCSV.unit(path: mask)) }
        if let overBaseline, let baseline {
            return .overBaseline(offsetDB: overBaseline, baseline: try LevelPointsCSV.read(path: baseline))
        }
        return nil
    }
}

