import Foundation

/// Detects QRS complexes on one lead with the stationary wavelet transform,
/// after V. Kalidas and L. Tamil, "Real-time QRS detector using Stationary
/// Wavelet Transform for Automated ECG Analysis", IEEE BIBE 2017: the lead is
/// brought to 80 Hz, where the SWT's level-3 detail with the Daubechies-3
/// wavelet covers 5–10 Hz, the band of a QRS complex's energy; the detail is
/// squared and smoothed, and its peaks are classed against an adaptive
/// threshold. Written here from the paper's description; the thresholding
/// (signal and noise peak levels, search-back after 1.66 mean RR) follows
/// Pan and Tompkins (1985), as the paper's does.
///
/// Live and causal: the SWT is run with the à trous filters as FIR filters
/// on the 80 Hz stream (delay 17.5 samples = 219 ms), so a beat is reported
/// about 0.6 s after its R peak. Each beat is placed at the largest
/// excursion from the local mean of the lead itself (at its own rate)
/// within ±75 ms of where the energy peak points.
public final class SWTQRSDetector: BeatDetector {
    public let sampleRate: Double
    /// the rate the transform runs at [Hz] (the paper's)
    static let workingRate = 80.0

    /// Daubechies-3 decomposition filters (Daubechies, "Ten Lectures on Wavelets", 1992, table 6.1, N = 3,
    /// normalised to sum √2): low-pass h, and high-pass g[k] = (−1)^k h[5 − k].
    static let lowPass: [Double] = [0.0352262918857095, -0.0854412738820267, -0.1350110200102546,
                                    0.4598775021184915, 0.8068915093110925, 0.3326705529500826]
    static let highPass: [Double] = (0..<6).map { k in (k % 2 == 0 ? 1.0 : -1.0) * lowPass[5 - k] }

    // The per-sample buffers are `@exclusivity(unchecked)`: a detector has one owner on one thread and
    // none of its methods runs inside another while it holds one of them, so the run-time exclusivity
    // check Swift makes on every access to a class's stored property proves nothing here; it was a third
    // of `ecg classify`'s time (perf, Benchmarks/README.md "ECG classify").
    // -- resampling to 80 Hz
    @exclusivity(unchecked) private var antiAlias: [Biquad]
    @exclusivity(unchecked) private var primed = false
    @exclusivity(unchecked) private var lastInput = 0.0
    @exclusivity(unchecked) private var previousFiltered = 0.0
    /// input samples per working sample
    private let step: Double
    /// position of the next working sample, in input samples since the start
    @exclusivity(unchecked) private var nextPosition = 0.0

    // -- the transform: level 1 low-pass (taps 1 apart), level 2 low-pass (2 apart), level 3 high-pass (4 apart)
    @exclusivity(unchecked) private var level1: DilatedFIR
    @exclusivity(unchecked) private var level2: DilatedFIR
    @exclusivity(unchecked) private var level3: DilatedFIR
    /// smoothing of the squared detail: 100 ms at 80 Hz
    @exclusivity(unchecked) private var smoothing: [Double]
    @exclusivity(unchecked) private var smoothingSum = 0.0
    @exclusivity(unchecked) private var smoothingIndex = 0
    /// working samples since the start
    @exclusivity(unchecked) private var workingIndex = 0
    /// the last two smoothed values (for local maxima)
    @exclusivity(unchecked) private var before = 0.0, last = 0.0

    // -- classification (working-rate samples)
    private let refractory: Int
    private let learningLength: Int
    private var learning: [Double] = []
    @exclusivity(unchecked) private var learned = false
    @exclusivity(unchecked) private var signalLevel = 0.0
    @exclusivity(unchecked) private var noiseLevel = 0.0
    /// the candidate beat: a peak above threshold, kept until `refractory` passes without a larger one
    @exclusivity(unchecked) private var candidate: (index: Int, value: Double)?
    /// peaks since the last beat below threshold, for search-back
    private var sinceBeat: [(index: Int, value: Double)] = []
    private var lastBeat: Int?
    private var recentRR: [Int]
    /// the smoothed energy of the last 2 s, for relearning after a long silence
    @exclusivity(unchecked) private var energyHistory: [Double]

