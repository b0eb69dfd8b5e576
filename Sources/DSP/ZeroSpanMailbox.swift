import Signals
import ThreadKit

/// What a view asks of zero span: the frequency, the RBW, the time a trace
/// spans and the trigger. A setting, not a plan: the analyzer's side checks
/// it against the radio (`ZeroSpanPlan`) and may narrow the RBW to what the
/// radio takes.
public struct ZeroSpanSettings: Sendable, Equatable {
    /// [Hz]
    public var frequencyHz: Double
    public var rbwHz: Double
    /// [s]
    public var sweepSeconds: Double
    public var trigger: ZeroSpanTrigger?
    /// share of the trace before the trigger [%]
    public var preTriggerPercent: Double

    public init(frequencyHz: Double, rbwHz: Double, sweepSeconds: Double, trigger: ZeroSpanTrigger? = nil,
                preTriggerPercent: Double = 10) {
        self.frequencyHz = frequencyHz
        self.rbwHz = rbwHz
        self.sweepSeconds = sweepSeconds
        self.trigger = trigger
        self.preTriggerPercent = preTriggerPercent
    }
}

/// One finished zero-span trace's facts, beside its levels.
public struct ZeroSpanTraceInfo: Sendable, Equatable {
    /// [Hz]
    public var frequencyHz: Double
    /// the RBW really measured with [Hz]
    public var rbwHz: Double
    /// one point's span and one sample's [s]
    public var pointSeconds: Double
    public var sampleSeconds: Double
    public var trigger: ZeroSpanTrigger?
    /// points before the trigger's (0 free-running)
    public var preTriggerPoints: Int
    public var unit: PowerUnit
    /// traces finished since the measurement started (1 the first)
    public var number: Int
    /// samples lost to a consumer falling behind, so far
    public var droppedSamples: Int
    /// who measured: "RBW filter on I/Q" or "the tinySA's own zero span"
    public var source: String

    public init(frequencyHz: Double, rbwHz: Double, pointSeconds: Double, sampleSeconds: Double,
                trigger: ZeroSpanTrigger?, preTriggerPoints: Int, unit: PowerUnit, number: Int,
                droppedSamples: Int, source: String) {
        self.frequencyHz = frequencyHz
        self.rbwHz = rbwHz
        self.pointSeconds = pointSeconds
        self.sampleSeconds = sampleSeconds
        self.trigger = trigger
        self.preTriggerPoints = preTriggerPoints
        self.unit = unit
        self.number = number
        self.droppedSamples = droppedSamples
        self.source = source
    }

    /// the time the trace spans [s]
    public func sweepSeconds(points: Int) -> Double { Double(points) * pointSeconds }
}

/// The newest zero-span trace, from the DSP thread to the UI: `post` copies
/// the levels into storage kept between traces (never waits on the UI, never
/// allocates once the point count is steady), `take` swaps them out. A trace
/// the UI did not take is replaced by the next; only the newest is drawn.
public final class ZeroSpanMailbox: Sendable {
    private struct State {
        var levels: [Float] = []
        var info: ZeroSpanTraceInfo?
        var fresh = false
    }

    private let state = Guarded(State())

    public init() {}

    /// Puts a finished trace in (DSP thread).
    public func post(_ levels: UnsafeBufferPointer<Float>, info: ZeroSpanTraceInfo) {
        state.withLock { state in
            if state.levels.count != levels.count {
                state.levels = [Float](repeating: 0, count: levels.count)
            }
            state.levels.withUnsafeMutableBufferPointer { out in
                for k in 0..<levels.count { out[k] = levels[k] }
            }
            state.info = info
            state.fresh = true
        }
    }

    /// The newest trace since the last take, swapped into `levels` (whose
    /// old storage the mailbox keeps for the next post); nil when none came.
    public func take(into levels: inout [Float]) -> ZeroSpanTraceInfo? {
        state.withLock { state -> ZeroSpanTraceInfo? in
            guard state.fresh else { return nil }
            state.fresh = false
            swap(&state.levels, &levels)
            return state.info
        }
    }

    /// Forgets an untaken trace (a new measurement starts).
    public func clear() {
        state.withLock { $0.fresh = false }
    }
}
