import DSP
import Foundation

/// Labels each detected beat N, S, V or Q from its shape and its timing.
///
/// Morphology: each beat's QRS (±100 ms around its largest deflection, either
/// sign, so an inverted lead reads the same) is compared with a running
/// template of the record's normal beats by correlation, and its width (the
/// time holding the central 80 % of the QRS's slope energy) and size with the
/// template's. Timing: prematurity (the RR interval before the beat against
/// the median of the last eight normal-to-normal intervals) and the pause
/// after it (compensatory or not). The rules, the classical ones of
/// rule-based beat classification (a wide or differently shaped complex is
/// ventricular; a premature complex of normal shape in a regular rhythm is
/// supraventricular; compare de Chazal, O'Dwyer & Reilly, IEEE TBME 51(7),
/// 2004, for these features), with thresholds chosen on the development half
/// of the MIT-BIH Arrhythmia Database (de Chazal's DS1; Docs/ecg.md).
///
/// A beat is decided once the next one is known (the pause after it is part of
/// its timing). Then, unless made with `.rulesAlone`, the learnt decision
/// (`VentricularBeatModel`: trees over these measures and the neighbouring
/// beats', trained on DS1) says V or not, so labels come two beats late. The template is learnt from the
/// first eight beats (the one most like the others, averaged with those like
/// it), so the first labels come with the ninth beat; six beats in a row of
/// one other shape at a steady rate under 100 beats/min make it anew (a
/// bundle-branch block that comes or goes, a lead that moved).
public final class BeatClassifier {
    public let sampleRate: Double
    /// samples either side of the R peak the caller passes to `add` (0.25 s)
    public let windowHalf: Int
    /// template half width: ±100 ms
    let segmentHalf: Int
    /// how far the largest deflection is looked for around the reported R peak (±60 ms)
    let alignSearch: Int
    /// span the width is measured over: ±150 ms
    let widthHalf: Int
    /// shifts tried when correlating with the template [samples]
    let shiftRange: Int

    static let learningBeats = 8
    /// correlation at or above which a complex has the template's shape
    static let sameShape = 0.9
    /// below this the shape differs whatever the timing
    static let otherShape = 0.7
    /// below this an early beat's shape is not its supraventricular origin's
    static let earlyShape = 0.9
    /// wider than this × the template's width (and at least `wideMinimum`) is a wide complex
    static let wideRatio = 1.45
    static let wideMinimum = 0.06
    /// an RR interval shorter than this × the reference is premature
    static let premature = 0.82
    /// a reference rhythm whose intervals vary more than this (median |ΔRR| / RR) is not regular
    static let regularBelow = 0.06

    private var template: [Float]
    private var templateWidth = 0.0
    private var templateAmplitude = 0.0
    /// the normal beats' mean level after the QRS [mV] and outer slope energy, followed as the template is
    private var normalAfterMean = 0.0
    private var normalOutsideEnergy = 0.0
    /// the normal beats' whole ±250 ms (QRS, ST and T), baseline removed, followed as the template
    /// is; and the beat being measured, the same way
    private var windowTemplate: [Float]
    private var beatWindow: [Float]
    private var learning: [(beat: Int, segment: [Float], window: [Float], measured: Measured)] = []
    /// the last beats in a row whose shape differs from the template though they came on time
    /// (segments, widths, sizes; `relearnAfter` of them, kept as a ring): a new normal shape
    private var unlikeSegments: [[Float]]
    private var unlikeWidths: [Double]
    private var unlikeAmplitudes: [Double]
    private var unlikeIntervals: [Int]
    private var unlikeCount = 0
    /// beats in a row of another shape, on time, after which that shape is the normal one
    /// (a bundle-branch block that comes or goes, a lead that moved)
    static let relearnAfter = 6
    /// beats measured but not yet decided (waiting for the next beat)
    private var pending: [Measured] = []
    /// the last eight intervals between two normal beats [samples]
    private var normalIntervals: [Int] = []
    /// the last eight intervals between any two beats [samples]: in AF nearly every beat is early
    /// against the one before, and only these show the rhythm is not regular
    private var recentIntervals: [Int] = []
    private var lastDecided: (beat: Int, beatClass: BeatClass)?
    private var scratch: [Float]
    private var sortScratch: [Float]
    private var intervalScratch: [Int] = []
    /// the rules' decisions when the caller does not ask for them
    private var ruledScratch: [ClassifiedBeat] = []
    private var segment: [Float]
    /// the correlations of `segment` (or `beatWindow`) with the template at each shift from
    /// −`shiftRange` to `shiftRange`, as the last comparison left them
    private var shiftCorrelations: [Double] = []

