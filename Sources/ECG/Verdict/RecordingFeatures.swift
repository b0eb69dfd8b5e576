import DSP
import Foundation

/// What a recording's rhythm and shape measure, one number per feature:
/// the inputs of the per-recording verdict (`RecordingClassifier`) and of
/// the model it was trained with (Tools/train-ecg-verdict). NaN where a
/// feature has no value (too few beats).
public struct RecordingFeatures: Sendable {
    /// feature names in model order (the columns of `ecg classify --features`)
    public static let names = [
        "duration_s", "beat_count", "heart_rate_bpm", "rr_cv", "rr_p10_ratio", "rr_p90_ratio", "rr_max_s",
        "rmssd_ratio", "alternation_ratio", "irregularity_median", "irregularity_max", "af_fraction",
        "cosen", "sampen", "ventricular_fraction", "supraventricular_fraction", "unclassifiable_fraction",
        "noisy_fraction", "pause_count", "beat_correlation_median", "beat_correlation_p10", "qrs_width_s",
        "qrs_amplitude_mv", "p_wave_ratio", "p_wave_consistency", "hf_noise_ratio", "beats_per_expected",
        "pnn50", "raw_irregularity", "p_wave_present_fraction", "qrs_amplitude_cv",
        "f_wave_ratio", "tq_activity_ratio",
        "poincare_sd1_ratio", "poincare_sd_ratio", "rr_near_median_fraction", "lorenz_origin_fraction",
        "lorenz_cell_fraction", "rr_entropy", "raw_irregularity_p25",
    ] + QRSTCancellation.names + shapeNames

    public var values: [Double]

    public subscript(_ name: String) -> Double {
        guard let index = Self.names.firstIndex(of: name) else { return .nan }
        return values[index]
    }

    /// The features of an analysed recording.
    public init(_ analysis: RhythmAnalysis) {
        var value: [String: Double] = [:]
        let rate = analysis.sampleRate
        let beats = analysis.ruledBeats
        value["duration_s"] = analysis.duration
        value["beat_count"] = Double(beats.count)
        var intervals: [Double] = []
        for index in 1..<max(1, beats.count) { intervals.append(Double(beats[index].sample - beats[index - 1].sample) / rate) }
        if intervals.count >= 2 {
            let sorted = intervals.sorted()
            let median = sorted[sorted.count / 2]
            let mean = intervals.reduce(0, +) / Double(intervals.count)
            let deviation = (intervals.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(intervals.count)).squareRoot()
            value["heart_rate_bpm"] = 60 / median
            value["rr_cv"] = deviation / mean
            value["rr_p10_ratio"] = sorted[sorted.count / 10] / median
            value["rr_p90_ratio"] = sorted[min(sorted.count - 1, sorted.count * 9 / 10)] / median
            value["rr_max_s"] = sorted.last
            var successive = 0.0, alternate = 0.0
            for index in 1..<intervals.count { successive += pow(intervals[index] - intervals[index - 1], 2) }
            value["rmssd_ratio"] = (successive / Double(intervals.count - 1)).squareRoot() / mean
            if intervals.count >= 3 {
                var first = 0.0
                for index in 2..<intervals.count {
                    alternate += abs(intervals[index] - intervals[index - 2])
                    first += abs(intervals[index] - intervals[index - 1])
                }
                value["alternation_ratio"] = alternate / max(first, 1e-9)
            }
            // the share of successive differences over 50 ms (pNN50, over every interval)
            var large = 0
            for index in 1..<intervals.count where abs(intervals[index] - intervals[index - 1]) > 0.05 { large += 1 }
            value["pnn50"] = Double(large) / Double(intervals.count - 1)
            // the AF detector's measure without its ectopic filtering: the median over 8-interval
            // windows of median |ΔRR| / mean RR, every beat taken as it came
            if intervals.count >= 9 {
                var windows: [Double] = []
                for end in 9...intervals.count {
                    let window = Array(intervals[(end - 9)..<end])
                    var differences = (1..<window.count).map { abs(window[$0] - window[$0 - 1]) }
                    differences.sort()
                    windows.append(differences[differences.count / 2] / (window.reduce(0, +) / Double(window.count)))
                }
                windows.sort()
                value["raw_irregularity"] = windows[windows.count / 2]
                value["raw_irregularity_p25"] = windows[windows.count / 4]
            }
            Self.rrShape(intervals, median: median, into: &value)
            let entropy = Self.sampleEntropy(intervals, tolerance: 0.03)
            value["sampen"] = entropy
            value["cosen"] = entropy.isFinite ? entropy - log(mean) : .nan
        }
        let irregular = analysis.secondIrregularity.filter(\.isFinite).sorted()
        if !irregular.isEmpty {
            value["irregularity_median"] = irregular[irregular.count / 2]
            value["irregularity_max"] = irregular.last
        }
        let seconds = Double(max(1, analysis.secondCodes.count))
        value["af_fraction"] = Double(analysis.secondIrregularAF.filter { $0 }.count) / seconds
        value["noisy_fraction"] = Double(analysis.secondCodes.filter { $0 == .noisy || $0 == .signalLost }.count) / seconds
        value["pause_count"] = Double(intervals.filter { $0 > 2 }.count)
        let classCount = Double(max(1, beats.count))
        value["ventricular_fraction"] = Double(beats.filter { $0.beatClass == .ventricular }.count) / classCount
        value["supraventricular_fraction"] = Double(beats.filter { $0.beatClass == .supraventricular }.count) / classCount
        value["unclassifiable_fraction"] = Double(beats.filter { $0.beatClass == .unclassifiable }.count) / classCount
        let expected = analysis.duration * 1.2
        value["beats_per_expected"] = Double(beats.count) / max(expected, 1)
        Self.morphology(analysis, into: &value)
        Self.beatShape(analysis, into: &value)
        values = Self.names.map { value[$0] ?? .nan }
    }

