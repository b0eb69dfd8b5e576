import Foundation

/// Both QRS detectors at once, each beat taken from the one that does
/// better in the noise present when it happened (`--qrs-detector auto`).
///
/// Measured (BeatDetectorComparisonTests, Docs/ecg.md): the stationary-
/// wavelet detector keeps F1 ≥ 0.996 in muscle noise down to −6 dB where the
/// Pan–Tompkins one falls to 0.84, and the Pan–Tompkins one does better in
/// electrode-motion noise (0.99 against 0.88 at 6 dB). Muscle noise is
/// broadband above the QRS band, electrode motion below it, so the ratio of
/// the lead's power above 25 Hz to its power in the QRS band (5–15 Hz), each
/// averaged over 2 s, tells them apart: 0.21 on clean MIT-BIH 100, 1.5 (12 dB)
/// to 21 (−6 dB) with muscle noise, 0.06–0.21 with electrode motion. Above
/// `muscleRatio` a beat is the wavelet detector's, else the Pan–Tompkins
/// detector's; a beat within 200 ms after the last one reported (the other
/// detector's view of the same QRS across a switch) is dropped.
public final class AutoBeatDetector: BeatDetector {
    public let sampleRate: Double
    /// the high-band/QRS-band power ratio above which muscle noise is taken to be present
    public static let muscleRatio = 1.0