    struct Measured {
        var beat: Int
        var correlation: Double
        var width: Double
        var amplitude: Double
        var noisy: Bool
        var previousInterval: Int?
        /// the QRS against the template at the best shift: the least-squares scale of the
        /// template in it (negative: inverted) and what is left, as a share of the template's size
        var projection = 1.0
        var residualRatio = 0.0
        /// the QRS's signed area against the template's absolute area
        var areaRatio = 0.0
        /// the mean level after the QRS (+100…+250 ms, the ST segment and T wave) less the
        /// normal beats', in template amplitudes: a ventricular beat's T wave is large and discordant
        var afterLevel = 0.0
        /// slope energy outside the QRS against the normal beats'
        var outsideEnergyRatio = 1.0
        /// the raw measures those two come from: mean level after the QRS [mV] and outer slope energy [mV²]
        var afterMean = 0.0
        var outsideEnergy = 0.0
        /// correlation of the whole ±250 ms with the normal beats' (`windowTemplate`)
        var windowCorrelation = 1.0
    }

    /// the learnt V decision after the rules (nil: the rules' classes stand)
    private let learnt: VentricularBeatModel?

    /// - Parameter beatModel: the learnt V decision after the rules (`.rulesAlone`: none; the
    ///   trees' training rows are the same either way)
    public init(sampleRate: Double, beatModel: BeatModelChoice = .committed) {
        self.sampleRate = sampleRate
        learnt = VentricularBeatModel(beatModel)
        windowHalf = Int((0.25 * sampleRate).rounded())
        segmentHalf = max(2, Int((0.10 * sampleRate).rounded()))
        alignSearch = max(1, Int((0.06 * sampleRate).rounded()))
        widthHalf = max(3, Int((0.15 * sampleRate).rounded()))
        shiftRange = 2
        template = Array(repeating: 0, count: 2 * segmentHalf + 1)
        scratch = Array(repeating: 0, count: 2 * windowHalf + 1)
        sortScratch = scratch
        unlikeSegments = Array(repeating: Array(repeating: 0, count: 2 * segmentHalf + 1), count: Self.relearnAfter)
        unlikeWidths = Array(repeating: 0, count: Self.relearnAfter)
        unlikeAmplitudes = Array(repeating: 0, count: Self.relearnAfter)
        unlikeIntervals = Array(repeating: 0, count: Self.relearnAfter)
        intervalScratch.reserveCapacity(9)
        segment = Array(repeating: 0, count: 2 * segmentHalf + 1)
        windowTemplate = Array(repeating: 0, count: 2 * windowHalf + 1)
        beatWindow = windowTemplate
        normalIntervals.reserveCapacity(9)
    }

    /// the window length `add` expects: 2 × `windowHalf` + 1 samples centred on the beat
    public var windowLength: Int { 2 * windowHalf + 1 }

    /// Adds the beat at `beat` with the filtered samples around it
    /// (`window[windowHalf]` is the beat's own sample; NaN where there is no
    /// signal). Appends the beats now decided, in time order.
    public func add(beat: Int, window: UnsafeBufferPointer<Float>, decided: inout [ClassifiedBeat]) {
        add(beat: beat, window: window, decided: &decided, ruled: &ruledScratch)
        ruledScratch.removeAll(keepingCapacity: true)
    }

