import Foundation
import Signals
import ThreadKit
import USBDriver

/// An RTL2832U dongle with an R820T (or R828D) at the USB-transfer level:
/// keeps the USB, SYS and demodulator registers the host writes, hosts the
/// tuner on the I2C bus behind the repeater, and once the endpoint has been
/// reset streams u8 I/Q of a `DemoScene` at the frequency and rate the
/// *registers* describe (LO from the PLL registers minus the demodulator's
/// IF; rate from the resampler ratio). A driver that computes a register
/// wrongly therefore sees the scene in the wrong place.
///
/// Requests a real dongle would fail (tuner access with the repeater closed,
/// an absent I2C address) throw `.stalled`; settings that are accepted but
/// inconsistent (IF filter not matching the rate, tracking filter not
/// matching the LO, an unlocked PLL at stream start) are recorded in
/// `protocolViolations` for tests.
///
/// Not thread-safe: the hosting transport serialises calls.
public final class RTLSDREmulator: FirmwareEmulator {
    public struct Options: Sendable {
        /// real time: bytes come at 2 × the sample rate; unlimited: as fast as asked
        public var realTime: Bool
        public var chip: R82XXTuner.Chip?
        /// throw `.disconnected` once this many sample bytes were sent
        public var disconnectAfterBytes: Int?
        /// stop sending (NAK forever) once this many sample bytes were sent
        public var stallAfterBytes: Int?
        /// the vendor:product id it enumerates as (a rebadged dongle carries another of RTLSDRProtocol.knownIDs)
        public var usbID: (vendorID: UInt16, productID: UInt16) = (RTLSDRProtocol.vendorID, RTLSDRProtocol.productID)
        /// how far the dongle's crystal is from nominal [ppm]: the tuner's LO and the demodulator's IF are
        /// off by as much (cheap dongles: tens of ppm; a TCXO: about 1), until the host corrects for it
        public var crystalErrorPPM: Double = 0

        /// - Parameter chip: the tuner fitted; nil = none answers (unsupported dongle)
        public init(realTime: Bool = true, chip: R82XXTuner.Chip? = .r820t,
                    disconnectAfterBytes: Int? = nil, stallAfterBytes: Int? = nil) {
            self.realTime = realTime
            self.chip = chip
            self.disconnectAfterBytes = disconnectAfterBytes
            self.stallAfterBytes = stallAfterBytes
        }
    }

    /// complex samples rendered per chunk
    static let chunkSamples = 8_192

    public let deviceInfo: USBDeviceInfo
    public let options: Options
    /// paces the emulated device's output (tests may hand in a `ManualClock`)
    private let clock: any MonotonicClock
    /// control transfers answered (the dummy demod reads included)
    public private(set) var controlTransfers = 0
    /// sample bytes sent
    public private(set) var bytesSent = 0
    /// accepted but inconsistent settings, in order of detection
    public private(set) var protocolViolations: [String] = []

    private var usbRegisters: [UInt16: UInt16] = [:]
    private var sysRegisters: [UInt16: UInt8] = [:]
    /// demodulator pages 0…4, 256 registers each
    private var demod = [[UInt8]](repeating: [UInt8](repeating: 0, count: 256), count: 5)
    private var tuner: R82XXEmulatedChip?
    private var streaming = false
    private var flushed = false
    private var streamStartSeconds = 0.0
    private var streamBytes = 0
    private let scene: DemoScene
    private var synthesizer: DemoSynthesizer?
    /// one rendered chunk of u8 I/Q and how much of it was sent
    private var chunk = [UInt8](repeating: 0, count: 2 * RTLSDREmulator.chunkSamples)
    private var chunkOffset = 2 * RTLSDREmulator.chunkSamples
    private var chunkIndex: UInt64 = 0
    private var int8Scratch = [Int8](repeating: 0, count: 2 * RTLSDREmulator.chunkSamples)

