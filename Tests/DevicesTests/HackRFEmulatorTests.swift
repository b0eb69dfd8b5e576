import Foundation
import Testing
import ThreadKitTesting
import USBDriver
@testable import Devices

@Suite struct HackRFEmulatorTests {
    private func sweepHeaders(_ emulator: HackRFEmulator, blocks: Int) throws -> [UInt64] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blocks * HackRFProtocol.blockSize, alignment: 16)
        defer { buffer.deallocate() }
        let n = try emulator.bulkIn(endpoint: 0x81, into: buffer)
        #expect(n == blocks * HackRFProtocol.blockSize)
        return (0..<blocks).compactMap { b in
            HackRFBlockHeader.frequency(of: UnsafeRawBufferPointer(rebasing:
                buffer[(b * HackRFProtocol.blockSize)..<((b + 1) * HackRFProtocol.blockSize)]))
        }
    }

    private func startSweep(_ emulator: HackRFEmulator, plan: HackRFSweepPlan) throws {
        let r = plan.initSweepRequest
        try emulator.controlOut(.hackRF(.initSweep, value: r.value, index: r.index), data: r.payload)
        try emulator.controlOut(.hackRF(.setTransceiverMode, value: 5), data: [])
    }

    /// usb_api_sweep.c: +step/4 on odd steps, +3·step/4 on even ones, wrap to
    /// the next range when frequency + step reaches the stop after an even step.
    @Test func steppingFollowsTheFirmwareRuleForTwoRanges() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 2400, stopMHz: 2440),
                                                SweepRangeMHz(startMHz: 100, stopMHz: 120)], binWidthHz: 1e6)
        let mhz: [UInt64] = [2400, 2405, 2420, 2425, 100, 105]
        #expect(plan.stepFrequenciesHz == mhz.map { $0 * 1_000_000 })
        let emulator = HackRFEmulator(scene: DemoScene(seed: 3), options: .init(pacing: .unlimited))
        try startSweep(emulator, plan: plan)
        let headers = try sweepHeaders(emulator, blocks: 14)
        #expect(headers == (mhz + mhz + [2400, 2405]).map { $0 * 1_000_000 })
    }

    @Test func sameSeedSameBytesDifferentSeedDifferentBytes() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 80, stopMHz: 160)], binWidthHz: 1e5)
        func bytes(seed: UInt64) throws -> [UInt8] {
            let emulator = HackRFEmulator(seed: seed, options: .init(pacing: .unlimited))
            try startSweep(emulator, plan: plan)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * HackRFProtocol.transferSize, alignment: 16)
            defer { buffer.deallocate() }
            let n = try emulator.bulkIn(endpoint: 0x81, into: buffer)
            return Array(buffer.prefix(n))
        }
        let a = try bytes(seed: 7)
        #expect(a.count == 2 * HackRFProtocol.transferSize)
        #expect(a == (try bytes(seed: 7)))
        #expect(a != (try bytes(seed: 8)))
    }

    @Test func answersHackRFInfoRequests() throws {
        let emulator = HackRFEmulator(seed: 1)
        #expect(emulator.deviceInfo.idString == "1d50:6089" && emulator.deviceInfo.bcdDevice == 0x0106)
        #expect(try emulator.controlIn(.hackRF(.boardIDRead, deviceToHost: true), length: 1) == [2])
        #expect(try emulator.controlIn(.hackRF(.versionStringRead, deviceToHost: true), length: 255)
                == Array("2022.09.1".utf8))
        #expect(try emulator.controlIn(.hackRF(.boardPartIDSerialNumberRead, deviceToHost: true), length: 24).count == 24)
        #expect(try emulator.controlIn(.hackRF(.supportedPlatformRead, deviceToHost: true), length: 4) == [0, 0, 0, 0x0a])
        #expect(try emulator.controlIn(.hackRF(.operacakeGetBoards, deviceToHost: true), length: 8)
                == [UInt8](repeating: 0xff, count: 8))
        #expect(try emulator.controlIn(.hackRF(.setLNAGain, deviceToHost: true, index: 41), length: 1) == [0])
        #expect(throws: USBError.self) { try emulator.controlOut(ControlSetup(requestType: .vendorOut, request: 99), data: []) }
        // RX_SWEEP before INIT_SWEEP, INIT_SWEEP with 11 ranges: refused
        #expect(throws: USBError.self) { try emulator.controlOut(.hackRF(.setTransceiverMode, value: 5), data: []) }
        #expect(throws: USBError.self) {
            try emulator.controlOut(.hackRF(.initSweep, value: 16384), data: [UInt8](repeating: 1, count: 9 + 44))
        }
    }

    @Test func faultInjectionCorruptsHeadersAndDisconnects() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 400, stopMHz: 480)], binWidthHz: 1e6)
        let emulator = HackRFEmulator(scene: DemoScene(seed: 1),
                                      options: .init(pacing: .unlimited, corruptHeaderEvery: 4, disconnectAfterBlocks: 20))
        try startSweep(emulator, plan: plan)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.transferSize, alignment: 16)
        defer { buffer.deallocate() }
        let n = try emulator.bulkIn(endpoint: 0x81, into: buffer)
        #expect(n == 16 * HackRFProtocol.blockSize)
        let n2 = try emulator.bulkIn(endpoint: 0x81, into: buffer)
        #expect(n2 == 4 * HackRFProtocol.blockSize)
        #expect(throws: USBError.disconnected(device: "HackRF One (emulated)")) {
            _ = try emulator.bulkIn(endpoint: 0x81, into: buffer)
        }
    }

    @Test func realTimePacingLimitsTheBlockRate() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 400, stopMHz: 480)], binWidthHz: 1e6)
        // the emulator's time is moved by hand: 0.2 s in 1 ms steps, reading what is due at each
        let clock = ManualClock()
        let emulator = HackRFEmulator(scene: DemoScene(seed: 1), options: .init(pacing: .realTime), clock: clock)
        try startSweep(emulator, plan: plan)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.transferSize, alignment: 16)
        defer { buffer.deallocate() }
        var blocks = 0
        for _ in 0..<200 {
            blocks += try emulator.bulkIn(endpoint: 0x81, into: buffer) / HackRFProtocol.blockSize
            clock.advance(by: 0.001)
        }
        // 0.2 s / 1.2288 ms per kept block ≈ 163
        #expect(blocks > 100 && blocks < 200)
    }

    @Test func fastQuantiserMatchesReference() {
        var sums = [Int16]()
        for v in stride(from: Int(Int16.min), through: Int(Int16.max), by: 1) { sums.append(Int16(v)) }
        var out = [Int8](repeating: 0, count: sums.count)
        sums.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { DemoSynthesizer.quantise(s, into: $0) } }
        #expect(zip(sums, out).allSatisfy { DemoSynthesizer.quantiseReference($0) == $1 })
    }
}
