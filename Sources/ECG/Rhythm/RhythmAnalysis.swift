import Foundation

/// A whole recording through the live pipeline (`ECGPipeline`: filters, QRS
/// detector, beat classifier, AF detector, rhythm monitor and episode log),
/// one second at a time, as `ecg monitor` would run it: what `ecg classify`
/// and `ecg score --rhythm` read.
public struct RhythmAnalysis: Sendable {
    public var sampleRate: Double
    /// samples analysed
    public var sampleCount: Int
    /// every beat with its class as shown and counted (the learnt V decision after the rules)
    public var beats: [ClassifiedBeat]
    /// the same beats with the classifier's rules' classes: what the rhythm rules and the
    /// verdict's features read (`RecordingFeatures`; Docs/ecg.md says why)
    public var ruledBeats: [ClassifiedBeat]
    /// the rhythm status at the end of each whole second of signal
    public var secondCodes: [RhythmCode]
    /// the irregularity detector's smoothed irregularity at the end of each second (NaN before it has one)
    public var secondIrregularity: [Double]
    /// whether the irregularity detector (`AFDetector`, not the AF engine the status follows) read AF at
    /// the end of each second where the signal was readable and held beats: the verdict model's
    /// `af_fraction` was trained on it (`RecordingFeatures`)
    public var secondIrregularAF: [Bool]
    /// episodes, in start order
    public var episodes: [RhythmEvent]
    public var afBurden: Double?
    /// the lead after the pipeline's filters (0.5 Hz high-pass, mains notch, 40 Hz low-pass) [mV]
    public var filtered: [Float]
    /// the lead as it was given, before the filters [mV] (the median beat's shape is made from it)
    public var samples: [Float]

    public var duration: Double { Double(sampleCount) / sampleRate }

    /// Runs `samples` (one lead, mV, NaN for missing) through the pipeline.
    public static func analyze(_ samples: [Float], sampleRate: Double, detector: BeatDetectorKind = .standard,
                               mains: Double? = 50, beatModel: BeatModelChoice = .committed) -> RhythmAnalysis {
        let pipeline = ECGPipeline(leadNames: ["ECG"], sampleRate: sampleRate, historySeconds: 2, detector: detector,
                                   beatModel: beatModel) { _ in
            ECGFilterChain.standard(sampleRate: sampleRate, mains: mains)
        }
        pipeline.keepsEveryBeat = true
        let step = max(1, Int(sampleRate.rounded()))
        var chunk = ECGChunk(leadCount: 1, capacity: step)
        var filtered: [Float] = []
        filtered.reserveCapacity(samples.count)
        var codes: [RhythmCode] = [], irregularity: [Double] = [], irregularAF: [Bool] = []
        codes.reserveCapacity(samples.count / step + 1)
        var start = 0
        while start < samples.count {
            let count = min(step, samples.count - start)
            chunk.leads[0].replaceSubrange(0..<count, with: samples[start..<(start + count)])
            chunk.count = count
            pipeline.process(&chunk)
            filtered.append(contentsOf: chunk.leads[0][0..<count])
            start += count
            if count == step {
                let code = pipeline.status.code
                codes.append(code)
                irregularity.append(pipeline.rhythm.afDetector.irregularity ?? .nan)
                // the status the irregularity detector gave before the AF engine: AF unless the signal
                // was lost, noisy or paused, or no heart rate yet (RhythmMonitor's order)
                irregularAF.append(pipeline.rhythm.afDetector.isAF && pipeline.heartRate != nil
                                   && ![.signalLost, .noisy, .unreadable, .pause].contains(code))
            }
        }
        _ = pipeline.finish()
        var episodes = pipeline.events.events
        episodes.sort { $0.time < $1.time }
        return RhythmAnalysis(sampleRate: sampleRate, sampleCount: samples.count, beats: pipeline.everyClassifiedBeat,
                              ruledBeats: pipeline.everyRuledBeat,
                              secondCodes: codes, secondIrregularity: irregularity, secondIrregularAF: irregularAF,
                              episodes: episodes,
                              afBurden: pipeline.rhythm.afBurden, filtered: filtered, samples: samples)
    }
}
