import DSP
import Signals

/// The zero-span view's state: what it asks of the analyzer (RBW, sweep
/// time, trigger; the frequency is the centre of the band on screen, as a
/// bench analyzer's zero span keeps its centre frequency) and the newest
/// trace with its measurements. Pure: the viewer hands it traces from a
/// `ZeroSpanMailbox` and a one-line notice when zero span cannot run.
///
/// Storage for the trace is kept from one to the next (`take` swaps).
public final class ZeroSpanModel {
    /// RBWs `w`/`W` step through, as a bench analyzer's 1–3 sequence [Hz]
    public static let rbwSteps: [Double] = [100, 300, 1e3, 3e3, 10e3, 30e3, 100e3, 300e3, 1e6]
    /// sweep times `[`/`]` step through, 1–2–5 [s]
    public static let sweepSteps: [Double] = [500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3, 200e-3,
                                              500e-3, 1, 2, 5, 10]
    public static let defaultRBWHz = 1e6  // a pulse of a few µs keeps its shape
    public static let defaultSweepSeconds = 10e-3
    /// what a typed RBW may be [Hz]: the narrowest filter to the widest any radio here takes (HackRF at 20 MS/s);
    /// the analyzer narrows it further to what it takes (the trace's info says what it measured with)
    public static let rbwLimits: ClosedRange<Double> = ZeroSpanPlan.narrowestRBWHz...2.5e6
    /// what a typed sweep time may be [s]; the analyzer lengthens it to what its points need
    public static let sweepLimits: ClosedRange<Double> = 1e-6...ZeroSpanPlan.longestSweepSeconds
    /// what a typed trigger level may be [dB or dBm]
    public static let triggerLimits: ClosedRange<Double> = -200...50

    /// the RBW asked for [Hz]: a step of `rbwSteps` or a typed value
    public private(set) var rbwHz = ZeroSpanModel.defaultRBWHz
    /// the sweep time asked for [s]: a step of `sweepSteps` or a typed value
    public private(set) var sweepSeconds = ZeroSpanModel.defaultSweepSeconds
    public private(set) var trigger: ZeroSpanTrigger?
    /// the edge a trigger fires on: kept while the trace free-runs, so a level typed next uses it
    public private(set) var triggerSlope = ZeroSpanTrigger.Slope.rising
    /// share of the trace before the trigger [%]
    public let preTriggerPercent = 10.0

    /// the newest trace [dB or dBm], oldest point first; empty before the first
    public private(set) var levels: [Float] = []
    /// its facts, nil before the first
    public private(set) var info: ZeroSpanTraceInfo?
    /// its pulses and their timing
    public private(set) var train: PulseTrain?
    /// why zero span is not running (no I/Q from this analyzer, a replay); nil when it runs
    public var notice: String?
    /// traces the view fits its dB window to (`fittedTraces` when the view is entered: the first
    /// fits it, the next move it where they differ by more than the tolerance, so a first trace taken
    /// while the analyzer settles does not leave the axis wrong); 0 once the user sets the levels
    public var tracesToFit = ZeroSpanModel.fittedTraces
    public static let fittedTraces = 5

    public init() {}

    /// What the analyzer is asked for at `frequencyHz`.
    public func settings(frequencyHz: Double) -> ZeroSpanSettings {
        ZeroSpanSettings(frequencyHz: frequencyHz, rbwHz: rbwHz, sweepSeconds: sweepSeconds, trigger: trigger,
                         preTriggerPercent: preTriggerPercent)
    }

    /// `w`/`W`: to the next value of `rbwSteps` below or above the RBW (a typed one between steps included).
    public func stepRBW(by steps: Int) {
        rbwHz = Self.step(rbwHz, by: steps, through: Self.rbwSteps)
    }

    /// `[`/`]`: to the next value of `sweepSteps` below or above the sweep time.
    public func stepSweep(by steps: Int) {
        sweepSeconds = Self.step(sweepSeconds, by: steps, through: Self.sweepSteps)
    }

    /// `value` moved `steps` values along `list` (ascending), stopping at its ends.
    static func step(_ value: Double, by steps: Int, through list: [Double]) -> Double {
        var value = value
        for _ in 0..<abs(steps) {
            if steps > 0 {
                value = list.first { $0 > value * (1 + 1e-9) } ?? max(value, list.last ?? value)
            } else {
                value = list.last { $0 < value * (1 - 1e-9) } ?? min(value, list.first ?? value)
            }
        }
        return value
    }

