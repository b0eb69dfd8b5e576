import CECGKernels
import Foundation

/// Detects QRS complexes on one lead, live, with a bounded delay.
///
/// The Pan–Tompkins scheme (J. Pan, W. J. Tompkins, "A real-time QRS detection
/// algorithm", IEEE TBME 32(3), 1985): 5–15 Hz band-pass, then — in place of
/// their derivative — two matched filters, squaring, 150 ms moving-window
/// integration; peaks of the
/// integrated signal at least 200 ms apart are classed against an adaptive
/// threshold THR = NPKI + 0.25 (SPKI − NPKI) (running signal and noise peak
/// levels, weights 1/8); a peak within 360 ms of a beat with less than half its
/// steepest slope is a T wave; after 1.66 regular RR without a beat the largest
/// peak above THR/2 is taken (search-back; their RR AVERAGE2, the mean of the
/// last eight intervals within 92–116 % of it, so false beats in noise do not
/// shorten the wait and start a chain of search-backs). Closer than
/// min(360 ms, 0.6 regular RR) to a beat a peak must also reach 3/4 of the
/// signal level (muscle noise has a QRS's slopes, not its energy). A peak
/// must also pass the second threshold, on the band-passed signal's peak
/// amplitude (levels kept the same way). Thresholds are learnt over the
/// first 2 s, whose peaks are then classed with them. Off-line, `finish`
/// runs the detector on through its delay at the end, so a beat just before
/// a record's end is reported.
///
/// Nothing about the start or the baseline may fool it: the
/// band-pass starts settled on the first finite sample (each section on what
/// the one before it settles to, so a constant offset never reaches the
/// squarer), leading missing samples are skipped, and when no beat has been
/// accepted for max(2.5 s, 2 mean RR) while the last 2 s hold prominent peaks
/// (maximum ≥ 5 × mean of the integrated signal), both thresholds are learnt
/// again from those 2 s and the peaks held since the last beat are classed
/// anew. An artifact larger than any QRS (a lead attached, an electrode
/// knocked) then costs a few seconds of beats, not the rest of the record;
/// a flat pause (noise only, no prominent peaks) is left a pause.
///
/// The matched filters are Ricker wavelets (a QRS-shaped template, as in
/// wfdb-python's XQRS) at two scales, σ = 8 ms and 22 ms, each of unit
/// energy; the energy integrated is the smaller of their two squared outputs.
/// A QRS complex answers both; electrode-motion noise (baseline steps, 1–10
/// Hz) answers mostly the wide one and muscle noise (20–100 Hz) mostly the
/// narrow one, so neither alone makes a peak. Measured against XQRS in
/// `Tools/bench-xqrs` (README). The five-point derivative is kept for the
/// slopes of the T-wave test.
///
/// Beats are reported at the R peak: the largest band-passed excursion in the
/// integration window, moved back by the band-pass group delay.
public final class QRSDetector {
    public let sampleRate: Double

    // -- design constants (Pan & Tompkins 1985)
    /// moving-window integration width [samples] (150 ms)
    private let windowLength: Int
    /// minimum distance between beats [samples] (200 ms)
    private let refractory: Int
    /// T-wave test window after a beat [samples] (360 ms)
    private let tWaveWindow: Int
    /// threshold learning period [samples] (2 s)
    private let learningLength: Int
    /// band-pass group delay near 10 Hz [samples]
    private let bandPassDelay: Int
    /// shortest time without a beat before the thresholds are learnt again [samples] (2.5 s)
    private let relearnAfter: Int
    /// the integrated signal's maximum over the last 2 s must be this many times its mean to relearn
    static let relearnProminence = 5.0

