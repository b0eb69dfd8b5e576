import Analyzers
import Foundation
import Testing
import Signals
import USBDriver
@testable import Devices

@Suite struct SweepPipelineTests {
    @Test func steadyCarrierAppearsAtItsFrequency() throws {
        let scene = DemoScene(seed: 11, carriers: [DemoScene.Carrier(frequencyHz: 433.92e6, amplitude: 12)])
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 420, stopMHz: 440)], binWidthHz: 100_000)
        let sweep = try SynchronousSweep(scene: scene, plan: plan)
        let frame = try sweep.frames(1)[0]
        #expect(frame.startHz == 420e6)
        #expect(frame.powerDB.count == 4 * plan.binsPerQuarter)
        #expect(!frame.powerDB.contains { $0.isNaN })
        let floor = median(frame.powerDB)
        #expect(peak(in: frame, near: 433.92e6) > floor + 20)
        // nothing comparable elsewhere
        let far = peak(in: frame, near: 425e6)
        #expect(far < floor + 10)
    }

    @Test func singleBlockBurstShowsInExactlyOneFrame() throws {
        // block 9 of a 2400–2480 sweep (8 steps) is at 2405 MHz; the burst sits 2.5 MHz above it
        let scene = DemoScene(seed: 5, scheduledBursts: [DemoScene.Burst(blockIndex: 9, offsetHz: 2.5e6, amplitude: 24)])
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 2400, stopMHz: 2480)], binWidthHz: 250_000)
        #expect(plan.stepFrequenciesHz[9 % plan.stepFrequenciesHz.count] == 2_405_000_000)
        let frames = try SynchronousSweep(scene: scene, plan: plan).frames(4)
        let withBurst = frames.enumerated().filter { _, frame in
            peak(in: frame, near: 2407.5e6) > median(frame.powerDB) + 20
        }.map(\.offset)
        #expect(withBurst == [1])
    }

    @Test func assemblerPlacesQuartersAndLeavesMissingBinsNaN() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 100, stopMHz: 140)], binWidthHz: 1e6)
        let q = plan.binsPerQuarter
        let assembler = SweepFrameAssembler(plan: plan)
        func add(_ mhz: UInt64, _ value: Float) -> SpectrumFrame? {
            let lower = [Float](repeating: value, count: q)
            let upper = [Float](repeating: value + 0.5, count: q)
            return lower.withUnsafeBufferPointer { l in upper.withUnsafeBufferPointer { u in
                assembler.add(frequencyHz: mhz * 1_000_000, lowerQuarter: l, upperQuarter: u, timestamp: 1)
            } }
        }
        #expect(add(125, 9) == nil)           // before the first start: skipped
        #expect(add(100, 1) == nil)
        #expect(add(105, 2) == nil)
        #expect(add(120, 3) == nil)           // 125 missing this sweep
        let frame = try #require(add(100, 4))
        #expect(frame.powerDB.count == 8 * q)
        let chunks = (0..<8).map { frame.powerDB[$0 * q] }
        // chunks: 100 L1, 105 L2, 110 U1, 115 U2, 120 L3, 125 –, 130 U3, 135 –
        #expect(Array(chunks[0..<5]) == [1, 2, 1.5, 2.5, 3])
        #expect(chunks[5].isNaN && chunks[7].isNaN && chunks[6] == 3.5)
        #expect(abs(frame.binWidthHz - 20e6 / Double(plan.fftSize)) < 1e-9)
    }

    @Test func liveSourceDeliversFramesAndRetunes() throws {
        // amplitude 16: the emulated front end takes 1.9 dB off at 2.44 GHz (DemoSynthesizer.frontEndResponseDB)
        let scene = DemoScene(seed: 2, carriers: [DemoScene.Carrier(frequencyHz: 433.92e6, amplitude: 16),
                                                 DemoScene.Carrier(frequencyHz: 2442e6, amplitude: 16)])
        let transport = EmulatorTestTransport(emulator: HackRFEmulator(scene: scene, options: .init(pacing: .realTime)))
        let received = Received()
        let source = try HackRFSpectrumSource(transport: transport, settings: .init(mode: .sweep)) { received.append($0) }
        try source.start(band: FrequencyRange(lowerHz: 420e6, upperHz: 440e6)!, binWidthHz: 100_000)
        let first = try #require(received.wait(for: 3, startHz: 420e6))
        #expect(peak(in: first, near: 433.92e6) > median(first.powerDB) + 20)
        try source.retune(to: FrequencyRange(lowerHz: 2430e6, upperHz: 2450e6)!, binWidthHz: 200_000)
        let second = try #require(received.wait(for: 2, startHz: 2430e6))
        #expect(peak(in: second, near: 2442e6) > median(second.powerDB) + 20)
        source.stop()
        let counters = source.counters
        #expect(counters.frames >= 5 && counters.badBlocks == 0)
    }

    /// The settings every command gives reach the firmware: gains, amplifier, antenna power.
    @Test func liveSourceSetsTheSettingsGiven() throws {
        let emulator = HackRFEmulator(scene: DemoScene(seed: 2), options: .init(pacing: .realTime))
        let transport = EmulatorTestTransport(emulator: emulator)
        let received = Received()
        let settings = AnalyzerSettings(lnaGainDB: 32, vgaGainDB: 14, amplifier: true, antennaPower: true)
        let source = try HackRFSpectrumSource(transport: transport, settings: settings.hackRF(detector: .average)) {
            received.append($0)
        }
        try source.start(band: FrequencyRange(lowerHz: 420e6, upperHz: 440e6)!, binWidthHz: 100_000)
        _ = received.wait(for: 1, startHz: 420e6)
        source.stop()
        #expect(emulator.state.lnaGainDB == 32 && emulator.state.vgaGainDB == 14)
        #expect(emulator.state.ampEnabled && emulator.state.antennaPowerEnabled)
        #expect(settings.totalGainDB(for: .hackrf) == Double(32 + 14 + AnalyzerSettings.hackRFAmplifierDB))
    }

    @Test func liveSourceCountsBadBlocks() throws {
        let transport = EmulatorTestTransport(emulator: HackRFEmulator(scene: DemoScene(seed: 2),
                                                                       options: .init(pacing: .realTime, corruptHeaderEvery: 5)))
        let received = Received()
        let source = try HackRFSpectrumSource(transport: transport) { received.append($0) }
        try source.start(band: FrequencyRange(lowerHz: 420e6, upperHz: 480e6)!, binWidthHz: 1e6)
        _ = received.wait(for: 2, startHz: 420e6)
        source.stop()
        #expect(source.counters.badBlocks > 0)
    }
}

/// Frames collected from the DSP thread.
final class Received: @unchecked Sendable {
    private let condition = NSCondition()
    private var frames: [SpectrumFrame] = []

    func append(_ frame: SpectrumFrame) {
        condition.withLock {
            frames.append(frame)
            condition.broadcast()
        }
    }

    /// Waits (≤ 5 s) until `count` frames starting at `startHz` arrived; returns the last.
    func wait(for count: Int, startHz: Double) -> SpectrumFrame? {
        let deadline = Date().addingTimeInterval(5)
        condition.lock()
        defer { condition.unlock() }
        while frames.filter({ $0.startHz == startHz }).count < count {
            if !condition.wait(until: deadline) { return nil }
        }
        return frames.last { $0.startHz == startHz }
    }
}