    /// - Parameter clock: paces the real-time sample stream
    public init(scene: DemoScene? = nil, seed: UInt64 = 1, options: Options = Options(),
                clock: any MonotonicClock = SystemClock()) {
        self.scene = scene ?? DemoScene.standard(seed: seed)
        self.options = options
        self.clock = clock
        if let chip = options.chip {
            let crystal = chip == .r828d ? RTLSDRProtocol.r828dCrystalHz : RTLSDRProtocol.crystalHz
            tuner = R82XXEmulatedChip(chip: chip, crystalHz: Double(crystal) * (1 + options.crystalErrorPPM / 1e6))
        }
        deviceInfo = USBDeviceInfo(vendorID: options.usbID.vendorID, productID: options.usbID.productID,
                                   bcdDevice: 0x0100, manufacturer: "Realtek", product: "RTL2838UHIDIR",
                                   serialNumber: String(format: "%08llu", (self.scene.seed % 100_000_000)))
    }

    // MARK: what the registers say

    /// the I2C repeater to the tuner is open
    public var repeaterOpen: Bool { demod[1][0x01] == RTLSDRDemod.repeaterOn }

    /// resampler ratio from demod page 1 0x9f…0xa2
    private var resamplerRatio: UInt32 {
        UInt32(demod[1][0x9f]) << 24 | UInt32(demod[1][0xa0]) << 16 | UInt32(demod[1][0xa1]) << 8 | UInt32(demod[1][0xa2])
    }

    /// sample rate the resampler runs at [Hz] (0 before it is set)
    public var sampleRateHz: Double { RTLSDRProtocol.sampleRate(resamplerRatio: resamplerRatio) }

    /// IF the demodulator mixes down from [Hz] (page 1 0x19…0x1b)
    public var demodIntermediateHz: Double {
        let word = UInt32(demod[1][0x19] & 0x3f) << 16 | UInt32(demod[1][0x1a]) << 8 | UInt32(demod[1][0x1b])
        // 22-bit two's complement, negative for a positive IF
        let signed = Int32(bitPattern: word << 10) >> 10
        return -Double(signed) * Double(RTLSDRProtocol.crystalHz) * (1 + options.crystalErrorPPM / 1e6) / 4_194_304
    }

    /// centre of the delivered samples [Hz]: tuner LO minus the demodulator's IF
    public var centerFrequencyHz: Double {
        guard let tuner else { return 0 }
        return tuner.localOscillatorHz - demodIntermediateHz
    }

    /// GPIO 0 is an output driven high: the RTL-SDR Blog's bias tee is powered
    public var biasTeeOn: Bool {
        let output = sysRegisters[RTLSDRSysRegister.gpo] ?? 0
        let enabled = sysRegisters[RTLSDRSysRegister.gpoe] ?? 0
        let input = sysRegisters[RTLSDRSysRegister.gpd] ?? 0
        return output & 1 == 1 && enabled & 1 == 1 && input & 1 == 0
    }

    /// sample frequency correction the host set (page 1 0x3e/0x3f) [ppm], as librtlsdr computes it
    public var sampleFrequencyCorrectionPPM: Int {
        let raw = UInt16(demod[1][0x3e] & 0x3f) << 8 | UInt16(demod[1][0x3f])
        let offset = Int(Int16(bitPattern: raw << 2) >> 2)
        return Int((-Double(offset) * 1e6 / Double(1 << 24)).rounded())
    }

    /// tuner manual gain [tenths of dB], nil when the tuner's AGC runs
    public var manualGainTenthsDB: Int? { tuner?.manualGainTenthsDB }

    /// the RTL2832U's digital AGC is on (page 0 reg 0x19)
    public var digitalAGC: Bool { demod[0][0x19] == RTLSDRDemod.agcOn }

    /// the endpoint was reset and samples flow
    public var isStreaming: Bool { streaming }

    // MARK: control transfers

    public func controlOut(_ setup: ControlSetup, data: [UInt8]) throws(USBError) {
        controlTransfers += 1
        guard setup.request == 0, setup.index & 0x10 != 0 else { throw .stalled(operation: "control OUT \(setup)") }
        let block = UInt8(setup.index >> 8)
        if block == RTLSDRBlock.demod.rawValue {
            try writeDemod(page: Int(setup.index & 0x0f), value: setup.value, data: data)
            return
        }
        switch RTLSDRBlock(rawValue: block) {
        case .usb:
            try writeUSB(setup.value, data: data)
        case .sys:
            guard data.count == 1 else { throw .stalled(operation: "SYS write of \(data.count) bytes") }
            sysRegisters[setup.value] = data[0]
        case .i2c:
            try writeI2C(address: UInt8(truncatingIfNeeded: setup.value), data: data)
        default:
            throw .stalled(operation: "write to block \(block)")
        }
    }