    /// How the RR intervals spread (every beat as it came), each size
    /// against the median interval:
    /// - the Poincaré plot's SD1 (spread across the identity line: beat to
    ///   beat change) and SD1/SD2 (SD2 along it: slow change), Brennan et al.,
    ///   IEEE TBME 48 (2001);
    /// - the share of intervals within 10 % of the median (a dominant rhythm
    ///   with ectopic beats keeps most there; AF does not);
    /// - Sarkar, Ritscher & Mehra's Lorenz plot of successive differences
    ///   (ΔRR(i), ΔRR(i−1)) in 40 ms cells, IEEE TBME 55 (2008): the share of
    ///   points in the cell at the origin (regular rhythm) and the number of
    ///   other cells visited per point (AF scatters over many);
    /// - the Shannon entropy of a 16-bin histogram of the intervals with the
    ///   sixteenth at each end left out, over ln 16 (Dash et al., Ann Biomed
    ///   Eng 37, 2009).
    static func rrShape(_ intervals: [Double], median: Double, into value: inout [String: Double]) {
        let count = intervals.count
        guard count >= 4, median > 0 else { return }
        func deviation(_ values: [Double]) -> Double {
            let mean = values.reduce(0, +) / Double(values.count)
            return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
        }
        let differences = (1..<count).map { intervals[$0] - intervals[$0 - 1] }
        let sd1 = deviation(differences) / 2.0.squareRoot() / median
        let sd2 = deviation((1..<count).map { (intervals[$0] + intervals[$0 - 1]) / 2.0.squareRoot() }) / median
        value["poincare_sd1_ratio"] = sd1
        value["poincare_sd_ratio"] = sd1 / max(sd2, 1e-6)
        value["rr_near_median_fraction"] = Double(intervals.filter { abs($0 - median) < 0.1 * median }.count) / Double(count)
        let cellSize = 0.04, cellLimit = 15
        func cell(_ difference: Double) -> Int { max(-cellLimit, min(cellLimit, Int((difference / cellSize + 0.5).rounded(.down)))) }
        var visited = Set<Int>(), origin = 0
        for index in 1..<differences.count {
            let x = cell(differences[index]), y = cell(differences[index - 1])
            if x == 0 && y == 0 { origin += 1 } else { visited.insert((x + cellLimit) * (2 * cellLimit + 1) + y + cellLimit) }
        }
        let points = Double(differences.count - 1)
        value["lorenz_origin_fraction"] = Double(origin) / points
        value["lorenz_cell_fraction"] = Double(visited.count) / points
        if count > 16 {
            let sorted = intervals.sorted()
            let core = sorted[(count / 16)..<(count - count / 16)]
            let low = core.first!, high = core.last!
            var histogram = [Int](repeating: 0, count: 16)
            for interval in core {
                let bin = high > low ? min(15, Int((interval - low) / (high - low) * 16)) : 0
                histogram[bin] += 1
            }
            var entropy = 0.0
            for frequency in histogram where frequency > 0 {
                let share = Double(frequency) / Double(core.count)
                entropy -= share * log(share)
            }
            value["rr_entropy"] = entropy / log(16.0)
        }
    }