    // The per-sample buffers are `@exclusivity(unchecked)`: a detector has one owner on one thread and
    // none of its methods runs inside another while it holds one of them, so the run-time exclusivity
    // check Swift makes on every access to a class's stored property proves nothing here; it was a third
    // of `ecg classify`'s time (perf, Benchmarks/README.md "ECG classify").
    // -- filter state
    @exclusivity(unchecked) private var bandPass: [Biquad]
    @exclusivity(unchecked) private var primed = false
    @exclusivity(unchecked) private var lastInput = 0.0
    /// last four band-passed samples, newest first (for the derivative)
    @exclusivity(unchecked) private var recent = (0.0, 0.0, 0.0, 0.0)
    /// the two matched filters' taps (Ricker wavelets, unit energy), ±50 ms
    private let narrowTemplate: [Double]
    private let wideTemplate: [Double]
    // Samples go through in batches of up to `batchLength`: first the band-pass over the whole batch,
    // then the matched filters over it, then the per-sample peak logic. The ring buffers below are
    // allocated once and owned by the detector (freed in deinit): a store into an array property
    // checked the array's uniqueness on every sample, six times per sample.
    static let batchLength = 512
    /// the batch's band-passed samples and their matched-filter energies
    private let batchFiltered: UnsafeMutableBufferPointer<Double>
    private let batchEnergy: UnsafeMutableBufferPointer<Double>
    /// the matched filters' input: the last `taps − 1` band-passed samples of the batch before (zeros
    /// at the start), then the batch's, oldest first, so each sample's `taps` are contiguous
    private let matchInput: UnsafeMutableBufferPointer<Double>
    /// matched filters' energy (the smaller of the two) of the last `windowLength` samples and their sum
    private let squares: UnsafeMutableBufferPointer<Double>
    @exclusivity(unchecked) private var squareSum = 0.0
    /// band-passed signal and |derivative| of the last second, by sample index modulo capacity
    private let bandPassed: UnsafeMutableBufferPointer<Double>
    private let slopes: UnsafeMutableBufferPointer<Double>
    @exclusivity(unchecked) private var integrated = (0.0, 0.0)
    /// integrated signal of the last `learningLength` samples, by sample index modulo capacity
    private let integratedHistory: UnsafeMutableBufferPointer<Double>
    /// |band-passed| signal of the last `learningLength` samples, likewise
    private let amplitudeHistory: UnsafeMutableBufferPointer<Double>
    /// `sampleIndex` modulo `windowLength`, the history's capacity and `learningLength`: kept by
    /// counting, since integer divisions per sample were a tenth of the detector's time
    @exclusivity(unchecked) private var windowSlot = 0
    @exclusivity(unchecked) private var historySlot = 0
    @exclusivity(unchecked) private var learningSlot = 0

    // -- peak classification state
    private struct Candidate {
        /// integrated-signal peak value
        var height: Double
        /// sample index of the integrated-signal peak
        var peakIndex: Int
        /// sample index of the R peak
        var rIndex: Int
        /// steepest |derivative| in the window [mV/s]
        var slope: Double
        /// largest |band-passed| excursion in the window [mV]
        var amplitude: Double
    }
    /// an integrated-signal peak waiting out the refractory period for a larger one
    private struct PendingPeak {
        var height: Double
        var peakIndex: Int
    }
    /// Its R peak, slope and amplitude (`candidate`) are found when it is classed, not each time a
    /// larger peak replaces it (most peaks of the integrated signal are ripples that do): by then
    /// at most `refractory` samples have passed, and the ring buffers hold its window unchanged.
    @exclusivity(unchecked) private var pending: PendingPeak?
    private var learning: [Candidate] = []
    private var learningMaximum = 0.0
    private var learningSum = 0.0
    private var signalLevel = 0.0
    private var noiseLevel = 0.0
    /// the same levels for the band-passed peak amplitudes (Pan & Tompkins' second threshold)
    private var signalAmplitude = 0.0
    private var noiseAmplitude = 0.0
    private var learningAmplitudeMaximum = 0.0
    private var learningAmplitudeSum = 0.0
    @exclusivity(unchecked) private var lastBeat: Candidate?
    private var searchBackCandidate: Candidate?
    private var recentRR: [Int]
    private var recentRRCount = 0
    /// the last eight RR intervals within 92–116 % of their own mean (Pan & Tompkins' RR AVERAGE2) [samples]
    private var regularRR: [Int]
    private var regularRRCount = 0
    /// RR intervals in a row outside those limits
    private var irregularRun = 0
    /// peaks classed since the last accepted beat, oldest first (at most `heldCapacity`)
    private var held: [Candidate] = []
    static let heldCapacity = 32
    /// sample index of the last relearning attempt
    @exclusivity(unchecked) private var lastRelearn = 0
    /// samples processed since the start
    @exclusivity(unchecked) public private(set) var sampleIndex = 0

    public convenience init(sampleRate: Double) {
        self.init(sampleRate: sampleRate, usesKernel: true)
    }

