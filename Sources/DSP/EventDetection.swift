import Foundation
import Signals

/// `tscope events`: when a condition on a band holds, on every sweep at the
/// device's bins (never on decimated columns). Pure state, no threads: the
/// caller feeds sweeps in time order and prints what comes back.
public enum EventCondition: Sendable, Equatable {
    /// any bin above this level [dB or dBm, the device's unit]
    case above(Float)
    /// any bin above a limit line: (frequency [Hz], level) points, linear
    /// between them, the end values beyond; `unit` is what its file states
    /// (nil: the levels' own unit), `converted(to:)` moves it to the levels'
    case mask([LevelPoint], unit: PowerUnit? = nil)
    /// any bin more than `offsetDB` above a per-frequency baseline (points as for a mask)
    case overBaseline(offsetDB: Float, baseline: [LevelPoint])

    /// The limit [dB] at each bin centre of a sweep's geometry.
    public func limits(startHz: Double, binWidthHz: Double, count: Int) -> [Float] {
        (0..<count).map { i in
            let hz = startHz + (Double(i) + 0.5) * binWidthHz
            switch self {
            case .above(let level): return level
            case .mask(let points, _): return LevelPoint.interpolate(points, at: hz)
            case .overBaseline(let offset, let baseline): return LevelPoint.interpolate(baseline, at: hz) + offset
            }
        }
    }
}

/// One point of a limit line or baseline.
public struct LevelPoint: Sendable, Equatable {
    public var hz: Double
    public var decibels: Float

    public init(hz: Double, decibels: Float) {
        self.hz = hz
        self.decibels = decibels
    }

    /// Linear interpolation between the points (sorted by frequency), the
    /// end values beyond them; NaN without points.
    public static func interpolate(_ points: [LevelPoint], at hz: Double) -> Float {
        PiecewiseLinear.value(at: hz, count: points.count, x: { points[$0].hz }, y: { Double(points[$0].decibels) })
            .map { Float($0) } ?? .nan
    }
}

/// One event: from the first to the last sweep that met the condition.
public struct DetectedEvent: Sendable, Equatable {
    /// times of the first and last sweep that met the condition [s since the Unix epoch]
    public var start: Double
    public var end: Double
    /// centre of the highest bin during the event [Hz] and its level [dB]
    public var peakHz: Double
    public var peakDB: Float
    /// extent of the bins that met the condition [Hz]: lower edge of the lowest, upper of the highest
    public var startHz: Double
    public var stopHz: Double
    /// sweeps that met the condition
    public var sweeps: Int

    public var durationSeconds: Double { end - start }
}

/// The per-sweep state machine of `tscope events`.
///
/// A sweep *meets* the condition when a bin inside the band exceeds its limit.
/// An event opens once sweeps have met it for `holdSeconds` without a break
/// (0: at the first such sweep) and ends at the first sweep where every bin in
/// the band is below its limit minus `hysteresisDB`; sweeps in between that
/// do not meet it keep the event open but are not counted. Its start is the
/// first sweep of the unbroken run that opened it, its end the last sweep
/// that met the condition.
public struct SweepEventTracker: Sendable {
    public enum Output: Sendable, Equatable {
        case opened(DetectedEvent)
        case closed(DetectedEvent)
    }

    public let condition: EventCondition
    public let band: FrequencyRange
    public let holdSeconds: Double
    public let hysteresisDB: Float

    /// the run of meeting sweeps that may become an event, or the open event
    private var candidate: DetectedEvent?
    private var isOpen = false
    /// limits for the current geometry, recomputed when it changes
    private var geometry: (startHz: Double, binWidthHz: Double, count: Int)?
    private var limits: [Float] = []
    private var inBand: Range<Int> = 0..<0

    public init(condition: EventCondition, band: FrequencyRange, holdSeconds: Double = 0, hysteresisDB: Float = 0) {
        self.condition = condition
        self.band = band
        self.holdSeconds = holdSeconds
        self.hysteresisDB = hysteresisDB
    }