    /// `add(beat:window:decided:)` that also appends the beats the rules have decided, with the
    /// rules' classes (a beat before `decided` has them, when the learnt decision follows).
    public func add(beat: Int, window: UnsafeBufferPointer<Float>, decided: inout [ClassifiedBeat],
                    ruled: inout [ClassifiedBeat]) {
        guard window.count == windowLength else { return }
        var measured = measure(beat: beat, window: window)
        measured.previousInterval = pending.last.map { beat - $0.beat }
            ?? learning.last.map { beat - $0.beat } ?? lastDecided.map { beat - $0.beat }
        if learning.count < Self.learningBeats && templateAmplitude == 0 {
            learning.append((beat, segment, beatWindow, measured))
            if learning.count == Self.learningBeats { learnTemplate(decided: &decided, ruled: &ruled) }
            return
        }
        measured.correlation = bestCorrelation()
        if measured.correlation >= Self.sameShape && !measured.noisy { followTemplate(measured) }
        if noteShapeChange(measured) { measured.correlation = bestCorrelation() }
        if measuresFeatures { compareWithTemplate(&measured) }
        pending.append(measured)
        while pending.count >= 2 {
            let next = pending[1].beat
            decide(pending.removeFirst(), nextBeat: next, decided: &decided, ruled: &ruled)
        }
    }

    /// Ends the stream: decides the beats still waiting (the last without a pause after it).
    public func finish(decided: inout [ClassifiedBeat]) {
        finish(decided: &decided, ruled: &ruledScratch)
        ruledScratch.removeAll(keepingCapacity: true)
    }

    /// `finish(decided:)` that also appends the beats the rules decide last.
    public func finish(decided: inout [ClassifiedBeat], ruled: inout [ClassifiedBeat]) {
        if templateAmplitude == 0, !learning.isEmpty {
            learnTemplate(decided: &decided, ruled: &ruled)
        }
        while !pending.isEmpty { decide(pending.removeFirst(), nextBeat: nil, decided: &decided, ruled: &ruled) }
        learnt?.finish(decided: &decided)
    }

    /// Classes of every beat of a whole filtered lead (off-line use).
    public static func classify(_ samples: [Float], beats: [Int], sampleRate: Double,
                                beatModel: BeatModelChoice = .committed,
                                onFeatures: ((Int, BeatClass, [Double]) -> Void)? = nil) -> [ClassifiedBeat] {
        let classifier = BeatClassifier(sampleRate: sampleRate, beatModel: beatModel)
        classifier.onFeatures = onFeatures
        var decided: [ClassifiedBeat] = []
        decided.reserveCapacity(beats.count)
        var window = [Float](repeating: .nan, count: classifier.windowLength)
        for beat in beats {
            for offset in 0..<window.count {
                let index = beat - classifier.windowHalf + offset
                window[offset] = index >= 0 && index < samples.count ? samples[index] : .nan
            }
            window.withUnsafeBufferPointer { classifier.add(beat: beat, window: $0, decided: &decided) }
        }
        classifier.finish(decided: &decided)
        return decided
    }

    // MARK: measuring one beat

    /// Fills `segment` with the beat's QRS aligned on its largest deflection,
    /// baseline removed; measures width, size and noise.
    private func measure(beat: Int, window: UnsafeBufferPointer<Float>) -> Measured {
        var missing = 0
        for index in 0..<window.count {
            scratch[index] = window[index].isFinite ? window[index] : 0
            if !window[index].isFinite { missing += 1 }
        }
        // baseline: the median of the window (most of ±250 ms is off the QRS)
        // the median of a copy kept for it: no allocation per beat
        sortScratch.replaceSubrange(0..<sortScratch.count, with: scratch)
        let baseline = OrderStatistic.select(&sortScratch, rank: sortScratch.count / 2)
        var peak = windowHalf
        var largest: Float = -1
        for index in (windowHalf - alignSearch)...(windowHalf + alignSearch) where abs(scratch[index] - baseline) > largest {
            largest = abs(scratch[index] - baseline)
            peak = index
        }
        let start = peak - segmentHalf
        var low = Float.infinity, high = -Float.infinity
        for offset in 0..<segment.count {
            let value = scratch[start + offset] - baseline
            segment[offset] = value
            low = min(low, value)
            high = max(high, value)
        }
        // width: the span holding the central 80 % of the slope energy over ±150 ms
        let from = max(1, peak - widthHalf), to = min(scratch.count - 1, peak + widthHalf)
        let total = BeatShape.slopeEnergy(scratch, from: from, to: to + 1)
        let (first, last) = BeatShape.slopeEnergySpan(scratch, from: from, to: to)
        // noise: slope energy far from the QRS (the outer 100 ms each side) against the QRS's
        let edge = max(1, Int(0.1 * sampleRate))
        let outside = BeatShape.slopeEnergy(scratch, from: 1, to: min(edge, scratch.count))
            + BeatShape.slopeEnergy(scratch, from: max(1, scratch.count - edge), to: scratch.count)
        let noisy = missing > window.count / 4 || Double(high - low) < 0.05 || outside > 0.5 * total
        // the level after the QRS: +100 ms to the window's end (+250 ms)
        if measuresFeatures {
            for index in 0..<scratch.count { beatWindow[index] = scratch[index] - baseline }
        }
        var afterSum = 0.0
        let afterStart = min(scratch.count, peak + segmentHalf + 1)
        for index in afterStart..<scratch.count { afterSum += Double(scratch[index] - baseline) }
        var measured = Measured(beat: beat, correlation: 0, width: Double(last - first) / sampleRate,
                                amplitude: Double(high - low), noisy: noisy, previousInterval: nil)
        measured.afterMean = afterSum / Double(max(1, scratch.count - afterStart))
        measured.outsideEnergy = outside
        return measured
    }

