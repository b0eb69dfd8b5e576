import Foundation

/// Irregularity measures of the last `windowIntervals` RR intervals (the intervals between the last
/// `windowIntervals + 1` beats), the feature row `RRAFDetector`'s trees read. Every value is computed in a
/// fixed order so that it equals Tools/train-af-rr's `ReferenceDetector.features` to ~1e-15 relative (the
/// fixture Tests/ECGTests/Fixtures/rr-af checks 1e-9).
///
/// RR intervals are in seconds: (beat sample − previous beat sample) / sample rate. With `n` intervals
/// `rr[0] … rr[n−1]` (oldest first), `median` the median of the window and `dₖ` the lag-k successive
/// differences `rr[i+k] − rr[i]`, the row is, in `featureNames` order:
///
/// - `hr` [beats/min]: 60 / mean RR.
/// - `rr_mean`, `rr_median` [s]: the mean (summed oldest first) and median (even count: the mean of the
///   two middle values) of the window.
/// - `nrmssd`: √(Σ d₁² / (n − 1)) / mean RR, the normalised root mean square of successive differences.
/// - `mad1`, `mad2`, `mad3`: median |dₖ| / median RR for k = 1, 2, 3; `mad_min` the smallest of the three.
///   The median of absolute successive differences resists single ectopic beats, and the lag-2 and lag-3
///   differences stay small in bigeminy and trigeminy, where lag 1 is large (the bigeminy suppression idea of
///   Petrėnas et al., "Low-complexity detection of atrial fibrillation in continuous long-term monitoring",
///   Comput Biol Med 2015).
/// - `pnn10`, `pnn25`: the share of |d₁| above 10 % and 25 % of the median RR (pNNx on relative differences).
/// - `tpr`: turning-point ratio, the share of the n − 2 inner intervals that are a strict local peak or
///   trough (from the integer sample differences, so ties are exact).
/// - `bins40`: the number of distinct 40 ms × 40 ms cells occupied by the successive pairs (d₁[i], d₁[i+1])
///   of the Lorenz (Poincaré) plot of differences, divided by n − 2 (after Sarkar, Ritscher & Mehra,
///   "A detector for a chronic implantable atrial tachyarrhythmia monitor", IEEE TBME 2008). A cell is
///   ⌊difference in samples / (0.04 s · sample rate)⌋ on each axis.
/// - `regular10`: the share of intervals within 10 % of the median (high in flutter with fixed conduction).
/// - `prem_comp`: the share of successive pairs "premature (< 0.85 · median), then compensatory
///   (> 1.15 · median)", the pattern of isolated ectopic beats.
/// - `cosen`: coefficient of sample entropy (Lake & Moorman, "Accurate estimation of entropy in very short
///   physiological time series: the problem of atrial fibrillation detection in implanted ventricular
///   devices", Am J Physiol Heart Circ Physiol 2011): SampEn(m = 1, r = 30 ms) + ln(2r) − ln(mean RR), r and
///   RR in seconds. Of the templates rr[0] … rr[n−2], `matches` counts the pairs i < j with
///   |rr[i] − rr[j]| ≤ r and `longer` those of them with also |rr[i+1] − rr[j+1]| ≤ r (compared in whole
///   samples against r · sample rate, so exactly); SampEn = −ln((longer + 1) / (matches + 1)) — one added to
///   both counts so that it is always defined in a short window.
///
/// The window is implausible (the second is unreadable, never AF) when it holds `shortRRCount` intervals
/// shorter than `shortRR` (beyond physiology: noise detections), one longer than `longRR` (a gap), or when
/// its mean exceeds `collapseRatio` × its median (beats are missing: the count collapsed below what the
/// median RR implies). One allocation set in `init`; `measure` allocates nothing.
public struct RRRhythmFeatures: Sendable {
    /// The feature names in row order (the model's `featureNames`).
    public static let featureNames = ["hr", "rr_mean", "rr_median", "nrmssd", "mad1", "mad2", "mad3", "mad_min",
                                      "pnn10", "pnn25", "tpr", "bins40", "regular10", "prem_comp", "cosen"]

    /// RR intervals a row reads.
    public let windowIntervals: Int
    /// Samples per second of the beat clock.
    public let sampleRate: Double
    /// The last `measure`'s row, `featureNames.count` values.
    public private(set) var row: [Double]

    private var rrSamples: [Int]
    private var rr: [Double]
    private var scratch: [Double]
    private var differences: [Int]
    private var codes: [Int]

    /// Measures of the committed model's window (`RRAFModelData.windowIntervals` intervals).
    public init(sampleRate: Double) {
        self.init(sampleRate: sampleRate, windowIntervals: RRAFModelData.windowIntervals)
    }

    public init(sampleRate: Double, windowIntervals: Int) {
        precondition(windowIntervals >= 4, "RRRhythmFeatures: at least 4 intervals")
        precondition(sampleRate > 0, "RRRhythmFeatures: the sample rate must be positive")
        self.windowIntervals = windowIntervals
        self.sampleRate = sampleRate
        row = Array(repeating: .nan, count: Self.featureNames.count)
        rrSamples = Array(repeating: 0, count: windowIntervals)
        rr = Array(repeating: 0, count: windowIntervals)
        scratch = Array(repeating: 0, count: windowIntervals)
        differences = Array(repeating: 0, count: windowIntervals)
        codes = Array(repeating: 0, count: windowIntervals)
    }