    /// Feeds one sweep; returns an event that opened and/or closed with it.
    public mutating func add(_ frame: SpectrumFrame) -> [Output] {
        prepare(for: frame)
        var met = false, belowRelease = true
        var peak: (bin: Int, db: Float)?
        var lowBin = Int.max, highBin = Int.min
        frame.powerDB.withUnsafeBufferPointer { values in
            for i in inBand where !values[i].isNaN {
                let value = values[i]
                if value > limits[i] {
                    met = true
                    lowBin = min(lowBin, i)
                    highBin = max(highBin, i)
                }
                if value >= limits[i] - hysteresisDB { belowRelease = false }
                if peak == nil || value > peak!.db { peak = (i, value) }
            }
        }
        var outputs: [Output] = []
        if met, let peak {
            let lower = frame.startHz + Double(lowBin) * frame.binWidthHz
            let upper = frame.startHz + Double(highBin + 1) * frame.binWidthHz
            if var event = candidate {
                event.end = frame.timestamp
                event.sweeps += 1
                event.startHz = min(event.startHz, lower)
                event.stopHz = max(event.stopHz, upper)
                if peak.db > event.peakDB {
                    event.peakDB = peak.db
                    event.peakHz = frame.binCenterHz(peak.bin)
                }
                candidate = event
            } else {
                candidate = DetectedEvent(start: frame.timestamp, end: frame.timestamp, peakHz: frame.binCenterHz(peak.bin),
                                          peakDB: peak.db, startHz: lower, stopHz: upper, sweeps: 1)
            }
            if !isOpen, let event = candidate, event.end - event.start >= holdSeconds {
                isOpen = true
                outputs.append(.opened(event))
            }
        } else if isOpen {
            if belowRelease, let event = candidate {
                outputs.append(.closed(event))
                candidate = nil
                isOpen = false
            }
        } else {
            // the run broke before it held long enough
            candidate = nil
        }
        return outputs
    }

    /// At the end of the input: the open event, closed at its last meeting sweep.
    public mutating func finish() -> DetectedEvent? {
        defer {
            candidate = nil
            isOpen = false
        }
        return isOpen ? candidate : nil
    }

    private mutating func prepare(for frame: SpectrumFrame) {
        if let geometry, geometry.startHz == frame.startHz, geometry.binWidthHz == frame.binWidthHz,
           geometry.count == frame.powerDB.count { return }
        geometry = (frame.startHz, frame.binWidthHz, frame.powerDB.count)
        limits = condition.limits(startHz: frame.startHz, binWidthHz: frame.binWidthHz, count: frame.powerDB.count)
        let inside = frame.powerDB.indices.filter { (band.lowerHz...band.upperHz).contains(frame.binCenterHz($0)) }
        inBand = (inside.first ?? 0)..<((inside.last ?? -1) + 1)
    }
}

/// A per-bin baseline learned as the median of every sweep in a window
/// (`events --learn`). Memory grows with the window only.
public struct BaselineLearner: Sendable {
    public let seconds: Double
    private var first: Double?
    private var geometry: (startHz: Double, binWidthHz: Double)?
    private var sweeps: [[Float]] = []

    public init(seconds: Double) { self.seconds = seconds }

    /// Adds a sweep while learning; returns the baseline once the window is
    /// over (this sweep not included), nil while still learning.
    public mutating func add(_ frame: SpectrumFrame) -> [LevelPoint]? {
        let start = first ?? frame.timestamp
        first = start
        if frame.timestamp - start >= seconds, !sweeps.isEmpty { return baseline }
        if let geometry, geometry.startHz != frame.startHz || geometry.binWidthHz != frame.binWidthHz
            || sweeps.first?.count != frame.powerDB.count {
            sweeps.removeAll()  // retuned: learn the new bins
        }
        geometry = (frame.startHz, frame.binWidthHz)
        sweeps.append(frame.powerDB)
        return nil
    }

    /// the median of each bin over the sweeps so far (NaN ignored)
    public var baseline: [LevelPoint] {
        guard let geometry, let count = sweeps.first?.count else { return [] }
        return (0..<count).compactMap { i in
            let values = sweeps.map { $0[i] }.filter { !$0.isNaN }.sorted()
            guard !values.isEmpty else { return nil }
            let median = values.count % 2 == 1 ? values[values.count / 2]
                : (values[values.count / 2 - 1] + values[values.count / 2]) / 2
            return LevelPoint(hz: geometry.startHz + (Double(i) + 0.5) * geometry.binWidthHz, decibels: median)
        }
    }
}