    public func controlIn(_ setup: ControlSetup, length: Int) throws(USBError) -> [UInt8] {
        controlTransfers += 1
        guard setup.request == 0, setup.index & 0x10 == 0 else { throw .stalled(operation: "control IN \(setup)") }
        let block = UInt8(setup.index >> 8)
        if block == RTLSDRBlock.demod.rawValue {
            let page = Int(setup.index & 0x0f)
            guard setup.value & 0xff == 0x20 else { throw .stalled(operation: "demod read \(setup)") }
            let register = Int(setup.value >> 8)
            if page == Int(RTLSDRDemod.dummyReadPage) { return [UInt8](repeating: 0, count: max(0, min(length, 2))) }
            guard page < demod.count else { throw .stalled(operation: "demod read of page \(page)") }
            return (0..<max(0, min(length, 2))).map { demod[page][min(register + $0, 255)] }
        }
        switch RTLSDRBlock(rawValue: block) {
        case .usb:
            let value = usbRegisters[setup.value] ?? 0
            return Array([UInt8(truncatingIfNeeded: value), UInt8(value >> 8)].prefix(max(0, length)))
        case .sys:
            return Array([sysRegisters[setup.value] ?? 0, 0].prefix(max(0, length)))
        case .i2c:
            return try readI2C(address: UInt8(truncatingIfNeeded: setup.value), length: length)
        default:
            throw .stalled(operation: "read of block \(block)")
        }
    }

    private func writeDemod(page: Int, value: UInt16, data: [UInt8]) throws(USBError) {
        guard value & 0xff == 0x20, page < demod.count, (1...2).contains(data.count) else {
            throw .stalled(operation: "demod write page \(page) value 0x\(String(value, radix: 16))")
        }
        let register = Int(value >> 8)
        for (i, byte) in data.enumerated() where register + i < 256 { demod[page][register + i] = byte }
    }

    private func writeUSB(_ address: UInt16, data: [UInt8]) throws(USBError) {
        guard (1...2).contains(data.count) else { throw .stalled(operation: "USB register write of \(data.count) bytes") }
        let value = data.count == 1 ? UInt16(data[0]) : UInt16(data[0]) << 8 | UInt16(data[1])
        usbRegisters[address] = value
        guard address == RTLSDRUSBRegister.epaControl else { return }
        if value == RTLSDREndpointControl.stallAndFlush {
            streaming = false
            flushed = true
        } else if value == RTLSDREndpointControl.run && flushed {
            flushed = false
            beginStream()
        }
    }

    private func writeI2C(address: UInt8, data: [UInt8]) throws(USBError) {
        guard var chip = tuner, chip.address == address else {
            throw .stalled(operation: "I2C write to absent device 0x\(String(address, radix: 16))")
        }
        guard repeaterOpen else {
            protocolViolations.append("tuner written with the I2C repeater closed")
            throw .stalled(operation: "I2C write with the repeater closed")
        }
        guard chip.write(data) else {
            throw .stalled(operation: "I2C write to tuner register \(data.first.map { String($0) } ?? "none")")
        }
        tuner = chip
    }

    private func readI2C(address: UInt8, length: Int) throws(USBError) -> [UInt8] {
        guard let chip = tuner, chip.address == address else {
            throw .stalled(operation: "I2C read from absent device 0x\(String(address, radix: 16))")
        }
        guard repeaterOpen else {
            protocolViolations.append("tuner read with the I2C repeater closed")
            throw .stalled(operation: "I2C read with the repeater closed")
        }
        return chip.read(length: length)
    }

    // MARK: streaming

    /// Checks the settings a stream depends on, then starts the sample clock.
    private func beginStream() {
        let rate = sampleRateHz
        guard let chip = tuner, RTLSDRProtocol.isSupportedSampleRate(UInt32(rate.rounded())) else {
            protocolViolations.append("stream started without a supported sample rate (\(rate) S/s)")
            return
        }
        let filter = R82XXTables.bandwidthSetting(bandwidthHz: Int(rate))
        if chip.registers[0x0a] & 0x10 != filter.reg0A || chip.registers[0x0b] & 0xef != filter.reg0B {
            protocolViolations.append("IF filter registers 0x0a/0x0b do not match \(Int(rate)) S/s")
        }
        if abs(demodIntermediateHz - Double(filter.intermediateHz)) > 10 {
            protocolViolations.append("demodulator IF \(demodIntermediateHz) Hz, tuner IF \(filter.intermediateHz) Hz")
        }
        streaming = true
        streamStartSeconds = clock.now
        streamBytes = 0
        chunkOffset = chunk.count
        if synthesizer?.samplesPerSecond != rate {
            synthesizer = DemoSynthesizer(scene: scene, payloadCount: 2 * Self.chunkSamples, samplesPerSecond: rate,
                                          continuous: true)
        }
    }