    // -- placing the beat on the lead at its own rate
    /// the lead's last samples (ring), for the R peak search
    @exclusivity(unchecked) private var raw: [Double]
    /// `sampleIndex` modulo `raw.count`, counted rather than divided for every sample
    @exclusivity(unchecked) private var rawSlot = 0
    @exclusivity(unchecked) public private(set) var sampleIndex = 0
    /// the transform's and smoothing's delay [working samples]: FIR half-lengths 2.5 + 5 + 10, smoothing 3.5
    static let workingDelay = 21.0
    /// the R peak search half-window [s]
    static let searchSeconds = 0.075

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        step = sampleRate / Self.workingRate
        // anti-alias for 80 Hz: two Butterworth sections at 30 Hz (none needed below 80 Hz input)
        antiAlias = sampleRate > 2 * 30 ? [.lowPass(cutoff: 30, sampleRate: sampleRate), .lowPass(cutoff: 30, sampleRate: sampleRate)] : []
        level1 = DilatedFIR(taps: Self.lowPass, dilation: 1)
        level2 = DilatedFIR(taps: Self.lowPass, dilation: 2)
        level3 = DilatedFIR(taps: Self.highPass, dilation: 4)
        smoothing = Array(repeating: 0, count: 8)
        refractory = Int((0.25 * Self.workingRate).rounded())
        learningLength = Int(2 * Self.workingRate)
        recentRR = Array(repeating: Int(Self.workingRate), count: 8)
        energyHistory = Array(repeating: 0, count: Int(2 * Self.workingRate))
        raw = Array(repeating: 0, count: max(16, Int(sampleRate * 1.5)))
        learning.reserveCapacity(learningLength)
        sinceBeat.reserveCapacity(64)
    }

    /// Worst-case delay from an R peak to its report [s]: the transform and smoothing, the refractory wait.
    public var maximumDelay: Double { (Self.workingDelay + Double(refractory) + 2) / Self.workingRate + Self.searchSeconds }

    private var threshold: Double { noiseLevel + 0.25 * (signalLevel - noiseLevel) }
    private var meanRR: Double { Double(recentRR.reduce(0, +)) / Double(recentRR.count) }

    public func process(_ samples: UnsafeBufferPointer<Float>, beats: inout [Int]) {
        for sample in samples { input(Double(sample), beats: &beats) }
    }

    private func input(_ sample: Double, beats: inout [Int]) {
        defer {
            sampleIndex += 1
            rawSlot += 1
            if rawSlot == raw.count { rawSlot = 0 }
        }
        guard sample.isFinite || primed else { return }
        let x = sample.isFinite ? sample : lastInput
        lastInput = x
        if !primed {
            for index in antiAlias.indices { antiAlias[index].prime(with: x) }
            level1.prime(with: x)
            // a constant through the low-passes (each sums to √2); the high-pass of a constant is 0
            level2.prime(with: x * 2.squareRoot())
            level3.prime(with: x * 2)
            previousFiltered = x
            primed = true
            nextPosition = Double(sampleIndex)
        }
        raw[rawSlot] = x
        var filtered = x
        for index in antiAlias.indices { filtered = antiAlias[index].process(filtered) }
        // working samples due between the previous input and this one, linearly interpolated
        while nextPosition <= Double(sampleIndex) {
            let fraction = 1 - (Double(sampleIndex) - nextPosition)
            let value = previousFiltered + (filtered - previousFiltered) * min(max(fraction, 0), 1)
            working(value, beats: &beats)
            nextPosition += step
        }
        previousFiltered = filtered
    }

    /// One 80 Hz sample through the transform, the squarer, the smoothing and the peak classing.
    private func working(_ value: Double, beats: inout [Int]) {
        let detail = level3.process(level2.process(level1.process(value)))
        smoothingSum += detail * detail - smoothing[smoothingIndex]
        smoothing[smoothingIndex] = detail * detail
        smoothingIndex = (smoothingIndex + 1) % smoothing.count
        let energy = max(0, smoothingSum / Double(smoothing.count))
        energyHistory[workingIndex % energyHistory.count] = energy
        // a local maximum at the previous sample
        if last > before && last >= energy && workingIndex > 0 { peak(at: workingIndex - 1, value: last, beats: &beats) }
        before = last
        last = energy
        workingIndex += 1
        commitCandidate(now: workingIndex - 1, beats: &beats)
        searchBack(now: workingIndex - 1, beats: &beats)
        relearnIfSilent(now: workingIndex - 1)
    }

    private func peak(at index: Int, value: Double, beats: inout [Int]) {
        // the transform's start-up transient is not a peak
        guard index > Int(Self.workingDelay) * 2 else { return }
        if !learned {
            learning.append(value)
            if index >= learningLength { learn(from: learning) }
            return
        }
        if let held = candidate, index - held.index < refractory {
            // a larger peak within the refractory time replaces the candidate (the smaller is noise)
            if value > held.value {
                noise(held.value)
                candidate = (index, value)
            } else {
                noise(value)
            }
            return
        }
        if let beat = lastBeat, index - beat < refractory { noise(value); return }
        if value > threshold {
            candidate = (index, value)
        } else {
            noise(value)
            sinceBeat.append((index, value))
            if sinceBeat.count > 64 { sinceBeat.removeFirst() }
        }
    }

    private func noise(_ value: Double) { noiseLevel = 0.125 * value + 0.875 * noiseLevel }

    private func learn(from peaks: [Double]) {
        let top = peaks.max() ?? 0
        signalLevel = top / 3
        noiseLevel = peaks.isEmpty ? 0 : peaks.reduce(0, +) / Double(peaks.count) / 2
        learned = true
    }

    /// A candidate with no larger peak for `refractory` samples is a beat.
    private func commitCandidate(now: Int, beats: inout [Int]) {
        guard let held = candidate, now - held.index >= refractory else { return }
        candidate = nil
        signalLevel = 0.125 * held.value + 0.875 * signalLevel
        accept(held.index, beats: &beats)
    }

    /// After 1.66 mean RR without a beat, the largest peak since above half the threshold is one.
    private func searchBack(now: Int, beats: inout [Int]) {
        guard learned, candidate == nil, let beat = lastBeat, Double(now - beat) > 1.66 * meanRR else { return }
        guard let best = sinceBeat.filter({ $0.index - beat >= refractory && $0.value > threshold / 2 })
            .max(by: { $0.value < $1.value }) else { return }
        signalLevel = 0.25 * best.value + 0.75 * signalLevel
        accept(best.index, beats: &beats)
    }

    /// No beat for max(3 s, 2.5 mean RR) while the last 2 s hold a prominent peak: learn the levels again.
    private func relearnIfSilent(now: Int) {
        // twice a second at most: the cheap test first, the mean RR only then
        guard learned, now >= energyHistory.count, now % Int(Self.workingRate / 2) == 0 else { return }
        let silent = now - (lastBeat ?? 0)
        guard Double(silent) > max(3 * Self.workingRate, 2.5 * meanRR) else { return }
        let top = energyHistory.max() ?? 0
        let mean = energyHistory.reduce(0, +) / Double(energyHistory.count)
        guard top > 5 * mean else { return }
        signalLevel = top / 3
        noiseLevel = mean / 2
        sinceBeat.removeAll(keepingCapacity: true)
        lastBeat = now - Int(Self.workingRate)
    }

    private func accept(_ index: Int, beats: inout [Int]) {
        if let beat = lastBeat { recentRR.removeFirst(); recentRR.append(max(1, index - beat)) }
        lastBeat = index
        sinceBeat.removeAll(keepingCapacity: true)
        beats.append(placeOnLead(workingIndex: index))
    }

    /// The R peak at the lead's own rate: the largest excursion from the local mean within ±75 ms of where
    /// the energy peak (less the transform's delay) points.
    private func placeOnLead(workingIndex index: Int) -> Int {
        let centre = Int(((Double(index) - Self.workingDelay) * step).rounded())
        let half = max(1, Int(Self.searchSeconds * sampleRate))
        let lower = max(0, centre - half, sampleIndex - raw.count + 1)
        let upper = min(sampleIndex, centre + half)
        guard lower < upper else { return max(0, min(centre, sampleIndex)) }
        var mean = 0.0
        for i in lower...upper { mean += raw[i % raw.count] }
        mean /= Double(upper - lower + 1)
        var best = lower, bestValue = -1.0
        for i in lower...upper {
            let excursion = abs(raw[i % raw.count] - mean)
            if excursion > bestValue { bestValue = excursion; best = i }
        }
        return best
    }

    public func finish(beats: inout [Int]) {
        let end = sampleIndex
        let settle = Int(maximumDelay * sampleRate) + Int(step) * 4
        var tail: [Int] = []
        let held = [Float](repeating: .nan, count: settle)
        held.withUnsafeBufferPointer { process($0, beats: &tail) }
        beats.append(contentsOf: tail.filter { $0 < end })
    }
}

/// A causal FIR filter whose taps sit `dilation` samples apart (the à trous SWT's upsampled filters).
struct DilatedFIR {
    let taps: [Double]
    let dilation: Int
    private var history: [Double]
    private var index = 0

    init(taps: [Double], dilation: Int) {
        self.taps = taps
        self.dilation = dilation
        history = Array(repeating: 0, count: (taps.count - 1) * dilation + 1)
    }

    /// Fills the history with `value` (a start without a step).
    mutating func prime(with value: Double) {
        for i in history.indices { history[i] = value }
    }

    mutating func process(_ x: Double) -> Double {
        let count = history.count
        let newest = index
        index = newest + 1 == count ? 0 : newest + 1
        let dilation = self.dilation
        // through buffer pointers: at 80 Hz per detector level this ran bounds and uniqueness checks per tap
        return history.withUnsafeMutableBufferPointer { history in
            taps.withUnsafeBufferPointer { taps in
                history[newest] = x
                var sum = 0.0
                var position = newest
                for tap in taps {
                    sum += tap * history[position]
                    position -= dilation
                    if position < 0 { position += count }
                }
                return sum
            }
        }
    }
}
