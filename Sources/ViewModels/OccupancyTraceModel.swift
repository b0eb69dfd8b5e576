import DSP
import Signals

/// The occupancy view's state: for each device bin, the share of the sweeps
/// since the band was last tuned in which the bin was occupied, by the
/// noise-riding threshold `tscope occupancy --threshold auto` uses (the
/// sweep's quietest tenth of bins plus `marginDB`; Docs/occupancy.md). A new
/// bin grid (a retune, zoom or pan) starts it again; `reset` does too.
public final class OccupancyTraceModel {
    /// above the noise floor [dB], as `--threshold auto`
    public static let marginDB = OccupancyThreshold.defaultMarginDB

    private var counter: OccupancyCounter?
    /// the grid the counts are on
    public private(set) var startHz = 0.0
    public private(set) var binWidthHz = 1.0
    /// per bin, 0…1; NaN where nothing was measured
    public private(set) var fractions: [Double] = []

    public init() {}

    /// sweeps counted since the band was tuned
    public var sweeps: Int { counter?.openSweeps ?? 0 }

    public func add(_ frame: SpectrumFrame) {
        if counter == nil || frame.startHz != startHz || frame.binWidthHz != binWidthHz
            || frame.powerDB.count != fractions.count {
            counter = OccupancyCounter(channels: .bins, band: nil, threshold: .noiseRiding(marginDB: Self.marginDB),
                                       intervalSeconds: nil)
            startHz = frame.startHz
            binWidthHz = frame.binWidthHz
            fractions = [Double](repeating: .nan, count: frame.powerDB.count)
        }
        guard let counter else { return }
        _ = counter.add(frame)
        counter.openOccupancy(into: &fractions)
    }

    /// Forgets every sweep counted.
    public func reset() {
        counter = nil
        fractions.removeAll(keepingCapacity: true)
    }

    /// The busiest bin's occupancy among the bins whose centres lie in
    /// `lowHz ..< highHz` (a column of the view); NaN if none was measured.
    public func peak(from lowHz: Double, to highHz: Double) -> Double {
        guard !fractions.isEmpty, binWidthHz > 0 else { return .nan }
        let first = max(0, Int(((lowHz - startHz) / binWidthHz - 0.5).rounded(.up)))
        let last = min(fractions.count - 1, Int(((highHz - startHz) / binWidthHz - 0.5).rounded(.up)) - 1)
        var best = Double.nan
        if first <= last {
            for i in first...last where !fractions[i].isNaN { best = best.isNaN ? fractions[i] : max(best, fractions[i]) }
        } else {
            // a column narrower than a bin: the bin under its centre
            let i = Int((((lowHz + highHz) / 2 - startHz) / binWidthHz).rounded(.down))
            if i >= 0 && i < fractions.count { best = fractions[i] }
        }
        return best
    }
}
