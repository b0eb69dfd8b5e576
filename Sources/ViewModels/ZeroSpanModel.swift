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
    public static let defaultRBWIndex = 8  // 1 MHz: a pulse of a few µs keeps its shape
    public static let defaultSweepIndex = 4  // 10 ms

    public private(set) var rbwIndex = ZeroSpanModel.defaultRBWIndex
    public private(set) var sweepIndex = ZeroSpanModel.defaultSweepIndex
    public private(set) var trigger: ZeroSpanTrigger?
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
    /// the dB window is fitted to the next trace (set when the view is entered)
    public var needsAutoscale = true

    public init() {}

    public var rbwHz: Double { Self.rbwSteps[rbwIndex] }
    public var sweepSeconds: Double { Self.sweepSteps[sweepIndex] }

    /// What the analyzer is asked for at `frequencyHz`.
    public func settings(frequencyHz: Double) -> ZeroSpanSettings {
        ZeroSpanSettings(frequencyHz: frequencyHz, rbwHz: rbwHz, sweepSeconds: sweepSeconds, trigger: trigger,
                         preTriggerPercent: preTriggerPercent)
    }

    public func stepRBW(by steps: Int) {
        rbwIndex = min(max(rbwIndex + steps, 0), Self.rbwSteps.count - 1)
    }

    public func stepSweep(by steps: Int) {
        sweepIndex = min(max(sweepIndex + steps, 0), Self.sweepSteps.count - 1)
    }

    /// `t`: a rising trigger halfway in dB between the trace's floor and its
    /// peak (a scope's "50 %" level), or, with a trigger set, free run again.
    /// Without a trace to measure, the level is the middle of the dB window
    /// `bottomDB`…`topDB`.
    public func toggleTrigger(bottomDB: Double, topDB: Double) {
        if trigger != nil {
            trigger = nil
            return
        }
        var level = (bottomDB + topDB) / 2
        if let floor = train?.floorDB, let peak = levels.lazy.filter({ $0.isFinite }).max(), floor.isFinite,
           Double(peak) - floor >= 6 {
            level = (floor + Double(peak)) / 2
        }
        trigger = ZeroSpanTrigger(levelDB: (level * 2).rounded() / 2, slope: .rising)
    }

    /// Sets the trigger (`--trigger`-like start), or free run with nil.
    public func setTrigger(_ trigger: ZeroSpanTrigger?) { self.trigger = trigger }

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
        needsAutoscale = true
    }

    /// the trace's time of point `k`, from the trigger (negative before it) or the trace's start [s]
    public func seconds(atPoint k: Double) -> Double? {
        guard let info else { return nil }
        return (k - Double(info.preTriggerPoints)) * info.pointSeconds
    }
}
