import DSP
import Foundation

/// Atrial activity left when each beat's ventricular part is taken away:
/// average-beat QRST cancellation (Slocum et al., "Diagnosis of atrial
/// fibrillation from surface electrocardiograms based on computer-detected
/// atrial activity", J Electrocardiol 25, 1992; Stridh & Sörnmo, IEEE TBME
/// 48, 2001, for the spatiotemporal form). The mean beat of the normal beats,
/// scaled to each normal beat by least squares, is subtracted over its P-QRS-T
/// window; an ectopic beat's window loses only its mean. In sinus rhythm the
/// remainder is small and broadband; fibrillatory waves leave power at 4–10 Hz
/// with a dominant frequency (Bollmann et al. 1998: 4–9 Hz).
///
/// The features, each against the mean beat's peak-to-peak size where it is a size:
/// - `residual_rms_ratio`: RMS of the whole remainder;
/// - `residual_fwave_share`: the remainder's power at 4–10 Hz over 1–40 Hz (Welch);
/// - `residual_dominant_hz`: its largest spectral peak within 3–12 Hz;
/// - `residual_peak_concentration`: the power within ±2 bins (±0.6 Hz) of that peak over 3–12 Hz;
/// - `residual_spectral_entropy`: the Shannon entropy of the 1–40 Hz spectrum, over its largest value;
/// - `p_template_ratio`: the standard deviation of the mean beat from 250 to 80 ms before the
///   peak (where the P wave is) — an organised P wave survives the averaging, fibrillatory waves do not;
/// - `p_residual_ratio`: the beats' RMS difference from the mean beat there, over that deviation;
/// - `beat_residual_ratio`: the beats' RMS difference from the mean beat over the whole window.
enum QRSTCancellation {
    static let names = [
        "residual_rms_ratio", "residual_fwave_share", "residual_dominant_hz", "residual_peak_concentration",
        "residual_spectral_entropy", "p_template_ratio", "p_residual_ratio", "beat_residual_ratio",
    ]

    /// window before and after the beat's peak [s]: the P wave through the T wave
    static let beforePeak = 0.25, afterPeak = 0.45
    /// the P-wave part of the window: from its start to 80 ms before the peak [s]
    static let pWaveEnd = 0.08
    /// Welch segment [s]: 1024 points at the KardiaMobile's 300 Hz, 0.29 Hz bins
    static let segmentSeconds = 1024.0 / 300

    static func measure(_ analysis: RhythmAnalysis, into value: inout [String: Double]) {
        let rate = analysis.sampleRate
        let signal = analysis.filtered
        let before = Int(beforePeak * rate), after = Int(afterPeak * rate), width = before + after
        guard width > 0, signal.count > width, rate > 80 else { return }
        let search = Int(0.06 * rate)
        // each beat's peak: the largest deflection within ±60 ms (the sign of the QRS does not matter)
        var peaks: [(sample: Int, normal: Bool)] = []
        peaks.reserveCapacity(analysis.ruledBeats.count)
        for beat in analysis.ruledBeats {
            let low = max(0, beat.sample - search), high = min(signal.count - 1, beat.sample + search)
            guard low <= high else { continue }
            var best = low, largest: Float = -1
            for index in low...high where abs(signal[index]) > largest { largest = abs(signal[index]); best = index }
            if best - before >= 0 && best + after <= signal.count { peaks.append((best, beat.beatClass == .normal)) }
        }
        let normal = peaks.filter(\.normal).map(\.sample)
        guard normal.count >= 3 else { return }
        // the mean beat, sample by sample (a median per sample cost a twentieth of `ecg classify`'s time)
        var template = [Float](repeating: 0, count: width)
        template.withUnsafeMutableBufferPointer { mean in
            signal.withUnsafeBufferPointer { lead in
                for peak in normal {
                    let start = peak - before
                    for offset in 0..<width { mean[offset] += lead[start + offset] }
                }
                let scale = 1 / Float(normal.count)
                for offset in 0..<width { mean[offset] *= scale }
            }
        }
        let size = Double((template.max() ?? 0) - (template.min() ?? 0))
        guard size > 0 else { return }
        var templateEnergy = 0.0
        for sample in template { templateEnergy += Double(sample) * Double(sample) }

        // the beats against the mean beat: whole window and P-wave part
        let pCount = max(2, Int((beforePeak - pWaveEnd) * rate))
        var pMean = 0.0
        for offset in 0..<pCount { pMean += Double(template[offset]) }
        pMean /= Double(pCount)
        var pDeviation = 0.0
        for offset in 0..<pCount { pDeviation += (Double(template[offset]) - pMean) * (Double(template[offset]) - pMean) }
        pDeviation = (pDeviation / Double(pCount)).squareRoot()
        // The loops over the beats' windows below read the lead and the mean beat through buffer
        // pointers (every window lies inside the lead: `peaks` keeps only those), the same sums in the
        // same order: indexing the arrays checked bounds on every term.
        var beatDifference = 0.0, pDifference = 0.0
        signal.withUnsafeBufferPointer { lead in
            template.withUnsafeBufferPointer { template in
                for peak in normal {
                    let window = lead.baseAddress! + (peak - before)
                    for offset in 0..<width {
                        let difference = Double(window[offset] - template[offset])
                        beatDifference += difference * difference
                        if offset < pCount { pDifference += difference * difference }
                    }
                }
            }
        }
        value["p_template_ratio"] = pDeviation / size
        value["p_residual_ratio"] = (pDifference / Double(normal.count * pCount)).squareRoot() / max(pDeviation, 1e-9)
        value["beat_residual_ratio"] = (beatDifference / Double(normal.count * width)).squareRoot() / size

        // the remainder: each normal beat less the mean beat scaled to it, each other beat less its own mean
        var residual = signal
        var squares = 0.0
        signal.withUnsafeBufferPointer { lead in
            template.withUnsafeBufferPointer { template in
                residual.withUnsafeMutableBufferPointer { residual in
                    for peak in peaks {
                        let start = peak.sample - before
                        let window = lead.baseAddress! + start, output = residual.baseAddress! + start
                        if peak.normal && templateEnergy > 0 {
                            var dot = 0.0
                            for offset in 0..<width { dot += Double(window[offset]) * Double(template[offset]) }
                            let scale = Float(dot / templateEnergy)
                            for offset in 0..<width { output[offset] = window[offset] - scale * template[offset] }
                        } else {
                            var mean: Float = 0
                            for offset in 0..<width { mean += window[offset] }
                            mean /= Float(width)
                            for offset in 0..<width { output[offset] = window[offset] - mean }
                        }
                    }
                    for sample in residual { squares += Double(sample) * Double(sample) }
                }
            }
        }
        value["residual_rms_ratio"] = (squares / Double(residual.count)).squareRoot() / size
        spectrum(of: residual, rate: rate, into: &value)
    }

