import Foundation
import Signals

/// What the plot's trace shows, as a bench analyzer's trace modes: the live
/// sweep, the largest or smallest value each bin has had (max/min hold), or
/// the linear-power mean of the last N sweeps.
public enum TraceMode: Equatable, Sendable, CustomStringConvertible {
    case live
    case max
    case min
    case average(Int)

    /// sweeps averaged when `avg` is chosen without a count
    public static let defaultAverageCount = 16
    /// most sweeps `avg:N` keeps: N sweeps of every bin are held (100 × 60 000 bins = 24 MB)
    public static let maximumAverageCount = 100

    /// "live", "max", "min", "avg" (16 sweeps) or "avg:N"
    public init?(argument: String) {
        switch argument {
        case "live": self = .live
        case "max": self = .max
        case "min": self = .min
        case "avg": self = .average(Self.defaultAverageCount)
        default:
            guard argument.hasPrefix("avg:"), let count = Int(argument.dropFirst(4)), (1...Self.maximumAverageCount).contains(count) else {
                return nil
            }
            self = .average(count)
        }
    }

    /// the mode as `--trace` takes it: "live", "max", "min", "avg:N"
    public var argument: String {
        switch self {
        case .live: return "live"
        case .max: return "max"
        case .min: return "min"
        case .average(let count): return "avg:\(count)"
        }
    }

    /// the mode `t` switches to: live → max → min → avg → live
    public var next: TraceMode {
        switch self {
        case .live: return .max
        case .max: return .min
        case .min: return .average(Self.defaultAverageCount)
        case .average: return .live
        }
    }

    /// the mode before this one in that cycle
    public var previous: TraceMode {
        switch self {
        case .live: return .average(Self.defaultAverageCount)
        case .max: return .live
        case .min: return .max
        case .average: return .min
        }
    }

    public var description: String {
        switch self {
        case .live: return "live"
        case .max: return "max hold"
        case .min: return "min hold"
        case .average(let count): return "avg \(count)"
        }
    }
}

/// A trace mode applied to every sweep at the device's bins, before any
/// decimation to columns. Storage is made when the geometry is first seen
/// (for `avg:N`, N sweeps of linear power) and reused; a sweep with another
/// geometry (zoom, pan, retune) starts the trace again and says so.
public struct TraceAccumulator: Sendable {
    public private(set) var mode: TraceMode
    /// sweeps in the trace since it (re)started
    public private(set) var sweeps = 0
    /// the trace restarted because the bins changed (for a note on screen)
    public private(set) var restartedByRetune = false
    private var startHz = 0.0, binWidthHz = 0.0
    /// dB (max, min) or the running linear sum over the ring (avg)
    private var held: [Double] = []
    /// avg: the last N sweeps' linear power, oldest overwritten
    private var ring: [[Float]] = []
    private var ringNext = 0

    public init(mode: TraceMode) { self.mode = mode }

    /// Changes the mode; the trace starts again.
    public mutating func setMode(_ mode: TraceMode) {
        self.mode = mode
        sweeps = 0
        restartedByRetune = false
    }

    /// Adds one sweep (no effect in `live`).
    public mutating func add(_ frame: SpectrumFrame) {
        guard mode != .live else { return }
        let count = frame.powerDB.count
        if sweeps > 0, frame.startHz != startHz || frame.binWidthHz != binWidthHz || count != held.count {
            sweeps = 0
            restartedByRetune = true
        }
        if sweeps == 0 {
            startHz = frame.startHz
            binWidthHz = frame.binWidthHz
            held = [Double](repeating: mode == .min ? .infinity : (mode == .max ? -.infinity : 0), count: count)
            if case .average(let n) = mode {
                ring = [[Float]](repeating: [Float](repeating: 0, count: count), count: n)
                ringNext = 0
            }
        }
        sweeps += 1
        frame.powerDB.withUnsafeBufferPointer { values in
            switch mode {
            case .live: break
            case .max: for i in 0..<count where !values[i].isNaN { held[i] = Swift.max(held[i], Double(values[i])) }
            case .min: for i in 0..<count where !values[i].isNaN { held[i] = Swift.min(held[i], Double(values[i])) }
            case .average:
                // a running sum over the ring: subtract the sweep that falls out
                for i in 0..<count {
                    let power = values[i].isNaN ? 0 : Float(pow(10, Double(values[i]) / 10))
                    held[i] += Double(power) - Double(ring[ringNext][i])
                    ring[ringNext][i] = power
                }
                ringNext = (ringNext + 1) % ring.count
            }
        }
    }

    /// Writes the trace into `frame` (its geometry and dB values); false in
    /// `live` or before the first sweep.
    public func write(into frame: inout SpectrumFrame) -> Bool {
        guard mode != .live, sweeps > 0 else { return false }
        frame.startHz = startHz
        frame.binWidthHz = binWidthHz
        let averaged = Double(Swift.min(sweeps, ring.count))
        if frame.powerDB.count != held.count { frame.powerDB = [Float](repeating: .nan, count: held.count) }
        for i in held.indices {
            switch mode {
            case .average: frame.powerDB[i] = held[i] > 0 ? Float(10 * log10(held[i] / averaged)) : -.infinity
            default: frame.powerDB[i] = held[i].isFinite ? Float(held[i]) : .nan
            }
        }
        return true
    }
}
