import Foundation
import Signals
import Testing
import USBDriver
@testable import Devices

/// The RTL-SDR driver against its emulator at the control-transfer level.
@Suite struct RTLSDRDriverTests {
    func openDevice(_ options: RTLSDREmulator.Options = .init(realTime: false))
        throws -> (RTLSDRDevice, RTLSDREmulator, EmulatorTestTransport) {
        let emulator = RTLSDREmulator(seed: 3, options: options)
        let transport = EmulatorTestTransport(emulator: emulator)
        let device = try RTLSDRDevice.open(transport: transport)
        return (device, emulator, transport)
    }

    @Test func openInitialisesBasebandAndTunerLikeLibrtlsdr() throws {
        let (device, emulator, transport) = try openDevice()
        let records = transport.controlRecords
        #expect(device.tunerChip == .r820t)
        // librtlsdr's dummy write comes first: USB_SYSCTL = 0x09
        #expect(records.first?.setup == ControlSetup(requestType: .vendorOut, request: 0, value: 0x2000, index: 0x0110))
        #expect(records.first?.data == [0x09])
        // every demod write is followed by the dummy read of page 0x0a reg 0x01
        for (i, record) in records.enumerated() where record.setup.index & 0xff10 == 0x0010 {
            let next = records[i + 1].setup
            #expect(next.requestType == .vendorIn && next.value == 0x0120 && next.index == 0x000a)
        }
        // the init table goes out in 7-byte messages, starting at register 5
        let tunerWrites = records.filter { $0.setup.index == 0x0610 && $0.setup.value == 0x34 && $0.data.count > 1 }
            .map(\.data)
        #expect(tunerWrites.first == [0x05] + Array(R82XXTables.initialRegisters[0..<7]))
        #expect(tunerWrites.contains([0x1a] + Array(R82XXTables.initialRegisters[21..<27])))
        // librtlsdr 0.6.0 needs about 161 transfers to open a dongle
        #expect((120...260).contains(emulator.controlTransfers), "\(emulator.controlTransfers) control transfers")
        #expect(emulator.protocolViolations.isEmpty, "\(emulator.protocolViolations)")
        #expect(!emulator.repeaterOpen)
    }

    @Test func sampleRateRegistersHoldTheResamplerRatio() throws {
        let (device, emulator, transport) = try openDevice()
        let real = try device.setSampleRate(2_400_000)
        #expect(real == 2_400_000)
        // 28.8 MHz · 2²² / 2.4 MHz = 0x0300_0000: 0x9f ← 0x0300, 0xa1 ← 0x0000 (big-endian)
        let writes = transport.controlRecords.filter { $0.setup.index == 0x0011 }
        #expect(writes.contains { $0.setup.value == 0x9f20 && $0.data == [0x03, 0x00] })
        #expect(writes.contains { $0.setup.value == 0xa120 && $0.data == [0x00, 0x00] })
        #expect(emulator.sampleRateHz == 2_400_000)
        // the IF filter follows the rate: 1.815 MHz IF at 2.4 MS/s (r82xx_set_bandwidth)
        #expect(abs(emulator.demodIntermediateHz - 1_815_000) < 10)
        #expect(throws: USBError.self) { try device.setSampleRate(500_000) }
    }

    @Test(arguments: [30_000_000, 88_100_000, 100_000_000, 433_920_000, 1_090_000_000, 1_700_000_000])
    func tuningPutsTheSamplesWhereAsked(frequencyHz: Int) throws {
        let (device, emulator, _) = try openDevice()
        try device.setSampleRate(2_048_000)
        try device.setCenterFrequency(UInt32(frequencyHz))
        try device.resetBuffer()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 16)
        defer { buffer.deallocate() }
        #expect(try emulator.bulkIn(endpoint: 0x81, into: buffer) == 16_384)
        // PLL resolution is 2·xtal/65536/divider: well under 1 kHz
        #expect(abs(emulator.centerFrequencyHz - Double(frequencyHz)) < 1_000,
                "tuned \(emulator.centerFrequencyHz) Hz")
        #expect(emulator.protocolViolations.isEmpty, "\(emulator.protocolViolations)")
    }

    @Test func tuningBelowThePLLRangeIsRefused() throws {
        let (device, _, _) = try openDevice()
        try device.setSampleRate(2_400_000)
        #expect(throws: USBError.self) { try device.setCenterFrequency(24_000_000) }
    }

    @Test func samplesFlowOnlyAfterTheBufferReset() throws {
        let (device, emulator, _) = try openDevice()
        try device.setSampleRate(2_400_000)
        try device.setCenterFrequency(100_000_000)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4_096, alignment: 16)
        defer { buffer.deallocate() }
        #expect(try emulator.bulkIn(endpoint: 0x81, into: buffer) == 0)
        try device.resetBuffer()
        #expect(try emulator.bulkIn(endpoint: 0x81, into: buffer) == 4_096)
        // u8 around the 127.5 midpoint
        let mean = buffer.reduce(0.0) { $0 + Double($1) } / 4_096
        #expect(abs(mean - 128) < 4)
    }

    @Test func manualGainSnapsToTheTableAndAutomaticGainReleasesIt() throws {
        let (device, emulator, _) = try openDevice()
        let gain = RTLSDRGain.nearest(dB: 20)
        #expect(gain == .manual(tenthsDB: 197))
        try device.setGain(gain)
        let indices = R82XXTables.gainIndices(tenthsDB: 197)
        #expect(emulator.manualGainTenthsDB == indices.totalTenthsDB)
        #expect(indices.totalTenthsDB >= 197)
        try device.setGain(.automatic)
        #expect(emulator.manualGainTenthsDB == nil)
        try device.setDigitalAGC(true)
        #expect(emulator.digitalAGC)
        try device.setDigitalAGC(false)
        #expect(!emulator.digitalAGC)
    }

    @Test func r828dUsesItsOwnAddressAndCrystal() throws {
        let (device, emulator, _) = try openDevice(.init(realTime: false, chip: .r828d))
        #expect(device.tunerChip == .r828d)
        #expect(device.crystalHz == 16_000_000)
        try device.setSampleRate(2_400_000)
        try device.setCenterFrequency(433_920_000)
        #expect(abs(emulator.centerFrequencyHz - 433_920_000) < 1_000)
    }

    @Test func aDongleWithoutAnR82xxIsRefusedWithAClearMessage() {
        let emulator = RTLSDREmulator(options: .init(realTime: false, chip: nil))
        #expect {
            _ = try RTLSDRDevice.open(transport: EmulatorTestTransport(emulator: emulator))
        } throws: { error in
            "\(error)".contains("no R820T/R828D answered")
        }
    }

    @Test func theEmulatorRefusesTunerAccessWithTheRepeaterClosed() throws {
        let emulator = RTLSDREmulator(options: .init(realTime: false))
        #expect(throws: USBError.self) {
            try emulator.controlOut(ControlSetup(requestType: .vendorOut, request: 0, value: 0x34, index: 0x0610),
                                    data: [0x05, 0x83])
        }
        #expect(emulator.protocolViolations == ["tuner written with the I2C repeater closed"])
    }

    @Test func firBytesPackTwelveBitPairs() {
        let bytes = RTLSDRDevice.firBytes()
        #expect(bytes.count == 20)
        // −54 as int8, then 101 and 156 as 12-bit: 0x065, 0x09c → 06 50 9c
        #expect(bytes[0] == 0xca)
        #expect(Array(bytes[8..<11]) == [0x06, 0x50, 0x9c])
    }
}