    /// Sample entropy of `series` with m = 1 and tolerance r [same unit]
    /// (Richman & Moorman 2000; COSEn = SampEn − ln(mean RR [s]) after Lake &
    /// Moorman, Am J Physiol Heart 300, 2011, with r = 30 ms). NaN when no
    /// template pair matches.
    static func sampleEntropy(_ series: [Double], tolerance: Double) -> Double {
        let count = series.count
        guard count >= 4 else { return .nan }
        var matchesOne = 0, matchesTwo = 0
        for i in 0..<(count - 1) {
            for j in (i + 1)..<(count - 1) where abs(series[i] - series[j]) <= tolerance {
                matchesOne += 1
                if abs(series[i + 1] - series[j + 1]) <= tolerance { matchesTwo += 1 }
            }
        }
        guard matchesOne > 0 else { return .nan }
        // no pair of length two matches: the largest entropy the series can show
        guard matchesTwo > 0 else { return log(Double(matchesOne)) + log(2.0) }
        return -log(Double(matchesTwo) / Double(matchesOne))
    }

    /// the median beat's shape in 20 ms bins from 300 ms before the R peak to 500 ms after it
    static let shapeBins = 40
    /// at most this many beats make the median beat
    static let shapeBeats = 16
    static let shapeNames = (0..<shapeBins).map { "shape_\($0 < 10 ? "0" : "")\($0)" }
        + ["shape_inverted", "shape_pr_spread", "shape_t_size"]