    /// Checks the tuning a chunk is rendered at (recorded once per LO): PLL
    /// lock and the RF filter row for the LO.
    private var lastCheckedLO = -1.0
    private func checkTuning(_ chip: R82XXEmulatedChip) {
        let lo = chip.localOscillatorHz
        guard lo != lastCheckedLO else { return }
        lastCheckedLO = lo
        if !chip.pllLocked { protocolViolations.append("PLL unlocked: VCO \(chip.vcoHz) Hz") }
        let band = R82XXTables.frequencyRange(forHz: UInt32(max(0, min(lo, 4e9))))
        if chip.registers[0x1b] != band.trackingFilter || chip.registers[0x1a] & 0xc3 != band.rfMuxPoly {
            protocolViolations.append("RF filter registers do not match LO \(Int(lo)) Hz")
        }
    }

    public func bulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        guard endpoint == RTLSDRProtocol.bulkInEndpoint else { throw .stalled(operation: "bulk IN endpoint \(endpoint)") }
        guard streaming, let chip = tuner else { return 0 }
        var wanted = buffer.count
        if options.realTime {
            let due = Int((clock.now - streamStartSeconds) * sampleRateHz * 2) & ~1
            wanted = min(wanted, max(0, due - streamBytes))
        }
        if let limit = options.disconnectAfterBytes {
            if bytesSent >= limit { throw .disconnected(device: "RTL-SDR (emulated)") }
            wanted = min(wanted, limit - bytesSent)
        }
        if let limit = options.stallAfterBytes { wanted = min(wanted, max(0, limit - bytesSent)) }
        var written = 0
        while written < wanted {
            if chunkOffset == chunk.count { renderChunk(chip) }
            let count = min(wanted - written, chunk.count - chunkOffset)
            chunk.withUnsafeBytes { source in
                buffer.baseAddress!.advanced(by: written)
                    .copyMemory(from: source.baseAddress!.advanced(by: chunkOffset), byteCount: count)
            }
            chunkOffset += count
            written += count
        }
        streamBytes += written
        bytesSent += written
        return written
    }

    /// Renders the next chunk of u8 I/Q at the registers' tuning and gain.
    /// The tuning is checked only with the repeater closed: while it is open
    /// the host is between the PLL's register writes (as on hardware, those
    /// samples are garbage the host discards).
    private func renderChunk(_ chip: R82XXEmulatedChip) {
        if !repeaterOpen { checkTuning(chip) }
        guard let synthesizer else { return }
        let centre = UInt64(max(0, centerFrequencyHz.rounded()))
        let seconds = Double(chunkIndex) * Double(Self.chunkSamples) / max(sampleRateHz, 1)
        int8Scratch.withUnsafeMutableBytes { raw in
            synthesizer.render(sweepFrequencyHz: centre, offsetHz: 0, blockIndex: chunkIndex, timeSeconds: seconds,
                               into: raw)
        }
        // manual gain scales the scene about 29.7 dB (amplitude); AGC leaves it
        let scale = manualGainTenthsDB.map { Float(pow(10, Double($0 - 297) / 200)) } ?? 1
        Self.offsetBinary(int8Scratch, scale: scale, into: &chunk)
        chunkIndex += 1
        chunkOffset = 0
    }

    /// u8 = clamp(round(v · scale) + 128, 0, 255): the RTL2832U's offset-binary samples.
    static func offsetBinary(_ values: [Int8], scale: Float, into out: inout [UInt8]) {
        values.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for i in 0..<min(source.count, target.count) {
                    let v = (Float(source[i]) * scale).rounded() + 128
                    target[i] = UInt8(max(0, min(255, v)))
                }
            }
        }
    }

    public func bulkOut(endpoint: UInt8, data: [UInt8]) throws(USBError) -> Int {
        throw .stalled(operation: "bulk OUT (the RTL2832U has no OUT endpoint)")
    }
}