    init(sampleRate: Double, usesKernel: Bool) {
        self.sampleRate = sampleRate
        self.usesKernel = usesKernel
        windowLength = max(1, Int((0.150 * sampleRate).rounded()))
        refractory = max(1, Int((0.200 * sampleRate).rounded()))
        tWaveWindow = Int((0.360 * sampleRate).rounded())
        learningLength = max(1, Int((2.0 * sampleRate).rounded()))
        relearnAfter = Int((2.5 * sampleRate).rounded())
        bandPass = [
            .highPass(cutoff: 5, sampleRate: sampleRate),
            .lowPass(cutoff: 15, sampleRate: sampleRate),
        ]
        bandPassDelay = Int((Self.groupDelay(of: bandPass, at: 10, sampleRate: sampleRate) * sampleRate).rounded())
        narrowTemplate = Self.ricker(sigma: 0.008, halfWidth: 0.05, sampleRate: sampleRate)
        wideTemplate = Self.ricker(sigma: 0.022, halfWidth: 0.05, sampleRate: sampleRate)
        func zeros(_ count: Int) -> UnsafeMutableBufferPointer<Double> {
            let buffer = UnsafeMutableBufferPointer<Double>.allocate(capacity: count)
            buffer.initialize(repeating: 0)
            return buffer
        }
        batchFiltered = zeros(Self.batchLength)
        batchEnergy = zeros(Self.batchLength)
        matchInput = zeros(narrowTemplate.count - 1 + Self.batchLength)
        squares = zeros(windowLength)
        let historyLength = max(windowLength + refractory + bandPassDelay + 8, Int(sampleRate))
        bandPassed = zeros(historyLength)
        slopes = zeros(historyLength)
        learning.reserveCapacity(64)
        held.reserveCapacity(Self.heldCapacity)
        integratedHistory = zeros(learningLength)
        amplitudeHistory = zeros(learningLength)
        recentRR = Array(repeating: Int(sampleRate), count: 8)
        regularRR = Array(repeating: Int(sampleRate), count: 8)
        regularMeanRR = Self.mean(regularRR)
    }

    deinit {
        for buffer in [batchFiltered, batchEnergy, matchInput, squares, bandPassed, slopes, integratedHistory,
                       amplitudeHistory] {
            buffer.deallocate()
        }
    }

    /// Worst-case delay from an R peak to its report, search-back aside [s].
    public var maximumDelay: Double {
        Double(windowLength + refractory + bandPassDelay + templateDelay + 4) / sampleRate
    }

    /// the matched filters' delay: half their length [samples]
    private var templateDelay: Int { narrowTemplate.count / 2 }

    /// mean of the last eight RR intervals [samples]
    private var meanRR: Double { Double(recentRR.reduce(0, +)) / Double(recentRR.count) }
    /// mean of the last eight regular RR intervals [samples]
    /// kept up to date whenever `regularRR` changes: the search-back test reads it every sample
    private var regularMeanRR: Double
    private static func mean(_ intervals: [Int]) -> Double { Double(intervals.reduce(0, +)) / Double(intervals.count) }

    private var threshold: Double { noiseLevel + 0.25 * (signalLevel - noiseLevel) }
    private var amplitudeThreshold: Double { noiseAmplitude + 0.25 * (signalAmplitude - noiseAmplitude) }

    /// Feeds samples [mV] (NaN holds the last value; before the first finite
    /// sample the detector only counts time); appends the sample index
    /// of each detected R peak to `beats`, in time order.
    public func process(_ samples: UnsafeBufferPointer<Float>, beats: inout [Int]) {
        var start = 0
        while start < samples.count {
            let count = min(Self.batchLength, samples.count - start)
            let batch = UnsafeBufferPointer(rebasing: samples[start..<(start + count)])
            if usesKernel {
                bandPassAndMatchInKernel(batch)
            } else {
                filterBatch(batch)
                matchFilters(count: count)
            }
            stepBatch(count: count, beats: &beats)
            start += count
        }
    }

    public func process(_ samples: [Float], beats: inout [Int]) {
        samples.withUnsafeBufferPointer { process($0, beats: &beats) }
    }

    /// The band-pass over one batch into `batchFiltered` (NaN holds the last value; 0 before the first
    /// finite sample).
    private func filterBatch(_ samples: UnsafeBufferPointer<Float>) {
        bandPass.withUnsafeMutableBufferPointer { sections in
            for (offset, sample) in samples.enumerated() {
                let input = Double(sample)
                var filtered = 0.0
                if input.isFinite || primed {
                    let x = input.isFinite ? input : lastInput
                    lastInput = x
                    if !primed {
                        // settled on x: the high-pass outputs 0, so the low-pass starts at 0, not at x
                        var settled = x
                        for index in sections.indices {
                            sections[index].prime(with: settled)
                            settled *= sections[index].dcGain
                        }
                        primed = true
                    }
                    filtered = x
                    for index in sections.indices { filtered = sections[index].process(filtered) }
                }
                batchFiltered[offset] = filtered
            }
        }
    }

    /// Whether batches go through `tscope_qrs_band_pass_and_match` (CECGKernels) or through
    /// `filterBatch` and `matchFilters` here, which it must equal bit for bit (QRSDetectorTests run
    /// both). The kernel is the same operations in the same order, in one loop (while the band-pass
    /// recursion waits on each sample's multiply-adds the processor works on the matched filters of
    /// the samples just band-passed) and on AVX's four-double registers where the processor has them
    /// (Swift builds for two-double SSE2 registers). The two are about half of the detector's time.
    let usesKernel: Bool

