import Signals

/// Builds one frame from slices (hops) of a sweep that arrive in any order:
/// each slice lands at the bin nearest its lower edge, bins nothing covered
/// stay NaN. The first frame fixes the width; later slices beyond it are
/// refused, so damaged input cannot grow memory. Storage grows only while the
/// first frame is built and is reused after that.
struct SweepAssembler {
    /// bins of the frame being built (first `binCount` in use)
    private var bins: [Float] = []
    private(set) var binCount = 0
    /// width fixed by the first finished frame
    private(set) var lockedCount: Int?
    /// lower edge of bin 0 [Hz]
    private(set) var startHz = 0.0
    /// [Hz]
    private(set) var binWidthHz = 0.0
    /// [s since the Unix epoch]
    var timestamp = 0.0
    private(set) var inProgress = false
    /// refuse frames wider than this [bins] (memory bound for hostile input)
    let maxBins: Int

    init(maxBins: Int = 1 << 24) {
        self.maxBins = maxBins
    }

    mutating func begin(startHz: Double, binWidthHz: Double, timestamp: Double) {
        self.startHz = startHz
        self.binWidthHz = binWidthHz
        self.timestamp = timestamp
        inProgress = true
        if let lockedCount {
            bins.withUnsafeMutableBufferPointer { buffer in
                for i in 0..<lockedCount { buffer[i] = .nan }
            }
            binCount = lockedCount
        } else {
            binCount = 0
        }
    }

    /// index of the bin whose lower edge is nearest `hz`
    func binIndex(_ hz: Double) -> Int? {
        let position = ((hz - startHz) / binWidthHz).rounded()
        guard position.isFinite, position >= 0, position < Double(maxBins) else { return nil }
        return Int(position)
    }

    /// Puts `values` at the bins starting nearest `lowHz`; returns why not if it cannot.
    mutating func place(lowHz: Double, values: UnsafeBufferPointer<Float>) -> String? {
        if let problem = problem(placing: lowHz, count: values.count) { return problem }
        guard let first = binIndex(lowHz) else { return nil }
        let end = first + values.count
        if end > bins.count { bins.append(contentsOf: repeatElement(Float.nan, count: end - bins.count)) }
        bins.withUnsafeMutableBufferPointer { buffer in
            if end > binCount {
                for i in binCount..<end { buffer[i] = .nan }
                binCount = end
            }
            for i in 0..<values.count { buffer[first + i] = values[i] }
        }
        return nil
    }

    /// Why `count` values cannot go at the bins from `lowHz` on; nil if they can.
    func problem(placing lowHz: Double, count: Int) -> String? {
        guard let first = binIndex(lowHz) else {
            return "slice at \(lowHz) Hz lies below the sweep start \(startHz) Hz"
        }
        let end = first + count
        if let lockedCount, end > lockedCount {
            return "slice at \(lowHz) Hz ends beyond the band of the first sweep (\(lockedCount) bins)"
        }
        guard end <= maxBins else { return "sweep wider than \(maxBins) bins" }
        return nil
    }

    /// Appends bins `first ..< first + count` of the frame being built to `values`.
    func appendBins(_ first: Int, count: Int, to values: inout [Float]) {
        values.append(contentsOf: bins[first..<(first + count)])
    }

    /// Copies the finished frame into `frame` (reusing its storage) and locks the width.
    mutating func finish(into frame: inout SpectrumFrame) {
        inProgress = false
        if lockedCount == nil { lockedCount = binCount }
        frame.startHz = startHz
        frame.binWidthHz = binWidthHz
        frame.timestamp = timestamp
        bins.withUnsafeBufferPointer { source in
            let used = UnsafeBufferPointer(rebasing: source[0..<binCount])
            if frame.powerDB.count == binCount {
                frame.powerDB.withUnsafeMutableBufferPointer { destination in
                    for i in 0..<binCount { destination[i] = used[i] }
                }
            } else {
                frame.powerDB.removeAll(keepingCapacity: true)
                frame.powerDB.append(contentsOf: used)
            }
        }
    }
}