    /// The median normal beat as the trees see it (the "centre wave" of the
    /// challenge's ENCASE entry, Hong et al., CinC 2017, here the median, not
    /// learnt). From the lead as given, on a grid of about 150 Hz: each normal
    /// beat's samples from 800 ms before its R peak to 1 s after it, less their
    /// level 300–250 ms before the peak; point by point the median over the
    /// beats from 300 ms before the peak to 500 ms after (the mean outside it); that through the
    /// pipeline's filters, without the mains notch, forwards and backwards (zero phase: the causal filters
    /// smear the P and T waves, and with them the gain was lost), and kept from
    /// 300 ms before the peak to 500 ms after it, less its level in the first
    /// 50 ms; turned so that the QRS's (±33 ms) larger deflection is upward
    /// (about 18 % of KardiaMobile recordings are upside down); divided by the
    /// QRS's peak-to-peak size and averaged in 20 ms bins (`shape_00`…`shape_39`).
    /// Then whether it was turned (1) or not (0), the spread of the P-wave
    /// region (267–50 ms before the peak, its standard deviation; flat in AF)
    /// and the size of the ST–T region (100–500 ms after) against the QRS's.
    /// Too few normal beats (under three): every beat; more than 16: 16 spread
    /// evenly over the recording.
    static func beatShape(_ analysis: RhythmAnalysis, into value: inout [String: Double]) {
        let lead = analysis.samples
        // On a grid of about 150 Hz (every `step`th sample): the bins are 20 ms, and the medians
        // below, one per grid point, took a seventh of `ecg classify`'s time at the lead's rate.
        let step = max(1, Int(analysis.sampleRate / 150))
        let rate = analysis.sampleRate / Double(step)
        let before = Int((0.3 * rate).rounded()), after = Int((0.5 * rate).rounded())
        let pad = Int((0.5 * rate).rounded())
        let length = before + after, padded = length + 2 * pad
        let levelLength = max(1, Int((0.05 * analysis.sampleRate).rounded()))
        guard length >= shapeBins else { return }
        let reach = (before + pad) * step, beyond = (after + pad) * step
        func usable(_ beat: ClassifiedBeat) -> Bool { beat.sample - reach >= 0 && beat.sample + beyond <= lead.count }
        var starts = analysis.ruledBeats.filter { $0.beatClass == .normal && usable($0) }.map { $0.sample - reach }
        if starts.count < 3 { starts = analysis.ruledBeats.filter(usable).map { $0.sample - reach } }
        guard starts.count >= 2 else { return }
        if starts.count > shapeBeats {
            // evenly spread over the recording: a median of more says little more, and costs
            starts = (0..<shapeBeats).map { starts[$0 * starts.count / shapeBeats] }
        }
        var levels = [Float](repeating: 0, count: starts.count)
        var window = [Float](repeating: 0, count: levelLength)
        for (index, start) in starts.enumerated() {
            for offset in 0..<levelLength { window[offset] = lead[start + pad * step + offset] }
            levels[index] = OrderStatistic.select(&window, rank: levelLength / 2)
        }
        // the median over the beats where the shape is read; their mean in the pads, which only
        // let the filters settle
        var column = [Float](repeating: 0, count: starts.count)
        var median = [Float](repeating: 0, count: padded)
        for point in 0..<padded {
            let offset = point * step
            if point >= pad && point < pad + length {
                for (index, start) in starts.enumerated() { column[index] = lead[start + offset] - levels[index] }
                median[point] = OrderStatistic.select(&column, rank: column.count / 2)
            } else {
                var sum: Float = 0
                for (index, start) in starts.enumerated() { sum += lead[start + offset] - levels[index] }
                median[point] = sum / Float(starts.count)
            }
        }
        guard median.allSatisfy(\.isFinite) else { return }
        ECGFilterChain.standard(sampleRate: rate, mains: nil).zeroPhase(&median)
        var beat = median[pad..<(pad + length)].map { Double($0) }
        var head = Array(median[pad..<(pad + max(1, Int((0.05 * rate).rounded())))])
        let level = Double(OrderStatistic.select(&head, rank: head.count / 2))
        let qrsHalf = max(1, Int((0.033 * rate).rounded()))
        var lowest = Double.infinity, highest = -Double.infinity
        for index in (before - qrsHalf)...min(length - 1, before + qrsHalf) {
            lowest = min(lowest, beat[index] - level)
            highest = max(highest, beat[index] - level)
        }
        let inverted = abs(lowest) > abs(highest)
        let amplitude = highest - lowest
        guard amplitude > 0, amplitude.isFinite else { return }
        let scale = (inverted ? -1 : 1) / amplitude
        for index in beat.indices { beat[index] = (beat[index] - level) * scale }
        for bin in 0..<shapeBins {
            let from = bin * length / shapeBins, to = max(from + 1, (bin + 1) * length / shapeBins)
            value[shapeNames[bin]] = beat[from..<to].reduce(0, +) / Double(to - from)
        }
        value["shape_inverted"] = inverted ? 1 : 0
        let pRegion = beat[max(0, before - Int((0.267 * rate).rounded()))..<(before - Int((0.05 * rate).rounded()))]
        let pMean = pRegion.reduce(0, +) / Double(max(1, pRegion.count))
        value["shape_pr_spread"] = (pRegion.map { ($0 - pMean) * ($0 - pMean) }.reduce(0, +) / Double(max(1, pRegion.count))).squareRoot()
        let tRegion = beat[min(length - 1, before + Int((0.1 * rate).rounded()))..<length]
        value["shape_t_size"] = (tRegion.max() ?? 0) - (tRegion.min() ?? 0)
    }