    /// The Hann window of `count` points (periodic form) as Float.
    static func hann(_ count: Int) -> [Float] {
        (0..<count).map { index in Float(0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(count))) }
    }

    /// the window at the KardiaMobile's 300 Hz, made once: made for every recording it was a
    /// hundredth of `ecg classify`'s time, in `cos`
    static let hann1024 = hann(1024)

    /// Welch's averaged periodogram of the remainder (Hann window, half
    /// overlap, each segment's mean removed), and the spectral features of it.
    static func spectrum(of residual: [Float], rate: Double, into value: inout [String: Double]) {
        let segment = min(residual.count, Int((segmentSeconds * rate).rounded()))
        guard segment >= 16 else { return }
        let step = max(1, segment / 2)
        let fft = PowerSpectrumFFT(size: segment)
        let window = segment == Self.hann1024.count ? Self.hann1024 : Self.hann(segment)
        var power = [Float](repeating: 0, count: segment)
        var first = true
        var start = 0
        while start + segment <= residual.count {
            var mean: Float = 0
            for index in 0..<segment { mean += residual[start + index] }
            mean /= Float(segment)
            for index in 0..<segment {
                fft.input[2 * index] = (residual[start + index] - mean) * window[index]
                fft.input[2 * index + 1] = 0
            }
            fft.transform()
            power.withUnsafeMutableBufferPointer { fft.combinePower(scale: 1, first ? .replace : .sum, into: $0.baseAddress!) }
            first = false
            start += step
        }
        let binHz = rate / Double(segment)
        func bins(_ low: Double, _ high: Double) -> ClosedRange<Int>? {
            let first = Int((low / binHz).rounded(.up)), last = min(segment / 2, Int((high / binHz).rounded(.down)))
            return first <= last ? first...last : nil
        }
        guard let whole = bins(1, 40), let band = bins(4, 10), let search = bins(3, 12) else { return }
        var total = 0.0
        for bin in whole { total += Double(power[bin]) }
        guard total > 0 else { return }
        var inBand = 0.0
        for bin in band { inBand += Double(power[bin]) }
        value["residual_fwave_share"] = inBand / total
        var peak = search.lowerBound, searchTotal = 0.0
        for bin in search {
            searchTotal += Double(power[bin])
            if power[bin] > power[peak] { peak = bin }
        }
        value["residual_dominant_hz"] = Double(peak) * binHz
        var nearPeak = 0.0
        for bin in max(search.lowerBound, peak - 2)...min(search.upperBound, peak + 2) { nearPeak += Double(power[bin]) }
        value["residual_peak_concentration"] = searchTotal > 0 ? nearPeak / searchTotal : .nan
        var entropy = 0.0
        for bin in whole where power[bin] > 0 {
            let share = Double(power[bin]) / total
            entropy -= share * log(share)
        }
        value["residual_spectral_entropy"] = whole.count > 1 ? entropy / log(Double(whole.count)) : .nan
    }
}