    /// The band-pass and the matched filters over one batch in the C kernel.
    private func bandPassAndMatchInKernel(_ samples: UnsafeBufferPointer<Float>) {
        var sections = (bandPass[0].coefficientsAndState, bandPass[1].coefficientsAndState)
        var primed: Int32 = self.primed ? 1 : 0
        var lastInput = self.lastInput
        let count = samples.count, taps = narrowTemplate.count
        narrowTemplate.withUnsafeBufferPointer { narrow in
            wideTemplate.withUnsafeBufferPointer { wide in
                withUnsafeMutableBytes(of: &sections) { sections in
                    tscope_qrs_band_pass_and_match(samples.baseAddress, count,
                                                   sections.baseAddress!.assumingMemoryBound(to: Double.self),
                                                   &primed, &lastInput, narrow.baseAddress, wide.baseAddress, taps,
                                                   matchInput.baseAddress, batchFiltered.baseAddress,
                                                   batchEnergy.baseAddress)
                }
            }
        }
        bandPass[0].coefficientsAndState = sections.0
        bandPass[1].coefficientsAndState = sections.1
        self.primed = primed != 0
        self.lastInput = lastInput
        // keep the last taps − 1 for the next batch
        for index in 0..<(taps - 1) { matchInput[index] = matchInput[count + index] }
    }

    /// The smaller of the two matched filters' squared outputs for each of the batch's first `count`
    /// band-passed samples, into `batchEnergy` (`MatchedFilterPair`: four partial sums per output,
    /// because one running sum is a chain of dependent additions the processor cannot overlap, and
    /// this was the detector's costliest loop; two neighbouring outputs at a time).
    private func matchFilters(count: Int) {
        let taps = narrowTemplate.count
        let input = matchInput
        for offset in 0..<count { input[taps - 1 + offset] = batchFiltered[offset] }
        let x = UnsafePointer(input.baseAddress!)
        let energy = batchEnergy
        narrowTemplate.withUnsafeBufferPointer { narrowTaps in
            wideTemplate.withUnsafeBufferPointer { wideTaps in
                let narrowTap = narrowTaps.baseAddress!, wideTap = wideTaps.baseAddress!
                let filters = MatchedFilterPair(narrowTap: narrowTap, wideTap: wideTap, taps: taps, input: x)
                // x[offset ..< offset + taps]: output `offset`'s last `taps` samples, oldest first
                var offset = 0
                while offset + 2 <= count {
                    (energy[offset], energy[offset + 1]) = filters.energies(at: offset)
                    offset += 2
                }
                if offset < count {
                    energy[offset] = filters.energy(at: offset)
                }
            }
        }
        // keep the last taps − 1 for the next batch
        for index in 0..<(taps - 1) { input[index] = input[count + index] }
    }

    /// The peak logic for the batch's first `count` samples (`batchFiltered`, `batchEnergy`). Most
    /// samples only move the running sums and rings; the state they touch is held in local variables
    /// for the batch (as properties of a class it was stored and loaded again on every sample, around
    /// the calls the peak logic might make). A sample goes through `events` — the peak test and
    /// everything after it, in the order `step` takes them — when it could make one: an integrated
    /// peak, the learning period, or a sample index at which a pending peak is due, a search-back or
    /// a relearning could start (`nextEventIndex`). Every value's operations and their order are the
    /// same as sample by sample, so are the bits.
    private func stepBatch(count: Int, beats: inout [Int]) {
        let filteredBatch = batchFiltered, energyBatch = batchEnergy
        let squares = squares, bandPassed = bandPassed, slopes = slopes
        let integratedHistory = integratedHistory, amplitudeHistory = amplitudeHistory
        let windowLength = windowLength, historyLength = bandPassed.count, learningLength = learningLength
        let derivativeScale = sampleRate
        var recent = recent, squareSum = squareSum, integrated = integrated
        var windowSlot = windowSlot, historySlot = historySlot, learningSlot = learningSlot
        var sampleIndex = sampleIndex
        var nextEvent = nextEventIndex()
        var offset = 0
        while offset < count {
            // the samples up to the next that could make an event, with no call in the loop (a call
            // in it kept its state on the stack instead of in registers)
            var eventFiltered = 0.0, eventValue = 0.0, event = false
            while offset < count {
                let filtered = filteredBatch[offset], square = energyBatch[offset]
                // five-point derivative (Pan & Tompkins): (2x[n] + x[n−1] − x[n−3] − 2x[n−4]) / 8T
                let derivative = (2 * filtered + recent.0 - recent.2 - 2 * recent.3) * derivativeScale / 8
                recent = (filtered, recent.0, recent.1, recent.2)
                squareSum += square - squares[windowSlot]
                squares[windowSlot] = square
                let value = max(squareSum, 0) / Double(windowLength)
                bandPassed[historySlot] = filtered
                slopes[historySlot] = abs(derivative)
                if sampleIndex >= nextEvent || (integrated.0 > integrated.1 && integrated.0 >= value && sampleIndex >= 2) {
                    (eventFiltered, eventValue, event) = (filtered, value, true)
                    break
                }
                integrated = (value, integrated.0)
                integratedHistory[learningSlot] = value
                amplitudeHistory[learningSlot] = abs(filtered)
                sampleIndex += 1
                windowSlot += 1
                if windowSlot == windowLength { windowSlot = 0 }
                historySlot += 1
                if historySlot == historyLength { historySlot = 0 }
                learningSlot += 1
                if learningSlot == learningLength { learningSlot = 0 }
                offset += 1
            }
            guard event else { break }
            // (the same steps on to the next sample as in the loop above, written out: a shared nested
            // function took 3 % more instructions here)
            self.integrated = integrated
            self.sampleIndex = sampleIndex
            self.learningSlot = learningSlot
            events(filtered: eventFiltered, value: eventValue, beats: &beats)
            integrated = self.integrated
            nextEvent = nextEventIndex()
            sampleIndex += 1
            windowSlot += 1
            if windowSlot == windowLength { windowSlot = 0 }
            historySlot += 1
            if historySlot == historyLength { historySlot = 0 }
            learningSlot += 1
            if learningSlot == learningLength { learningSlot = 0 }
            offset += 1
        }
        self.recent = recent
        self.squareSum = squareSum
        self.integrated = integrated
        self.windowSlot = windowSlot
        self.historySlot = historySlot
        self.learningSlot = learningSlot
        self.sampleIndex = sampleIndex
    }