/// A tracker whose condition may first have to learn its baseline
/// (`--over-baseline DB --learn DURATION`): sweeps go to the learner until
/// the window is over, then to a tracker over the learned baseline.
public struct LearningEventTracker: Sendable {
    private var tracker: SweepEventTracker?
    private var learner: BaselineLearner?
    private let overBaselineDB: Float
    private let band: FrequencyRange
    private let holdSeconds: Double
    private let hysteresisDB: Float

    /// - Parameters:
    ///   - condition: the condition, or nil to learn a baseline for `learnSeconds` first
    public init(condition: EventCondition?, learnSeconds: Double?, overBaselineDB: Float, band: FrequencyRange,
                holdSeconds: Double, hysteresisDB: Float) {
        self.overBaselineDB = overBaselineDB
        self.band = band
        self.holdSeconds = holdSeconds
        self.hysteresisDB = hysteresisDB
        if let condition {
            tracker = SweepEventTracker(condition: condition, band: band, holdSeconds: holdSeconds, hysteresisDB: hysteresisDB)
        } else if let learnSeconds {
            learner = BaselineLearner(seconds: learnSeconds)
        }
    }

    /// Feeds one sweep (to the learner while it learns).
    public mutating func add(_ frame: SpectrumFrame) -> [SweepEventTracker.Output] {
        if tracker == nil, var learning = learner {
            let learned = learning.add(frame)
            learner = learning
            guard let learned else { return [] }
            tracker = SweepEventTracker(condition: .overBaseline(offsetDB: overBaselineDB, baseline: learned), band: band,
                                        holdSeconds: holdSeconds, hysteresisDB: hysteresisDB)
            learner = nil
        }
        return tracker?.add(frame) ?? []
    }

    /// At the end: the open event, closed at its last meeting sweep.
    public mutating func finish() -> DetectedEvent? { tracker?.finish() }
}

/// A limit line (`--mask`) stated in one unit and a display in another that
/// it cannot be converted to: one line naming both.
public struct LimitLineUnitError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

extension EventCondition {
    /// The offset from levels in `from` to the same levels in `to` [dB]:
    /// dBm, dBµV and dBmV across 50 Ω differ by constants (`LevelUnits`);
    /// nil when no constant does it (an SDR's relative dB, or field strength,
    /// which needs the antenna factor).
    public static func offsetDB(from: PowerUnit, to: PowerUnit) -> Double? {
        if from == to { return 0 }
        func aboveDBm(_ unit: PowerUnit) -> Double? {
            switch unit {
            case .dBm: return 0
            case .dBuV: return LevelUnits.dBuVAbovedBm
            case .dBmV: return LevelUnits.dBmVAbovedBm
            case .dB, .dBuVPerMetre: return nil
            }
        }
        guard let a = aboveDBm(from), let b = aboveDBm(to) else { return nil }
        return b - a
    }

    /// The condition with a mask stated in a unit (its file's header) moved
    /// to levels in `display`, the unit the sweeps (and the plot) are in. A
    /// mask whose file states no unit (`level_db`) is taken to be in the
    /// display's unit; one in a unit no constant converts is refused in one line.
    public func converted(to display: PowerUnit) throws(LimitLineUnitError) -> EventCondition {
        guard case .mask(let points, let maskUnit?) = self, maskUnit != display else { return self }
        guard let offset = Self.offsetDB(from: maskUnit, to: display) else {
            throw LimitLineUnitError(description: "--mask is in \(maskUnit) and the levels are in \(display): "
                + (maskUnit == .dBuVPerMetre || display == .dBuVPerMetre
                    ? "field strength needs --antenna-factor (and a mask in dBuV/m)"
                    : "no constant converts them (an uncalibrated analyzer reads relative dB)")
                + "; give the mask in \(display)")
        }
        return .mask(points.map { LevelPoint(hz: $0.hz, decibels: $0.decibels + Float(offset)) }, unit: display)
    }

    /// the limit line's points, for drawing; nil for another condition
    public var limitLine: [LevelPoint]? {
        if case .mask(let points, _) = self { return points }
        return nil
    }
}