    /// The shape measures against the template (`segment` is the beat's QRS): projection,
    /// residual and area at the best-correlating shift, and the after-QRS level and outer
    /// energy against the normal beats'.
    private func compareWithTemplate(_ beat: inout Measured) {
        var bestShift = 0, best = -Double.infinity
        BeatShape.correlations(segment, template, shifts: -shiftRange...shiftRange, into: &shiftCorrelations)
        for (position, value) in shiftCorrelations.enumerated() where value > best {
            best = value
            bestShift = position - shiftRange
        }
        var dot = 0.0, templateEnergy = 0.0, area = 0.0, templateArea = 0.0
        for index in template.indices where index + bestShift >= 0 && index + bestShift < segment.count {
            let x = Double(segment[index + bestShift]), t = Double(template[index])
            dot += x * t
            templateEnergy += t * t
            area += x
            templateArea += abs(t)
        }
        guard templateEnergy > 0, templateArea > 0 else { return }
        let scale = dot / templateEnergy
        var residual = 0.0
        for index in template.indices where index + bestShift >= 0 && index + bestShift < segment.count {
            let difference = Double(segment[index + bestShift]) - scale * Double(template[index])
            residual += difference * difference
        }
        beat.projection = scale
        beat.residualRatio = (residual / templateEnergy).squareRoot()
        beat.areaRatio = area / templateArea
        beat.afterLevel = (beat.afterMean - normalAfterMean) / templateAmplitude
        beat.outsideEnergyRatio = beat.outsideEnergy / max(normalOutsideEnergy, 1e-9)
        var bestWindow = -1.0
        BeatShape.correlations(beatWindow, windowTemplate, shifts: -shiftRange...shiftRange, into: &shiftCorrelations)
        for value in shiftCorrelations { bestWindow = max(bestWindow, value) }
        beat.windowCorrelation = bestWindow
    }

    /// The largest correlation of `segment` with the template over shifts of ±2 samples; each
    /// shift's stays in `shiftCorrelations` (for `followTemplate`, until either changes).
    private func bestCorrelation() -> Double {
        var best = -1.0
        BeatShape.correlations(segment, template, shifts: -shiftRange...shiftRange, into: &shiftCorrelations)
        for value in shiftCorrelations { best = max(best, value) }
        return best
    }

    private func correlation(_ a: [Float], _ b: [Float], shift: Int) -> Double {
        BeatShape.correlation(a, b, shift: shift)
    }

