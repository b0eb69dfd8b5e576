import Foundation
import Testing
@testable import Devices

@Suite struct EmulatorThroughputTests {
    /// Unlimited pacing (what the benchmarks run the emulator at) hands out whole transfers of
    /// valid sweep blocks, one after another, over a full 0–6 GHz sweep of the standard scene.
    /// How fast is a benchmark's to say: Tools/bench-sweep runs hackrf_sweep and tscope against
    /// this emulator and reports its floor (Benchmarks/README.md, "Sweep against hackrf_sweep").
    @Test func unlimitedPacingDeliversWholeTransfersOfSweepBlocks() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 0, stopMHz: 6000)], binWidthHz: 1e6)
        let emulator = HackRFEmulator(seed: 1, options: .init(pacing: .unlimited))
        let r = plan.initSweepRequest
        try emulator.controlOut(.hackRF(.initSweep, value: r.value, index: r.index), data: r.payload)
        try emulator.controlOut(.hackRF(.setTransceiverMode, value: 5), data: [])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.transferSize, alignment: 16)
        defer { buffer.deallocate() }
        let steps = Set(plan.stepFrequenciesHz.map { UInt64($0) })
        var seen: Set<UInt64> = []
        // two sweeps' worth of transfers
        let transfers = 2 * (plan.stepFrequenciesHz.count * HackRFProtocol.blockSize / HackRFProtocol.transferSize + 1)
        for _ in 0..<transfers {
            let bytes = try emulator.bulkIn(endpoint: 0x81, into: buffer)
            #expect(bytes == HackRFProtocol.transferSize)
            for block in stride(from: 0, to: bytes, by: HackRFProtocol.blockSize) {
                // each block opens with hackrf_sweep's magic 0x7F 0x7F and its frequency (little-endian Hz)
                #expect(buffer[block] == 0x7F && buffer[block + 1] == 0x7F)
                var hz: UInt64 = 0
                for byte in 0..<8 { hz |= UInt64(buffer[block + 2 + byte]) << (8 * byte) }
                seen.insert(hz)
            }
        }
        #expect(seen == steps, "steps seen \(seen.count) of \(steps.count)")
    }
}
