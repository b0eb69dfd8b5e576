import Foundation
import Testing
import ThreadKit
@testable import Devices

@Suite struct EmulatorThroughputTests {
    /// The benchmark compares hackrf_sweep with tscope against the emulator,
    /// so in an optimised build it must deliver ≥ 150 MB/s on one core over a
    /// full 0–6 GHz sweep (the standard scene). Debug builds only check a floor.
    @Test func unlimitedPacingIsFastEnough() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 0, stopMHz: 6000)], binWidthHz: 1e6)
        let emulator = HackRFEmulator(seed: 1, options: .init(pacing: .unlimited))
        let r = plan.initSweepRequest
        try emulator.controlOut(.hackRF(.initSweep, value: r.value, index: r.index), data: r.payload)
        try emulator.controlOut(.hackRF(.setTransceiverMode, value: 5), data: [])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.transferSize, alignment: 16)
        defer { buffer.deallocate() }
        // one full sweep fills the carrier cache, as a running benchmark would
        let blocksPerSweep = plan.stepFrequenciesHz.count
        var warm = 0
        while warm < blocksPerSweep { warm += try emulator.bulkIn(endpoint: 0x81, into: buffer) / HackRFProtocol.blockSize }
        // real time: this measures the machine's throughput
        let clock = SystemClock()
        let start = clock.now
        var bytes = 0
        while clock.now - start < 0.5 { bytes += try emulator.bulkIn(endpoint: 0x81, into: buffer) }
        let megabytesPerSecond = Double(bytes) / (clock.now - start) / 1e6
        print("HackRF emulator, unlimited pacing: \(Int(megabytesPerSecond)) MB/s")
        #if DEBUG
        #expect(megabytesPerSecond > 5)
        #else
        #expect(megabytesPerSecond >= 150)
        #endif
    }
}