    private let panTompkins: QRSDetector
    private let wavelet: SWTQRSDetector
    // The per-sample buffers are `@exclusivity(unchecked)`: a detector has one owner on one thread and
    // none of its methods runs inside another while it holds one of them, so the run-time exclusivity
    // check Swift makes on every access to a class's stored property proves nothing here; it was a third
    // of `ecg classify`'s time (perf, Benchmarks/README.md "ECG classify").
    @exclusivity(unchecked) private var highBand: [Biquad]
    @exclusivity(unchecked) private var qrsBand: [Biquad]
    @exclusivity(unchecked) private var highPower = 0.0, qrsPower = 0.0
    /// weight of each new sample in the 2 s averages
    private let smoothing: Double
    /// the ratio every `ratioStep` samples over the last 4 s (ring), to judge a beat by the noise at its time
    @exclusivity(unchecked) private var ratios: [Double]
    private let ratioStep: Int
    @exclusivity(unchecked) private var sampleIndex = 0
    @exclusivity(unchecked) private var primed = false
    @exclusivity(unchecked) private var lastReported = Int.min / 2
    private let minimumGap: Int
    @exclusivity(unchecked) private var fromPanTompkins: [Int] = []
    @exclusivity(unchecked) private var fromWavelet: [Int] = []
    /// the preferred detector's new beats, reused per block (`process` allocates nothing once warm)
    @exclusivity(unchecked) private var candidates: [Int] = []

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        panTompkins = QRSDetector(sampleRate: sampleRate)
        wavelet = SWTQRSDetector(sampleRate: sampleRate)
        let top = 0.45 * sampleRate
        highBand = [.highPass(cutoff: min(25, top), sampleRate: sampleRate), .highPass(cutoff: min(25, top), sampleRate: sampleRate)]
        qrsBand = [.highPass(cutoff: 5, sampleRate: sampleRate), .lowPass(cutoff: min(15, top), sampleRate: sampleRate)]
        smoothing = 1 / (2 * sampleRate)
        ratioStep = max(1, Int(sampleRate / 10))
        ratios = Array(repeating: 0, count: 40)
        minimumGap = Int(0.2 * sampleRate)
        fromPanTompkins.reserveCapacity(8)
        fromWavelet.reserveCapacity(8)
        candidates.reserveCapacity(16)
    }

    public var maximumDelay: Double { max(panTompkins.maximumDelay, wavelet.maximumDelay) }

    /// Feeds the samples a tenth of a second at a time, so each beat is judged by the noise measured up to
    /// it (a whole record in one call too).
    public func process(_ samples: UnsafeBufferPointer<Float>, beats: inout [Int]) {
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + ratioStep - sampleIndex % ratioStep)
            let block = UnsafeBufferPointer(rebasing: samples[start..<end])
            measure(block)
            fromPanTompkins.removeAll(keepingCapacity: true)
            fromWavelet.removeAll(keepingCapacity: true)
            panTompkins.process(block, beats: &fromPanTompkins)
            wavelet.process(block, beats: &fromWavelet)
            merge(&beats)
            start = end
        }
    }

    /// The two bands' power, and the ratio at each `ratioStep` boundary.
    private func measure(_ samples: UnsafeBufferPointer<Float>) {
        // the state in locals for the loop and the filters through buffer pointers: each access to a
        // class's stored property is checked at run time, and this loop runs once per sample
        var highPower = self.highPower, qrsPower = self.qrsPower
        var index = sampleIndex, primed = self.primed
        var untilRatio = ratioStep - index % ratioStep
        let smoothing = self.smoothing
        highBand.withUnsafeMutableBufferPointer { highBand in
            qrsBand.withUnsafeMutableBufferPointer { qrsBand in
                for sample in samples {
                    if sample.isFinite {
                        var high = Double(sample), qrs = high
                        if !primed {
                            // settled on the first sample: each band's high-pass outputs 0 for it, so what
                            // follows it starts from rest (an offset must not ring through as high-band power)
                            highBand[0].prime(with: high)
                            qrsBand[0].prime(with: high)
                            primed = true
                        }
                        for stage in highBand.indices { high = highBand[stage].process(high) }
                        for stage in qrsBand.indices { qrs = qrsBand[stage].process(qrs) }
                        highPower += (high * high - highPower) * smoothing
                        qrsPower += (qrs * qrs - qrsPower) * smoothing
                    }
                    index += 1
                    untilRatio -= 1
                    if untilRatio == 0 {
                        untilRatio = ratioStep
                        // the 2 s averages are not yet settled in the first 2 s: Pan–Tompkins there (the
                        // wavelet detector is still learning its levels anyway)
                        let settled = Double(index) >= 2 * sampleRate && qrsPower > 0
                        ratios[(index / ratioStep - 1) % ratios.count] = settled ? highPower / qrsPower : 0
                    }
                }
            }
        }
        self.highPower = highPower
        self.qrsPower = qrsPower
        sampleIndex = index
        self.primed = primed
    }

    public func finish(beats: inout [Int]) {
        fromPanTompkins.removeAll(keepingCapacity: true)
        fromWavelet.removeAll(keepingCapacity: true)
        panTompkins.finish(beats: &fromPanTompkins)
        wavelet.finish(beats: &fromWavelet)
        merge(&beats)
    }

    /// whether muscle noise was present at sample `index` (the ratio when it was last sampled)
    func muscleNoise(at index: Int) -> Bool {
        // the ratio measured at the end of the tenth of a second holding the beat (or the newest, for a beat
        // in the tenth not yet ended); older than the ring holds (a search-back far behind): the oldest kept
        let completed = sampleIndex / ratioStep
        guard completed > 0 else { return false }
        let slot = min(max(0, index) / ratioStep, completed - 1)
        let oldest = max(0, completed - ratios.count)
        return ratios[max(slot, oldest) % ratios.count] > Self.muscleRatio
    }

    /// The new beats of the detector preferred at each one's time, in time order.
    private func merge(_ beats: inout [Int]) {
        candidates.removeAll(keepingCapacity: true)
        for beat in fromPanTompkins where !muscleNoise(at: beat) { candidates.append(beat) }
        for beat in fromWavelet where muscleNoise(at: beat) { candidates.append(beat) }
        if candidates.count > 1 { candidates.sort() }
        for candidate in candidates where candidate >= lastReported + minimumGap {
            beats.append(candidate)
            lastReported = candidate
        }
    }
}