    /// Computes `row` from `windowIntervals + 1` beat samples held in a ring: `beats[(oldest + k) % beats.count]`
    /// for k = 0 … windowIntervals, oldest first (`beats.count` must be `windowIntervals + 1`). Returns whether
    /// the window is implausible.
    public mutating func measure(beats: [Int], oldest: Int) -> Bool {
        let n = windowIntervals
        precondition(beats.count == n + 1, "RRRhythmFeatures: \(beats.count) beats for \(n) intervals")
        let fs = sampleRate
        var previous = beats[oldest % beats.count]
        for k in 0..<n {
            let beat = beats[(oldest + k + 1) % beats.count]
            rrSamples[k] = beat - previous
            rr[k] = Double(beat - previous) / fs
            previous = beat
        }
        var total = 0.0
        for k in 0..<n { total += rr[k] }
        let mean = total / Double(n)
        for k in 0..<n { scratch[k] = rr[k] }
        let median = Self.median(&scratch, count: n)

        var squares = 0.0
        for k in 0..<(n - 1) {
            let d = rr[k + 1] - rr[k]
            squares += d * d
        }
        let nrmssd = (squares / Double(n - 1)).squareRoot() / mean
        var lagMedians = (0.0, 0.0, 0.0)
        for lag in 1...3 {
            let m = n - lag
            for k in 0..<m { scratch[k] = abs(rr[k + lag] - rr[k]) }
            let value = Self.median(&scratch, count: m) / median
            switch lag {
            case 1: lagMedians.0 = value
            case 2: lagMedians.1 = value
            default: lagMedians.2 = value
            }
        }
        let (mad1, mad2, mad3) = lagMedians
        let madMin = min(min(mad1, mad2), mad3)

        let tenth = 0.10 * median
        let quarter = 0.25 * median
        var over10 = 0, over25 = 0
        for k in 0..<(n - 1) {
            let d = abs(rr[k + 1] - rr[k])
            if d > tenth { over10 += 1 }
            if d > quarter { over25 += 1 }
        }
        for k in 0..<(n - 1) { differences[k] = rrSamples[k + 1] - rrSamples[k] }
        var turns = 0
        for k in 0..<(n - 2) {
            let a = differences[k], b = differences[k + 1]
            if (a > 0 && b < 0) || (a < 0 && b > 0) { turns += 1 }
        }
        let width = RRAFModelData.binSeconds * fs
        var previousBin = Int((Double(differences[0]) / width).rounded(.down))
        for k in 0..<(n - 2) {
            let bin = Int((Double(differences[k + 1]) / width).rounded(.down))
            codes[k] = previousBin * RRAFModelData.binCodeStride + bin
            previousBin = bin
        }
        Self.insertionSort(&codes, count: n - 2)
        var distinct = 1
        for k in 1..<(n - 2) where codes[k] != codes[k - 1] { distinct += 1 }
        var regular = 0
        for k in 0..<n where abs(rr[k] - median) <= tenth { regular += 1 }
        let premature = 0.85 * median, compensatory = 1.15 * median
        var pairs = 0
        for k in 0..<(n - 1) where rr[k] < premature && rr[k + 1] > compensatory { pairs += 1 }
        // |a − b| ≤ r·fs for whole-sample differences is |a − b| ≤ ⌊r·fs⌋: integers only in the O(n²) loop,
        // which is most of a beat list's time
        let tolerance = UInt((RRAFModelData.cosenToleranceSeconds * fs).rounded(.down))
        var matches = 0, longer = 0
        rrSamples.withUnsafeBufferPointer { intervals in
            for i in 0..<(n - 1) {
                let first = intervals[i], next = intervals[i + 1]
                for j in (i + 1)..<(n - 1) {
                    // without branches: whether a template matches is data, not something to predict
                    let match = (first &- intervals[j]).magnitude <= tolerance ? 1 : 0
                    let next = (next &- intervals[j + 1]).magnitude <= tolerance ? 1 : 0
                    matches &+= match
                    longer &+= match & next
                }
            }
        }
        let cosen = -log(Double(longer + 1) / Double(matches + 1))
            + log(2 * RRAFModelData.cosenToleranceSeconds / mean)
        var short = 0, long = false
        for k in 0..<n {
            if rr[k] < RRAFModelData.shortRR { short += 1 }
            if rr[k] > RRAFModelData.longRR { long = true }
        }

        row[0] = 60.0 / mean
        row[1] = mean
        row[2] = median
        row[3] = nrmssd
        row[4] = mad1
        row[5] = mad2
        row[6] = mad3
        row[7] = madMin
        row[8] = Double(over10) / Double(n - 1)
        row[9] = Double(over25) / Double(n - 1)
        row[10] = Double(turns) / Double(n - 2)
        row[11] = Double(distinct) / Double(n - 2)
        row[12] = Double(regular) / Double(n)
        row[13] = Double(pairs) / Double(n - 1)
        row[14] = cosen
        return short >= RRAFModelData.shortRRCount || long || mean > RRAFModelData.collapseRatio * median
    }

    /// The median of `values[0..<count]`, which it sorts in place (insertion sort: no allocation, and with
    /// no NaN any sort gives the same values); an even count gives the mean of the two middle values.
    static func median(_ values: inout [Double], count: Int) -> Double {
        insertionSort(&values, count: count)
        return count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2
    }

    static func insertionSort<T: Comparable>(_ values: inout [T], count: Int) {
        guard count > 1 else { return }
        for i in 1..<count {
            let value = values[i]
            var j = i - 1
            while j >= 0 && values[j] > value {
                values[j + 1] = values[j]
                j -= 1
            }
            values[j + 1] = value
        }
    }
}