    /// The first sample index at or after `sampleIndex` whose `events` could do more than move the
    /// integrated signal on (a peak of it aside): during the learning period every one; then the
    /// earliest of the pending peak's classing, the search-back and the relearning, by their own
    /// tests solved for the sample index (`Int.max` for one that cannot come before something changes,
    /// and only `events` changes them).
    private func nextEventIndex() -> Int {
        if sampleIndex < learningLength { return sampleIndex }
        var next = Int.max
        if let candidate = pending { next = candidate.peakIndex + refractory }
        if let last = lastBeat, searchBackCandidate != nil {
            // Double(index − peak) > 1.66 · regular mean RR, for whole numbers: index − peak ≥ ⌊that⌋ + 1
            let limit = 1.66 * regularMeanRR
            if limit.isFinite, limit >= 0, limit < Double(Int.max / 4) {
                next = min(next, last.peakIndex + Int(limit.rounded(.down)) + 1)
            } else {
                return sampleIndex
            }
        }
        // relearnIfLost's test: index − since > relearnAfter and > Int(2 · mean RR)
        let since = max(lastBeat?.peakIndex ?? 0, lastRelearn)
        next = min(next, since + max(relearnAfter, Int(2 * meanRR)) + 1)
        return max(next, sampleIndex)
    }

    /// One sample's peak logic after its running sums: the peak test, the integrated signal's
    /// history, the learning period, and the pending peak, search-back and relearning tests.
    private func events(filtered: Double, value: Double, beats: inout [Int]) {
        // a local maximum of the integrated signal at the previous sample
        if integrated.0 > integrated.1 && integrated.0 >= value && sampleIndex >= 2 {
            offer(peakIndex: sampleIndex - 1, height: integrated.0, beats: &beats)
        }
        integrated = (value, integrated.0)
        integratedHistory[learningSlot] = value
        amplitudeHistory[learningSlot] = abs(filtered)

        if sampleIndex < learningLength {
            learningMaximum = max(learningMaximum, value)
            learningSum += value
            learningAmplitudeMaximum = max(learningAmplitudeMaximum, abs(filtered))
            learningAmplitudeSum += abs(filtered)
        }
        if let peak = pending, sampleIndex - peak.peakIndex >= refractory {
            pending = nil
            classifyOrLearn(candidate(peakIndex: peak.peakIndex, height: peak.height), beats: &beats)
        }
        if sampleIndex == learningLength - 1 { finishLearning(beats: &beats) }
        if sampleIndex >= learningLength {
            searchBackIfOverdue(beats: &beats)
            relearnIfLost(beats: &beats)
        }
    }

    /// A Ricker wavelet (1 − t²/σ²)·exp(−t²/2σ²) sampled over ±`halfWidth`, scaled to unit energy [s].
    static func ricker(sigma: Double, halfWidth: Double, sampleRate: Double) -> [Double] {
        let half = max(1, Int((halfWidth * sampleRate).rounded()))
        let scale = max(sigma * sampleRate, 0.5)
        let taps = (-half...half).map { index -> Double in
            let t2 = Double(index * index) / (scale * scale)
            return (1 - t2) * exp(-t2 / 2)
        }
        let energy = sqrt(taps.reduce(0) { $0 + $1 * $1 })
        return taps.map { $0 / energy }
    }