    /// The template from the learning beats: the clean beat most like the
    /// others, averaged with those of its shape; then the learning beats are decided.
    private func learnTemplate(decided: inout [ClassifiedBeat], ruled: inout [ClassifiedBeat]) {
        let clean = learning.indices.filter { !learning[$0].measured.noisy }
        let candidates = clean.isEmpty ? Array(learning.indices) : clean
        var bestIndex = candidates[0], bestScore = -Double.infinity
        // Each pair's correlation once: it is symmetric to the bit (its sums only swap places, and each
        // product and the final formula are the same either way round), and each pair was measured
        // twice, a fiftieth of `ecg classify`'s time. pairs[i · n + j]: candidates i and j.
        let n = candidates.count
        var pairs = [Double](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in (i + 1)..<max(i + 1, n) {
                let value = correlation(learning[candidates[i]].segment, learning[candidates[j]].segment, shift: 0)
                pairs[i * n + j] = value
                pairs[j * n + i] = value
            }
        }
        for (i, index) in candidates.enumerated() {
            var scores = (0..<n).filter { $0 != i }.map { pairs[i * n + $0] }
            scores.sort()
            let median = scores.isEmpty ? 1 : scores[scores.count / 2]
            if median > bestScore { bestScore = median; bestIndex = index }
        }
        let centre = learning[bestIndex].segment
        var sum = [Float](repeating: 0, count: centre.count)
        var windowSum = [Float](repeating: 0, count: windowTemplate.count)
        var widths: [Double] = [], amplitudes: [Double] = [], afterMeans: [Double] = [], outsideEnergies: [Double] = []
        for index in candidates where index == bestIndex || correlation(learning[index].segment, centre, shift: 0) >= Self.sameShape {
            for offset in sum.indices { sum[offset] += learning[index].segment[offset] }
            for offset in windowSum.indices { windowSum[offset] += learning[index].window[offset] }
            widths.append(learning[index].measured.width)
            amplitudes.append(learning[index].measured.amplitude)
            afterMeans.append(learning[index].measured.afterMean)
            outsideEnergies.append(learning[index].measured.outsideEnergy)
        }
        template = sum.map { $0 / Float(widths.count) }
        windowTemplate = windowSum.map { $0 / Float(widths.count) }
        widths.sort()
        amplitudes.sort()
        templateWidth = widths[widths.count / 2]
        templateAmplitude = max(amplitudes[amplitudes.count / 2], 1e-6)
        afterMeans.sort()
        outsideEnergies.sort()
        normalAfterMean = afterMeans[afterMeans.count / 2]
        normalOutsideEnergy = outsideEnergies[outsideEnergies.count / 2]
        let held = learning
        learning.removeAll()
        for (position, beat) in held.enumerated() {
            segment = beat.segment
            beatWindow = beat.window
            var measured = beat.measured
            measured.correlation = bestCorrelation()
            measured.previousInterval = position > 0 ? beat.beat - held[position - 1].beat : nil
            if measuresFeatures { compareWithTemplate(&measured) }
            pending.append(measured)
        }
        while pending.count >= 2 {
            let next = pending[1].beat
            decide(pending.removeFirst(), nextBeat: next, decided: &decided, ruled: &ruled)
        }
    }

    // MARK: deciding

    private func decide(_ beat: Measured, nextBeat: Int?, decided: inout [ClassifiedBeat],
                        ruled: inout [ClassifiedBeat]) {
        // the rules' class drives the template, the reference intervals and so every later beat's
        // measures (as in the rows the trees learnt from); the learnt decision only relabels
        let (beatClass, hasRow) = classOf(beat, nextInterval: nextBeat.map { $0 - beat.beat })
        if beatClass == .normal, lastDecided?.beatClass == .normal, let interval = beat.previousInterval {
            normalIntervals.append(interval)
            if normalIntervals.count > 8 { normalIntervals.removeFirst() }
        }
        if let interval = beat.previousInterval {
            recentIntervals.append(interval)
            if recentIntervals.count > 8 { recentIntervals.removeFirst() }
        }
        lastDecided = (beat.beat, beatClass)
        let ruledBeat = ClassifiedBeat(sample: beat.beat, beatClass: beatClass)
        ruled.append(ruledBeat)
        if let learnt {
            learnt.add(ruledBeat, row: hasRow ? featureRow : nil, decided: &decided)
        } else {
            decided.append(ruledBeat)
        }
    }