    /// Shape features from the filtered lead around the normal beats: how
    /// alike the beats are, the QRS's width and size, the P wave's size and
    /// how alike it is from beat to beat (AF has no organised P wave), noise.
    static func morphology(_ analysis: RhythmAnalysis, into value: inout [String: Double]) {
        let rate = analysis.sampleRate
        let signal = analysis.filtered
        let half = Int(0.1 * rate), pStart = Int(0.30 * rate), pEnd = Int(0.08 * rate)
        let normal = analysis.ruledBeats.filter { $0.beatClass == .normal && $0.sample - pStart >= 0 && $0.sample + half < signal.count }
        guard normal.count >= 3 else { return }
        // align each beat on its largest deflection within ±60 ms
        let search = Int(0.06 * rate)
        let peaks: [Int] = signal.withUnsafeBufferPointer { signal in
            normal.map { beat in
                var best = beat.sample, largest: Float = -1
                for index in max(0, beat.sample - search)...min(signal.count - 1, beat.sample + search) where abs(signal[index]) > largest {
                    largest = abs(signal[index]); best = index
                }
                return best
            }
        }.filter { $0 - pStart >= 0 && $0 + half < signal.count }
        guard peaks.count >= 3 else { return }
        // Each beat's stretches are read from the lead where they lie (copying each into an array
        // of its own, several times over, was a fiftieth of `ecg classify`'s time); the sums are the
        // same, term for term.
        var average = [Double](repeating: 0, count: 2 * half + 1)
        var averageP = [Double](repeating: 0, count: pStart - pEnd + 1)
        var correlations: [Double] = [], amplitudes: [Double] = []
        signal.withUnsafeBufferPointer { lead in
            // summed through buffer pointers: a captured array's every element store checked its
            // uniqueness (the same additions, peak after peak, for each element)
            average.withUnsafeMutableBufferPointer { average in
                averageP.withUnsafeMutableBufferPointer { averageP in
                    for peak in peaks {
                        for index in average.indices { average[index] += Double(lead[peak - half + index]) }
                        for index in averageP.indices { averageP[index] += Double(lead[peak - pStart + index]) }
                    }
                }
            }
            average = average.map { $0 / Double(peaks.count) }
            averageP = averageP.map { $0 / Double(peaks.count) }
            correlations = peaks.map { BeatShape.correlation(lead, from: $0 - half, average) }.sorted()
            value["beat_correlation_median"] = correlations[correlations.count / 2]
            value["beat_correlation_p10"] = correlations[correlations.count / 10]
            amplitudes = peaks.map { peak in
                // as Array.max() and min() take them: the first of equals stays
                var highest = Double(lead[peak - half]), lowest = highest
                for offset in (-half + 1)...half {
                    let sample = Double(lead[peak + offset])
                    if highest < sample { highest = sample }
                    if sample < lowest { lowest = sample }
                }
                return highest - lowest
            }
        }
        let amplitude = (average.max() ?? 0) - (average.min() ?? 0)
        value["qrs_amplitude_mv"] = amplitude
        let (first, last) = BeatShape.slopeEnergySpan(average, from: 1, to: average.count - 1)
        value["qrs_width_s"] = Double(last - first) / rate
        let pMean = averageP.reduce(0, +) / Double(averageP.count)
        let pSize = (averageP.map { abs($0 - pMean) }.max() ?? 0)
        value["p_wave_ratio"] = amplitude > 0 ? pSize / amplitude : .nan
        correlations = signal.withUnsafeBufferPointer { lead in
            peaks.map { BeatShape.correlation(lead, from: $0 - pStart, averageP) }.sorted()
        }
        value["p_wave_consistency"] = correlations[correlations.count / 2]
        value["p_wave_present_fraction"] = Double(correlations.filter { $0 > 0.5 }.count) / Double(correlations.count)
        let meanAmplitude = amplitudes.reduce(0, +) / Double(amplitudes.count)
        let spread = (amplitudes.map { ($0 - meanAmplitude) * ($0 - meanAmplitude) }.reduce(0, +) / Double(amplitudes.count)).squareRoot()
        value["qrs_amplitude_cv"] = meanAmplitude > 0 ? spread / meanAmplitude : .nan
        // high-frequency noise: median |second difference| against the QRS size, at every other
        // sample (the median of all of them was 3 % of `ecg classify`'s time; half say the same)
        // written into an array of its final size through pointers (appending element by element
        // was about a hundredth of `ecg classify`'s time): indices 2, 4, … below signal.count
        let secondCount = signal.count > 2 ? (signal.count - 1) / 2 : 0
        var second = [Float](unsafeUninitializedCapacity: secondCount) { buffer, initialized in
            signal.withUnsafeBufferPointer { signal in
                var index = 2, slot = 0
                while index < signal.count {
                    buffer[slot] = abs(signal[index] - 2 * signal[index - 1] + signal[index - 2])
                    slot += 1
                    index += 2
                }
            }
            initialized = secondCount
        }
        value["hf_noise_ratio"] = amplitude > 0 ? Double(OrderStatistic.select(&second, rank: second.count / 2)) / amplitude : .nan
        atrialActivity(analysis, qrsAmplitude: amplitude, into: &value)
        QRSTCancellation.measure(analysis, into: &value)
    }