    /// Keeps the larger of two integrated peaks closer than the refractory period.
    private func offer(peakIndex: Int, height: Double, beats: inout [Int]) {
        if let current = pending {
            if peakIndex - current.peakIndex < refractory {
                if height > current.height { pending = PendingPeak(height: height, peakIndex: peakIndex) }
                return
            }
            pending = nil
            classifyOrLearn(candidate(peakIndex: current.peakIndex, height: current.height), beats: &beats)
        }
        pending = PendingPeak(height: height, peakIndex: peakIndex)
    }

    /// Locates the R peak and the steepest slope in the integration window ending at `peakIndex`.
    private func candidate(peakIndex: Int, height: Double) -> Candidate {
        let capacity = bandPassed.count
        let oldest = max(0, sampleIndex - capacity + 1)
        // the derivative lags the band-pass by 2 samples
        let first = max(oldest, peakIndex - windowLength - 2)
        let last = max(first, min(sampleIndex, peakIndex))
        var best = first
        var bestMagnitude = -1.0
        var steepest = 0.0
        // index first...last lives at slot index % capacity: one division, then counting (the
        // window is shorter than the ring, so it wraps at most once)
        var slot = first % capacity
        for index in first...last {
            let magnitude = abs(bandPassed[slot])
            if magnitude > bestMagnitude {
                bestMagnitude = magnitude
                best = index
            }
            steepest = max(steepest, slopes[slot])
            slot += 1
            if slot == capacity { slot = 0 }
        }
        return Candidate(height: height, peakIndex: peakIndex, rIndex: max(0, best - bandPassDelay), slope: steepest,
                         amplitude: max(0, bestMagnitude))
    }

    private func classifyOrLearn(_ candidate: Candidate, beats: inout [Int]) {
        if sampleIndex < learningLength {
            if learning.count < learning.capacity { learning.append(candidate) }
        } else {
            classify(candidate, beats: &beats)
        }
    }

    private func finishLearning(beats: inout [Int]) {
        signalLevel = learningMaximum / 3
        noiseLevel = learningSum / Double(learningLength) / 2
        signalAmplitude = learningAmplitudeMaximum / 3
        noiseAmplitude = learningAmplitudeSum / Double(learningLength) / 2
        for candidate in learning { classify(candidate, beats: &beats) }
        learning.removeAll(keepingCapacity: true)
    }

    private func classify(_ candidate: Candidate, beats: inout [Int]) {
        if held.count == Self.heldCapacity { held.removeFirst() }
        held.append(candidate)
        judge(candidate, beats: &beats)
    }

    private func judge(_ candidate: Candidate, beats: inout [Int]) {
        if candidate.height > threshold, candidate.amplitude > amplitudeThreshold {
            if let last = lastBeat, isTWaveOrNoise(candidate, after: last) {
                noiseLevel = 0.125 * candidate.height + 0.875 * noiseLevel
                noiseAmplitude = 0.125 * candidate.amplitude + 0.875 * noiseAmplitude
                return
            }
            signalLevel = 0.125 * candidate.height + 0.875 * signalLevel
            signalAmplitude = 0.125 * candidate.amplitude + 0.875 * signalAmplitude
            accept(candidate, beats: &beats)
        } else {
            noiseLevel = 0.125 * candidate.height + 0.875 * noiseLevel
            noiseAmplitude = 0.125 * candidate.amplitude + 0.875 * noiseAmplitude
            if candidate.height > 0.5 * threshold, candidate.height > (searchBackCandidate?.height ?? 0),
               candidate.rIndex - (lastBeat?.rIndex ?? -refractory) >= refractory {
                searchBackCandidate = candidate
            }
        }
    }

    /// Pan & Tompkins' T-wave test — within 360 ms of a beat, less than half
    /// its steepest slope — and, closer than min(360 ms, 0.6 regular RR), an
    /// energy under 3/4 of the running signal level: so soon after a beat a
    /// second QRS (an R-on-T ectopic) is as energetic as a beat, while muscle
    /// noise, whose slopes are as steep as a QRS's, is not.
    private func isTWaveOrNoise(_ candidate: Candidate, after last: Candidate) -> Bool {
        let interval = candidate.rIndex - last.rIndex
        if interval < tWaveWindow, candidate.slope < 0.5 * last.slope { return true }
        return Double(interval) < min(Double(tWaveWindow), 0.6 * regularMeanRR) && candidate.height < 0.75 * signalLevel
    }

