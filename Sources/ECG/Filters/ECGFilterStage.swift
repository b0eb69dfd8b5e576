/// One named stage of an ECG filter chain; works in place on one lead.
/// Stages keep their own state, so each lead needs its own instances.
public protocol ECGFilterStage: AnyObject {
    /// short name as the command line spells it, e.g. "highpass"
    var name: String { get }
    /// true when the stage is linear and may be run forward and backward
    var isLinear: Bool { get }
    func process(_ samples: UnsafeMutableBufferPointer<Float>)
    /// sets the state as if `value` had been the input forever
    func prime(with value: Float)
    /// the output for an input held at `value` forever
    func steadyOutput(for value: Float) -> Float
    func reset()
}

/// Limits samples to [lower, upper] mV, as the original sensor kit did; NaN passes.
public final class ClipStage: ECGFilterStage {
    public let name = "clip"
    public let isLinear = false
    public let lower: Float
    public let upper: Float

    public init(lower: Float, upper: Float) {
        self.lower = min(lower, upper)
        self.upper = max(lower, upper)
    }

    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        for index in samples.indices {
            samples[index] = min(max(samples[index], lower), upper)
        }
    }

    public func prime(with value: Float) {}
    public func steadyOutput(for value: Float) -> Float { min(max(value, lower), upper) }
    public func reset() {}
}

/// A cascade of biquads: the high-pass, notch and low-pass stages.
public final class BiquadStage: ECGFilterStage {
    public let name: String
    public let isLinear = true
    private var sections: [Biquad]
    private let initialSections: [Biquad]

    public init(name: String, sections: [Biquad]) {
        self.name = name
        self.sections = sections
        initialSections = sections
    }

    /// baseline removal: 2nd-order Butterworth high-pass [Hz]
    public static func highPass(cutoff: Double = 0.5, sampleRate: Double) -> BiquadStage {
        BiquadStage(name: "highpass", sections: [.highPass(cutoff: cutoff, sampleRate: sampleRate)])
    }

    /// mains notch at `mains` [Hz] (50 or 60), 2 Hz wide
    public static func notch(mains: Double, sampleRate: Double) -> BiquadStage {
        BiquadStage(name: "notch\(Int(mains))", sections: [.notch(centre: mains, sampleRate: sampleRate, q: mains / 2)])
    }

    /// muscle-noise removal: 4th-order Butterworth low-pass [Hz] (two sections, Q 0.541 and 1.307)
    public static func lowPass(cutoff: Double = 40, sampleRate: Double) -> BiquadStage {
        BiquadStage(name: "lowpass", sections: [
            .lowPass(cutoff: cutoff, sampleRate: sampleRate, q: 0.541_196_1),
            .lowPass(cutoff: cutoff, sampleRate: sampleRate, q: 1.306_563),
        ])
    }

    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        sections.withUnsafeMutableBufferPointer { stages in
            for index in samples.indices {
                var value = Double(samples[index])
                // a missing sample must not poison the filter state forever
                guard value.isFinite else { continue }
                for stage in stages.indices {
                    value = stages[stage].process(value)
                }
                samples[index] = Float(value)
            }
        }
    }

    /// Runs consecutive biquad stages over `samples` sample by sample instead of stage by stage,
    /// with the same result to the bit: each stage still rounds its output to Float and skips a
    /// non-finite input. One stage's recursion is a chain of dependent multiply–adds; interleaving
    /// the stages gives the processor independent chains to overlap (the filters were 8 % of
    /// `ecg classify`'s time run one after the other). `scratch` is reused between calls.
    static func processTogether(_ stages: [BiquadStage], _ samples: UnsafeMutableBufferPointer<Float>,
                                scratch: inout FusedSections) {
        scratch.sections.removeAll(keepingCapacity: true)
        scratch.stageEnds.removeAll(keepingCapacity: true)
        for stage in stages {
            scratch.sections.append(contentsOf: stage.sections)
            scratch.stageEnds.append(scratch.sections.count)
        }
        scratch.sections.withUnsafeMutableBufferPointer { sections in
            if scratch.stageEnds == [1, 2, 4] {
                processHighPassNotchLowPass(sections, samples)
                return
            }
            scratch.stageEnds.withUnsafeBufferPointer { stageEnds in
                for index in samples.indices {
                    var sample = samples[index]
                    var section = 0
                    for end in stageEnds {
                        // a missing sample must not poison the filter state forever
                        guard sample.isFinite else { break }
                        var value = Double(sample)
                        while section < end {
                            value = sections[section].process(value)
                            section += 1
                        }
                        sample = Float(value)
                    }
                    samples[index] = sample
                }
            }
        }
        var first = 0
        for (stage, end) in zip(stages, scratch.stageEnds) {
            for offset in stage.sections.indices { stage.sections[offset] = scratch.sections[first + offset] }
            first = end
        }
    }

    /// `processTogether` for the standard chain's layout — one section (the high-pass), one (the
    /// notch), two (the low-pass) — written out, with the same operations in the same order: the
    /// general loop's bookkeeping over stages and sections was a good part of its time, and these
    /// filters see every lead's every sample. (Skewing the sections, the high-pass on sample i while
    /// the notch takes i − 1 and so on, measured slower: the processor already overlaps them.)
    private static func processHighPassNotchLowPass(_ sections: UnsafeMutableBufferPointer<Biquad>,
                                                    _ samples: UnsafeMutableBufferPointer<Float>) {
        var highPass = sections[0], notch = sections[1], lowPassFirst = sections[2], lowPassSecond = sections[3]
        for index in samples.indices {
            // a missing sample must not poison the filter state forever: each stage skips it
            var sample = samples[index]
            if sample.isFinite {
                sample = Float(highPass.process(Double(sample)))
                if sample.isFinite {
                    sample = Float(notch.process(Double(sample)))
                    if sample.isFinite {
                        sample = Float(lowPassSecond.process(lowPassFirst.process(Double(sample))))
                    }
                }
            }
            samples[index] = sample
        }
        sections[0] = highPass
        sections[1] = notch
        sections[2] = lowPassFirst
        sections[3] = lowPassSecond
    }

    /// The reused working copy of `processTogether`'s sections.
    struct FusedSections {
        var sections: [Biquad] = []
        /// one past each stage's last section in `sections`
        var stageEnds: [Int] = []
    }

    public func prime(with value: Float) {
        var input = Double(value)
        for stage in sections.indices {
            sections[stage].prime(with: input)
            input *= sections[stage].dcGain
        }
    }

    public func steadyOutput(for value: Float) -> Float {
        Float(sections.reduce(Double(value)) { $0 * $1.dcGain })
    }

    public func reset() { sections = initialSections }
}