    /// Counts beats in a row whose shape differs from the template; after
    /// `relearnAfter` of them at a steady rate (median |ΔRR| under 15 % of their
    /// median RR: a rhythm of that shape, not extrasystoles) the template is
    /// made anew from those of them alike (at least four). Returns whether it was.
    private func noteShapeChange(_ beat: Measured) -> Bool {
        let wide = beat.width > Self.wideRatio * templateWidth && beat.width >= Self.wideMinimum
        let differs = beat.correlation < Self.otherShape || (beat.correlation < Self.sameShape && wide)
        guard differs, !beat.noisy, let interval = beat.previousInterval else {
            if beat.correlation >= Self.sameShape { unlikeCount = 0 }
            return false
        }
        let slot = unlikeCount % Self.relearnAfter
        unlikeSegments[slot].replaceSubrange(0..<segment.count, with: segment)
        unlikeWidths[slot] = beat.width
        unlikeAmplitudes[slot] = beat.amplitude
        unlikeIntervals[slot] = interval
        unlikeCount += 1
        guard unlikeCount >= Self.relearnAfter else { return false }
        // a steady rate among them: a rhythm of this shape, not extrasystoles
        let sortedIntervals = unlikeIntervals.sorted()
        // and not faster than 100 beats/min: a fast run of another shape is ventricular tachycardia
        let medianInterval = Double(sortedIntervals[sortedIntervals.count / 2])
        guard medianDifference(unlikeIntervals) / medianInterval < 0.15, medianInterval >= 0.6 * sampleRate else { return false }
        let alike = unlikeSegments.indices.filter { correlation(unlikeSegments[$0], segment, shift: 0) >= 0.8 }
        guard alike.count >= 4 else { return false }
        for index in template.indices {
            template[index] = alike.reduce(Float(0)) { $0 + unlikeSegments[$1][index] } / Float(alike.count)
        }
        let widths = alike.map { unlikeWidths[$0] }.sorted(), amplitudes = alike.map { unlikeAmplitudes[$0] }.sorted()
        templateWidth = widths[widths.count / 2]
        templateAmplitude = max(amplitudes[amplitudes.count / 2], 1e-6)
        // the new shape's after-QRS level and outer energy: this beat's, then followed
        normalAfterMean = beat.afterMean
        normalOutsideEnergy = beat.outsideEnergy
        windowTemplate.replaceSubrange(0..<windowTemplate.count, with: beatWindow)
        unlikeCount = 0
        // the old rhythm's intervals say nothing of prematurity in the new one
        normalIntervals.removeAll(keepingCapacity: true)
        return true
    }

    /// The template follows slow changes of the normal beat's shape: 5 % of
    /// each beat of its shape (`segment`, at its best shift) goes into it.
    /// Moves the template towards `segment`, aligned at its best shift: `bestCorrelation()` must have
    /// measured the two just before (its `shiftCorrelations` are read here, not measured again).
    private func followTemplate(_ beat: Measured) {
        var bestShift = 0, best = -1.0
        for (position, value) in shiftCorrelations.enumerated() where value > best {
            best = value
            bestShift = position - shiftRange
        }
        for index in template.indices where index + bestShift >= 0 && index + bestShift < segment.count {
            template[index] = 0.95 * template[index] + 0.05 * segment[index + bestShift]
        }
        templateWidth = 0.95 * templateWidth + 0.05 * beat.width
        templateAmplitude = 0.95 * templateAmplitude + 0.05 * beat.amplitude
        if measuresFeatures {
            for index in windowTemplate.indices { windowTemplate[index] = 0.95 * windowTemplate[index] + 0.05 * beatWindow[index] }
        }
        normalAfterMean = 0.95 * normalAfterMean + 0.05 * beat.afterMean
        normalOutsideEnergy = 0.95 * normalOutsideEnergy + 0.05 * beat.outsideEnergy
    }

    /// The rules' class, and whether `featureRow` now holds the beat's measures (not for a Q beat).
    private func classOf(_ beat: Measured, nextInterval: Int?) -> (BeatClass, Bool) {
        if beat.noisy { return (.unclassifiable, false) }
        let reference = referenceInterval()
        var prematurity: Double?, pauseAfter: Double?
        if let reference, let previous = beat.previousInterval { prematurity = Double(previous) / reference }
        if let reference, let nextInterval { pauseAfter = Double(nextInterval) / reference }
        let beatClass = ruledClass(beat, prematurity: prematurity, pauseAfter: pauseAfter)
        guard measuresFeatures else { return (beatClass, false) }
        fillFeatures(beat, prematurity: prematurity, pauseAfter: pauseAfter, nextInterval: nextInterval,
                     reference: reference)
        onFeatures?(beat.beat, beatClass, featureRow)
        return (beatClass, true)
    }