    private func searchBackIfOverdue(beats: inout [Int]) {
        guard let last = lastBeat, let candidate = searchBackCandidate,
              Double(sampleIndex - last.peakIndex) > 1.66 * regularMeanRR else { return }
        signalLevel = 0.25 * candidate.height + 0.75 * signalLevel
        signalAmplitude = 0.25 * candidate.amplitude + 0.75 * signalAmplitude
        accept(candidate, beats: &beats)
    }

    /// Learns the thresholds again from the last 2 s when no beat came for too
    /// long and those 2 s hold prominent peaks; classes the peaks held since
    /// the last beat with them.
    @inline(__always)
    private func relearnIfLost(beats: inout [Int]) {
        let since = max(lastBeat?.peakIndex ?? 0, lastRelearn)
        // the same test as "> max(relearnAfter, 2 × mean RR)", the cheap half first: it runs every
        // sample, inlined (a call per sample was a hundredth of `ecg classify`), the rest in a call
        guard sampleIndex - since > relearnAfter, sampleIndex - since > Int(2 * meanRR) else { return }
        relearn(beats: &beats)
    }

    private func relearn(beats: inout [Int]) {
        lastRelearn = sampleIndex
        var maximum = 0.0
        var sum = 0.0
        for value in integratedHistory {
            maximum = max(maximum, value)
            sum += value
        }
        let mean = sum / Double(integratedHistory.count)
        guard maximum > 0, maximum >= Self.relearnProminence * mean else { return }
        signalLevel = maximum / 3
        noiseLevel = mean / 2
        signalAmplitude = (amplitudeHistory.max() ?? 0) / 3
        noiseAmplitude = amplitudeHistory.reduce(0, +) / Double(amplitudeHistory.count) / 2
        searchBackCandidate = nil
        let oldest = sampleIndex - learningLength
        let candidates = held.filter { $0.peakIndex > oldest }
        held.removeAll(keepingCapacity: true)
        for candidate in candidates { judge(candidate, beats: &beats) }
    }

    private func accept(_ candidate: Candidate, beats: inout [Int]) {
        held.removeAll(keepingCapacity: true)
        if let last = lastBeat {
            if candidate.rIndex <= last.rIndex { return }
            let interval = candidate.rIndex - last.rIndex
            recentRR[recentRRCount % recentRR.count] = interval
            recentRRCount += 1
            let regular = regularMeanRR
            if Double(interval) >= 0.92 * regular, Double(interval) <= 1.16 * regular {
                regularRR[regularRRCount % regularRR.count] = interval
                regularMeanRR = Self.mean(regularRR)
                regularRRCount += 1
                irregularRun = 0
            } else {
                irregularRun += 1
                if irregularRun >= regularRR.count {
                    // the rate has changed: start again from the last eight intervals
                    for index in regularRR.indices { regularRR[index] = recentRR[index] }
                    regularMeanRR = Self.mean(regularRR)
                    irregularRun = 0
                }
            }
        }
        lastBeat = candidate
        searchBackCandidate = nil
        beats.append(candidate.rIndex)
    }

    /// Group delay −dφ/dω of a cascade at `frequency` [s], by a central difference of the phase.
    static func groupDelay(of sections: [Biquad], at frequency: Double, sampleRate: Double) -> Double {
        func phase(_ f: Double) -> Double {
            let w = 2 * Double.pi * f / sampleRate
            var total = 0.0
            for s in sections {
                // H(e^jw) = (b0 + b1 e^-jw + b2 e^-2jw) / (1 + a1 e^-jw + a2 e^-2jw)
                let numerator = atan2(-s.b1 * sin(w) - s.b2 * sin(2 * w), s.b0 + s.b1 * cos(w) + s.b2 * cos(2 * w))
                let denominator = atan2(-s.a1 * sin(w) - s.a2 * sin(2 * w), 1 + s.a1 * cos(w) + s.a2 * cos(2 * w))
                total += numerator - denominator
            }
            return total
        }
        let step = 0.01 // [Hz]
        var difference = phase(frequency + step) - phase(frequency - step)
        if difference > Double.pi { difference -= 2 * Double.pi }
        if difference < -Double.pi { difference += 2 * Double.pi }
        return -difference / (2 * Double.pi * 2 * step)
    }
}

extension QRSDetector {
    /// Ends the input (a record's last sample): the detector runs on through
    /// its maximum delay on the last value held, so a beat in the last
    /// `maximumDelay` seconds is reported too; nothing past the end is.
    public func finish(beats: inout [Int]) {
        let end = sampleIndex
        let settle = windowLength + refractory + bandPassDelay + templateDelay + 4
        let held = [Float](repeating: .nan, count: settle)
        var tail: [Int] = []
        process(held, beats: &tail)
        beats.append(contentsOf: tail.filter { $0 < end })
    }

