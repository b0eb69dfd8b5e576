import DSP
import Signals
import USBDriver
@testable import Devices

/// Synchronous emulator → driver → SweepFFT → assembler chain (no threads),
/// so tests see every block in order.
final class SynchronousSweep {
    let emulator: HackRFEmulator
    let transport: EmulatorTestTransport
    let driver: HackRFSweepDriver
    let plan: HackRFSweepPlan
    let fft: SweepFFT
    let assembler: SweepFrameAssembler
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.transferSize, alignment: 16)

    init(scene: DemoScene, plan: HackRFSweepPlan, options: HackRFEmulator.Options = .init(pacing: .unlimited),
         detector: SpectrumDetector = .sample) throws {
        emulator = HackRFEmulator(scene: scene, options: options)
        transport = EmulatorTestTransport(emulator: emulator)
        driver = try HackRFSweepDriver(transport: transport)
        self.plan = plan
        try driver.configure(plan: plan)
        try transport.controlOut(.hackRF(.setTransceiverMode, value: HackRFTransceiverMode.receiveSweep.rawValue),
                                 data: [], timeoutMS: 100)
        fft = SweepFFT(fftSize: plan.fftSize, detector: detector, maxSamples: HackRFProtocol.samplesAfterHeader)
        assembler = SweepFrameAssembler(plan: plan)
    }

    deinit { buffer.deallocate() }

    /// Pulls transfers until `count` frames were assembled.
    func frames(_ count: Int) throws -> [SpectrumFrame] {
        var frames: [SpectrumFrame] = []
        while frames.count < count {
            let n = try emulator.bulkIn(endpoint: HackRFProtocol.bulkInEndpoint, into: buffer)
            driver.ingest(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) { frequency, block in
                fft.process(block)
                if let frame = assembler.add(frequencyHz: frequency, lowerQuarter: fft.lowerQuarter,
                                             upperQuarter: fft.upperQuarter, timestamp: 0) {
                    frames.append(frame)
                }
            }
        }
        return Array(frames.prefix(count))
    }
}

func median(_ values: [Float]) -> Float {
    let sorted = values.filter { !$0.isNaN }.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// Largest value within ±1 bin of the bin containing `hz`.
func peak(in frame: SpectrumFrame, near hz: Double) -> Float {
    let index = Int(((hz - frame.startHz) / frame.binWidthHz).rounded(.down))
    return (max(0, index - 1)...min(frame.powerDB.count - 1, index + 1)).map { frame.powerDB[$0] }.max() ?? -.infinity
}