    private func ruledClass(_ beat: Measured, prematurity: Double?, pauseAfter: Double?) -> BeatClass {
        let isPremature = prematurity.map { $0 < Self.premature } ?? false
        let wide = beat.width > Self.wideRatio * templateWidth && beat.width >= Self.wideMinimum
        let sizeRatio = beat.amplitude / templateAmplitude
        let otherSize = sizeRatio > 1.6 || sizeRatio < 0.5
        if beat.correlation < Self.otherShape && (wide || isPremature) { return .ventricular }
        if beat.correlation < Self.sameShape && (wide || otherSize) { return .ventricular }
        // an early beat whose shape is off is ventricular; a supraventricular one keeps the QRS
        if isPremature && beat.correlation < Self.earlyShape { return .ventricular }
        if isPremature, regularReference(), beat.correlation >= Self.earlyShape,
           (pauseAfter ?? 1) > (prematurity ?? 1) + 0.1 {
            return .supraventricular
        }
        return .normal
    }

    /// What each value of a beat's feature row means (`onFeatures`), in order.
    public static let featureNames = [
        "correlation", "width_ratio", "width_s", "size_ratio", "prematurity", "pause_after", "regular",
        "projection", "residual_ratio", "area_ratio", "after_level", "outside_energy_ratio",
        "interval_ratio", "recent_prematurity", "reference_interval_s", "window_correlation",
    ]

    /// Called with each classifiable beat's sample, the rules' class and its feature row
    /// (`featureNames`) as it is decided, when set (Tools/train-beat-model: the rows the learnt
    /// decision is trained on). The row is reused: copy it to keep it.
    public var onFeatures: ((Int, BeatClass, [Double]) -> Void)?
    /// the shape measures only the feature rows read (the rules do not) are made only for the
    /// learnt decision or `onFeatures`
    private var measuresFeatures: Bool { learnt != nil || onFeatures != nil }
    private var featureRow = [Double](repeating: .nan, count: BeatClassifier.featureNames.count)

    private func fillFeatures(_ beat: Measured, prematurity: Double?, pauseAfter: Double?, nextInterval: Int?,
                              reference: Double?) {
        var recent: Double?
        if recentIntervals.count >= 3 {
            intervalScratch.removeAll(keepingCapacity: true)
            intervalScratch.append(contentsOf: recentIntervals)
            intervalScratch.sort()
            recent = Double(intervalScratch[intervalScratch.count / 2])
        }
        let values: [Double?] = [
            beat.correlation, beat.width / max(templateWidth, 1e-6), beat.width, beat.amplitude / templateAmplitude,
            prematurity, pauseAfter, regularReference() ? 1 : 0,
            beat.projection, beat.residualRatio, beat.areaRatio, beat.afterLevel, beat.outsideEnergyRatio,
            beat.previousInterval.flatMap { previous in nextInterval.map { Double(previous) / Double(max($0, 1)) } },
            beat.previousInterval.flatMap { previous in recent.map { Double(previous) / $0 } },
            reference.map { $0 / sampleRate }, beat.windowCorrelation,
        ]
        for (index, value) in values.enumerated() { featureRow[index] = value ?? .nan }
    }

    /// the median of the last eight normal-to-normal intervals [samples], nil before there are three
    private func referenceInterval() -> Double? {
        guard normalIntervals.count >= 3 else { return nil }
        intervalScratch.removeAll(keepingCapacity: true)
        intervalScratch.append(contentsOf: normalIntervals)
        intervalScratch.sort()
        return Double(intervalScratch[intervalScratch.count / 2])
    }

    /// true when the rhythm is steady enough that "premature" means something: the median
    /// successive difference of the last eight intervals (of any beats: an isolated extrasystole
    /// moves two of them, AF nearly all) and of the normal-to-normal ones is small against the reference
    private func regularReference() -> Bool {
        guard normalIntervals.count >= 4, recentIntervals.count >= 4, let reference = referenceInterval() else { return false }
        return medianDifference(normalIntervals) / reference < Self.regularBelow
            && medianDifference(recentIntervals) / reference < 2 * Self.regularBelow
    }

    /// the median |successive difference| of `intervals` [samples]
    private func medianDifference(_ intervals: [Int]) -> Double {
        intervalScratch.removeAll(keepingCapacity: true)
        for index in 1..<intervals.count { intervalScratch.append(abs(intervals[index] - intervals[index - 1])) }
        intervalScratch.sort()
        return Double(intervalScratch[intervalScratch.count / 2])
    }
}