    /// The band-passed samples and matched-filter energies of `samples`, batch by batch as
    /// `process` makes them, without the peak logic: what tests hold the C kernel to against
    /// `filterBatch` and `matchFilters`.
    func filterOutputs(_ samples: [Float]) -> (filtered: [Double], energy: [Double]) {
        var filtered: [Double] = [], energy: [Double] = []
        samples.withUnsafeBufferPointer { samples in
            var start = 0
            while start < samples.count {
                let count = min(Self.batchLength, samples.count - start)
                let batch = UnsafeBufferPointer(rebasing: samples[start..<(start + count)])
                if usesKernel {
                    bandPassAndMatchInKernel(batch)
                } else {
                    filterBatch(batch)
                    matchFilters(count: count)
                }
                filtered += batchFiltered[0..<count]
                energy += batchEnergy[0..<count]
                start += count
            }
        }
        return (filtered, energy)
    }

    /// Detects the beats of a whole signal (off-line use of the live detector).
    public static func detect(_ samples: [Float], sampleRate: Double) -> [Int] {
        let detector = QRSDetector(sampleRate: sampleRate)
        var beats: [Int] = []
        beats.reserveCapacity(Int(Double(samples.count) / sampleRate * 4) + 16)
        detector.process(samples, beats: &beats)
        detector.finish(beats: &beats)
        return beats
    }
}

/// The two matched filters (narrow and wide template) over the band-passed input,
/// for `QRSDetector`'s two batch loops: the smaller of their squared outputs at
/// an offset, whose last `taps` input samples are `input[offset ..< offset + taps]`.
/// Each output is summed as four partial sums (taps 4m + j into lane j, in order
/// of m) plus the leftover taps in order, then the lanes added in order and the
/// leftover sum last; `energies` computes two neighbouring outputs together so
/// that each load of the taps serves both, each in that same order.
private struct MatchedFilterPair {
    let narrowTap: UnsafePointer<Double>
    let wideTap: UnsafePointer<Double>
    let taps: Int
    let input: UnsafePointer<Double>

    /// taps summed four at a time, the rest one by one
    var blockEnd: Int { taps / 4 * 4 }

    @inline(__always) private func four(_ pointer: UnsafePointer<Double>) -> SIMD4<Double> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Double>.self)
    }

    @inline(__always) private func smallerSquare(_ narrow: SIMD4<Double>, _ narrowTail: Double,
                                                 _ wide: SIMD4<Double>, _ wideTail: Double) -> Double {
        let narrowSum = narrow.sum() + narrowTail
        let wideSum = wide.sum() + wideTail
        return min(narrowSum * narrowSum, wideSum * wideSum)
    }

    /// the outputs at `offset` and `offset + 1`
    @inline(__always) func energies(at offset: Int) -> (Double, Double) {
        let x = input, blockEnd = blockEnd
        var narrow0 = SIMD4<Double>(), wide0 = SIMD4<Double>()
        var narrow1 = SIMD4<Double>(), wide1 = SIMD4<Double>()
        var k = 0
        while k < blockEnd {
            let narrowFour = four(narrowTap + k), wideFour = four(wideTap + k)
            let x0 = four(x + (offset &+ k)), x1 = four(x + (offset &+ 1 &+ k))
            narrow0 += narrowFour * x0
            wide0 += wideFour * x0
            narrow1 += narrowFour * x1
            wide1 += wideFour * x1
            k &+= 4
        }
        var narrowTail0 = 0.0, wideTail0 = 0.0, narrowTail1 = 0.0, wideTail1 = 0.0
        while k < taps {
            narrowTail0 += narrowTap[k] * x[offset &+ k]
            wideTail0 += wideTap[k] * x[offset &+ k]
            narrowTail1 += narrowTap[k] * x[offset &+ 1 &+ k]
            wideTail1 += wideTap[k] * x[offset &+ 1 &+ k]
            k &+= 1
        }
        return (smallerSquare(narrow0, narrowTail0, wide0, wideTail0), smallerSquare(narrow1, narrowTail1, wide1, wideTail1))
    }

    /// the output at `offset` alone (a batch's odd last one)
    @inline(__always) func energy(at offset: Int) -> Double {
        let x = input, blockEnd = blockEnd
        var narrow = SIMD4<Double>(), wide = SIMD4<Double>()
        var k = 0
        while k < blockEnd {
            let x0 = four(x + (offset &+ k))
            narrow += four(narrowTap + k) * x0
            wide += four(wideTap + k) * x0
            k &+= 4
        }
        var narrowTail = 0.0, wideTail = 0.0
        while k < taps {
            narrowTail += narrowTap[k] * x[offset &+ k]
            wideTail += wideTap[k] * x[offset &+ k]
            k &+= 1
        }
        return smallerSquare(narrow, narrowTail, wide, wideTail)
    }
}