    /// A typed RBW [Hz]; nil when accepted, else the complaint for the drawer.
    public func setRBW(_ hz: Double) -> String? {
        guard hz.isFinite, Self.rbwLimits.contains(hz) else {
            return "RBW: \(FrequencyFormat.label(Self.rbwLimits.lowerBound)) to \(FrequencyFormat.label(Self.rbwLimits.upperBound))"
        }
        rbwHz = hz
        return nil
    }

    /// A typed sweep time [s]; nil when accepted, else the complaint for the drawer.
    public func setSweep(_ seconds: Double) -> String? {
        guard seconds.isFinite, Self.sweepLimits.contains(seconds) else {
            return "sweep: \(TimeFormat.label(Self.sweepLimits.lowerBound)) to \(TimeFormat.label(Self.sweepLimits.upperBound))"
        }
        sweepSeconds = seconds
        return nil
    }

    /// A typed trigger level [dB or dBm]: the trigger at it on the chosen edge; nil when accepted.
    public func setTriggerLevel(_ level: Double) -> String? {
        guard level.isFinite, Self.triggerLimits.contains(level) else {
            return "trigger: \(Int(Self.triggerLimits.lowerBound)) to \(Int(Self.triggerLimits.upperBound)) dB"
        }
        trigger = ZeroSpanTrigger(levelDB: level, slope: triggerSlope)
        return nil
    }

    /// The drawer's edge field: rising → falling → free run → rising (forward; `backward` the other way).
    /// Free run keeps the level's place: the next edge chosen triggers at the level the trace had, or at
    /// the middle of `bottomDB`…`topDB` when it never had one.
    public func cycleTriggerEdge(backward: Bool = false, bottomDB: Double, topDB: Double) {
        let order: [ZeroSpanTrigger.Slope?] = [.rising, .falling, nil]
        let now = trigger.map(\.slope)
        let index = order.firstIndex { $0 == now } ?? 0
        let next = order[(index + (backward ? order.count - 1 : 1)) % order.count]
        guard let slope = next else {
            lastLevelDB = trigger?.levelDB ?? lastLevelDB
            trigger = nil
            return
        }
        triggerSlope = slope
        let level = trigger?.levelDB ?? lastLevelDB ?? ((bottomDB + topDB) / 2 * 2).rounded() / 2
        trigger = ZeroSpanTrigger(levelDB: level, slope: slope)
    }

    /// the level of the trigger last set, kept while free running [dB]
    private var lastLevelDB: Double?

    /// `t`: a rising trigger halfway in dB between the trace's floor and its
    /// peak (a scope's "50 %" level), or, with a trigger set, free run again.
    /// Without a trace to measure, the level is the middle of the dB window
    /// `bottomDB`…`topDB`.
    public func toggleTrigger(bottomDB: Double, topDB: Double) {
        if let trigger {
            lastLevelDB = trigger.levelDB
            self.trigger = nil
            return
        }
        var level = (bottomDB + topDB) / 2
        if let floor = train?.floorDB, let peak = levels.lazy.filter({ $0.isFinite }).max(), floor.isFinite,
           Double(peak) - floor >= 6 {
            level = (floor + Double(peak)) / 2
        }
        trigger = ZeroSpanTrigger(levelDB: (level * 2).rounded() / 2, slope: triggerSlope)
    }

    /// Sets the trigger (`--trigger`-like start), or free run with nil.
    public func setTrigger(_ trigger: ZeroSpanTrigger?) {
        if let trigger { triggerSlope = trigger.slope }
        self.trigger = trigger
    }

    /// Takes the mailbox's newest trace, if one came: true when it did.
    @discardableResult
    public func take(from mailbox: ZeroSpanMailbox) -> Bool {
        guard let info = mailbox.take(into: &levels) else { return false }
        accept(info)
        return true
    }

    /// A trace given whole (tests, goldens).
    public func show(levels: [Float], info: ZeroSpanTraceInfo) {
        self.levels = levels
        accept(info)
    }

    private func accept(_ info: ZeroSpanTraceInfo) {
        self.info = info
        notice = nil
        train = PulseMeasurement.measure(levelsDB: levels, pointSeconds: info.pointSeconds,
                                         sampleSeconds: info.sampleSeconds)
    }

    /// Forgets the trace (the view was left: the next entry starts afresh).
    public func forgetTrace() {
        info = nil
        train = nil
        levels.removeAll(keepingCapacity: true)
        tracesToFit = Self.fittedTraces
    }

    /// the trace's time of point `k`, from the trigger (negative before it) or the trace's start [s]
    public func seconds(atPoint k: Double) -> Double? {
        guard let info else { return nil }
        return (k - Double(info.preTriggerPoints)) * info.pointSeconds
    }
}
