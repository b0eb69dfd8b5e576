import Foundation
import Testing
import USBDriver
@testable import Devices

@Suite struct HackRFDriverTests {
    let plan = try! HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 2400, stopMHz: 2480)], binWidthHz: 1e6)

    @Test func sweepStartSendsHackRFSweepsControlSequence() throws {
        let emulator = HackRFEmulator(scene: DemoScene(seed: 1), options: .init(pacing: .unlimited))
        let transport = EmulatorTestTransport(emulator: emulator)
        let driver = try HackRFSweepDriver(transport: transport)
        try driver.configure(plan: plan, gains: try HackRFGains(lnaDB: 24, vgaDB: 30), ampEnabled: true, antennaPower: false)
        try driver.start(onBlock: { _, _ in }, onEnd: { _ in })
        driver.stop()
        typealias R = EmulatorTestTransport.ControlRecord
        let expected: [R] = [
            R(setup: .hackRF(.sampleRateSet), data: [0x00, 0x2d, 0x31, 0x01, 1, 0, 0, 0], length: 8),
            R(setup: .hackRF(.basebandFilterBandwidthSet, value: 0xe1c0, index: 0x00e4), data: [], length: 0),
            R(setup: .hackRF(.setVGAGain, deviceToHost: true, index: 30), data: [], length: 1),
            R(setup: .hackRF(.setLNAGain, deviceToHost: true, index: 24), data: [], length: 1),
            R(setup: .hackRF(.ampEnable, value: 1), data: [], length: 0),
            R(setup: .hackRF(.antennaEnable, value: 0), data: [], length: 0),
            R(setup: .hackRF(.initSweep, value: 16384, index: 0),
              data: [0x00, 0x2d, 0x31, 0x01, 0xe0, 0x70, 0x72, 0x00, 0x01, 0x60, 0x09, 0xb0, 0x09], length: 13),
            R(setup: .hackRF(.setTransceiverMode, value: 5), data: [], length: 0),
            R(setup: .hackRF(.setTransceiverMode, value: 0), data: [], length: 0),
        ]
        #expect(transport.controlRecords == expected)
        #expect(emulator.state.sampleRateHz == 20_000_000 && emulator.state.basebandFilterHz == 15_000_000)
        #expect(emulator.state.lnaGainDB == 24 && emulator.state.vgaGainDB == 30 && emulator.state.ampEnabled)
        #expect(emulator.state.mode == .off)
    }

    @Test func refusedGainIsAnError() throws {
        let transport = EmulatorTestTransport(emulator: HackRFEmulator(scene: DemoScene(seed: 1)))
        transport.forcedReplies[HackRFRequest.setLNAGain.rawValue] = [0]
        let driver = try HackRFSweepDriver(transport: transport)
        #expect(throws: USBError.self) { try driver.configure(plan: plan) }
    }

    @Test func oldFirmwareIsRejectedAtOpen() {
        let old = HackRFEmulator(scene: DemoScene(seed: 1), options: .init(usbAPIVersion: 0x0103))
        do {
            _ = try HackRFSweepDriver(transport: EmulatorTestTransport(emulator: old))
            Issue.record("expected an error")
        } catch {
            guard case .unsupported(let message) = error else { Issue.record("wrong error \(error)"); return }
            #expect(message.contains("1.03") && message.contains("1.04"))
        }
    }

    /// Blocks of a transfer in order; bad header and unplanned frequency skipped and counted.
    @Test func blockParsingSkipsAndCountsBadBlocks() throws {
        let driver = try HackRFSweepDriver(transport: EmulatorTestTransport(emulator: HackRFEmulator(scene: DemoScene(seed: 1))))
        try driver.configure(plan: plan)
        let size = HackRFProtocol.blockSize
        var transfer = [UInt8](repeating: 0, count: 5 * size)
        let frequencies: [UInt64] = [2_400_000_000, 2_405_000_000, 2_420_000_000, 2_401_000_000, 2_425_000_000]
        transfer.withUnsafeMutableBytes { bytes in
            for (i, f) in frequencies.enumerated() {
                let block = UnsafeMutableRawBufferPointer(rebasing: bytes[(i * size)..<((i + 1) * size)])
                HackRFBlockHeader.write(frequencyHz: f, into: block)
                block[HackRFProtocol.headerSize] = UInt8(i)  // marks which block arrived
            }
            bytes[2 * size] = 0x7e  // corrupt the third block's header
        }
        var seen: [(UInt64, UInt8)] = []
        transfer.withUnsafeBytes { bytes in
            driver.ingest(bytes) { f, block in seen.append((f, block[HackRFProtocol.headerSize])) }
        }
        #expect(seen.map(\.0) == [2_400_000_000, 2_405_000_000, 2_425_000_000])
        #expect(seen.map(\.1) == [0, 1, 4])
        #expect(driver.badBlockCount == 2)
        #expect(driver.goodBlockCount == 3)
    }
}
