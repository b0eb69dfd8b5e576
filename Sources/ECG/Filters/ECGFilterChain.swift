/// The filter stages one lead runs through, in order.
///
/// Live use: `process` is causal and keeps state across chunks. Off-line use:
/// `zeroPhase` runs the linear stages forward then backward over a whole
/// signal, cancelling their phase delay (waves stay where they were recorded).
public final class ECGFilterChain {
    public let stages: [ECGFilterStage]
    private var primed = false
    /// reused by `process`: the current run of biquad stages and their sections' working copy
    private var biquadRun: [BiquadStage] = []
    private var fusedSections = BiquadStage.FusedSections()

    public init(stages: [ECGFilterStage]) {
        self.stages = stages
    }

    /// The chain the issue names: clip, 0.5 Hz high-pass, mains notch, 40 Hz low-pass.
    public static func standard(
        sampleRate: Double, mains: Double? = 50, clip: ClosedRange<Float>? = nil
    ) -> ECGFilterChain {
        var stages: [ECGFilterStage] = []
        if let clip { stages.append(ClipStage(lower: clip.lowerBound, upper: clip.upperBound)) }
        stages.append(BiquadStage.highPass(sampleRate: sampleRate))
        if let mains, mains < sampleRate / 2 { stages.append(BiquadStage.notch(mains: mains, sampleRate: sampleRate)) }
        if 40 < sampleRate / 2 { stages.append(BiquadStage.lowPass(sampleRate: sampleRate)) }
        return ECGFilterChain(stages: stages)
    }

    public var names: [String] { stages.map(\.name) }

    /// Filters `samples` in place, continuing from the previous call.
    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        guard !samples.isEmpty else { return }
        if !primed, var value = samples.first(where: { $0.isFinite }) {
            // each stage starts settled on what the stage before it settles to
            for stage in stages {
                stage.prime(with: value)
                value = stage.steadyOutput(for: value)
            }
            primed = true
        }
        // runs of biquad stages sample by sample together (same result, faster); others alone
        var start = 0
        while start < stages.count {
            var end = start
            while end < stages.count, stages[end] is BiquadStage { end += 1 }
            if end - start > 1 {
                biquadRun.removeAll(keepingCapacity: true)
                for stage in stages[start..<end] { biquadRun.append(stage as! BiquadStage) }
                BiquadStage.processTogether(biquadRun, samples, scratch: &fusedSections)
                start = end
            } else {
                stages[start].process(samples)
                start += 1
            }
        }
    }

    public func process(_ samples: inout [Float]) {
        samples.withUnsafeMutableBufferPointer { process($0) }
    }

    /// Filters a whole signal forward and backward (zero phase, squared magnitude response).
    /// Resets the chain's state before and after.
    public func zeroPhase(_ samples: inout [Float]) {
        reset()
        samples.withUnsafeMutableBufferPointer { buffer in
            guard buffer.contains(where: { $0.isFinite }) else { return }
            for stage in stages {
                primeAtStart(stage, buffer)
                stage.process(buffer)
                if stage.isLinear {
                    buffer.reverse()
                    primeAtStart(stage, buffer)
                    stage.process(buffer)
                    buffer.reverse()
                }
            }
        }
        reset()
    }

    private func primeAtStart(_ stage: ECGFilterStage, _ buffer: UnsafeMutableBufferPointer<Float>) {
        if let first = buffer.first(where: { $0.isFinite }) { stage.prime(with: first) }
    }

    public func reset() {
        stages.forEach { $0.reset() }
        primed = false
    }
}