    /// Atrial activity between beats: in each interval between two normal
    /// beats, from the later of 0.3 s and 0.45 RR after the first (past the T
    /// wave) to 0.25 s before the second (before its P wave), the RMS of the
    /// lead band-passed to 4–9 Hz (fibrillatory waves: 4–9 Hz, Bollmann et al.
    /// 1998; Stridh & Sörnmo's f-wave analyses use the same band) and of the lead
    /// itself about its mean, each the median over intervals against the QRS
    /// size. Sinus rhythm leaves this stretch nearly isoelectric.
    static func atrialActivity(_ analysis: RhythmAnalysis, qrsAmplitude: Double, into value: inout [String: Double]) {
        let rate = analysis.sampleRate
        let signal = analysis.filtered
        guard qrsAmplitude > 0, signal.count > 2, 9 < rate / 2 else { return }
        var highPass = Biquad.highPass(cutoff: 4, sampleRate: rate), lowPass = Biquad.lowPass(cutoff: 9, sampleRate: rate)
        var band = [Float](repeating: 0, count: signal.count)
        for index in signal.indices { band[index] = Float(lowPass.process(highPass.process(Double(signal[index])))) }
        var bandRatios: [Double] = [], activityRatios: [Double] = []
        let beats = analysis.ruledBeats
        for index in 1..<max(1, beats.count) where beats[index - 1].beatClass == .normal && beats[index].beatClass == .normal {
            let first = beats[index - 1].sample, second = beats[index].sample
            let interval = Double(second - first)
            let start = first + Int(max(0.3 * rate, 0.45 * interval)), end = second - Int(0.25 * rate)
            guard end - start >= Int(0.08 * rate), start >= 0, end <= signal.count else { continue }
            var bandSum = 0.0, sum = 0.0, squares = 0.0
            for sample in start..<end {
                bandSum += Double(band[sample]) * Double(band[sample])
                sum += Double(signal[sample])
                squares += Double(signal[sample]) * Double(signal[sample])
            }
            let count = Double(end - start)
            bandRatios.append((bandSum / count).squareRoot() / qrsAmplitude)
            activityRatios.append(max(0, squares / count - (sum / count) * (sum / count)).squareRoot() / qrsAmplitude)
        }
        guard !bandRatios.isEmpty else { return }
        bandRatios.sort()
        activityRatios.sort()
        value["f_wave_ratio"] = bandRatios[bandRatios.count / 2]
        value["tq_activity_ratio"] = activityRatios[activityRatios.count / 2]
    }
}
