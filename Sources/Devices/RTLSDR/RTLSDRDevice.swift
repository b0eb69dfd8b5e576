import Synchronization
import ThreadKit
import USBDriver

/// Tuner gain: the R82xx's own AGC, or a fixed value from its gain table.
public enum RTLSDRGain: Sendable, Equatable {
    case automatic
    /// [tenths of dB]; snapped to the nearest entry of `R82XXTables.gainTable`
    case manual(tenthsDB: Int)

    /// `-g` as rtl_power takes it: dB, snapped to the nearest table entry.
    public static func nearest(dB: Double) -> RTLSDRGain {
        let wanted = Int((dB * 10).rounded())
        let best = R82XXTables.gainTable.min { abs($0 - wanted) < abs($1 - wanted) } ?? 0
        return .manual(tenthsDB: best)
    }
}

/// An RTL2832U dongle with an R820T or R828D tuner, driven register by
/// register over any `USBTransport` (libusb or an emulator), as librtlsdr
/// 0.6.0 does it: baseband init, tuner probe and init over the I2C repeater,
/// sample rate, tuning, gain, reset buffer, then bulk u8 I/Q.
///
/// Not thread-safe: configure from one thread. Streaming data arrives on the
/// transport's thread.
public final class RTLSDRDevice: Sendable {
    public let transport: USBTransport
    /// the tuner chip found, and its crystal [Hz]
    public let tunerChip: R82XXTuner.Chip
    public let crystalHz: UInt32

    /// The register bus, the tuner's register shadow and what was set: every
    /// configuration call holds it (the dongle takes one at a time).
    private struct Hardware {
        var bus: RTLSDRRegisterBus
        var tuner: R82XXTuner
        var sampleRateHz: Double = 0
        var centerFrequencyHz: UInt32 = 0
        var gain = RTLSDRGain.automatic
        /// crystal error corrected for [ppm]
        var frequencyCorrectionPPM = 0
        /// the RTL2832U's crystal as corrected [Hz]: the IF register is computed for it
        var correctedCrystalHz: UInt32 {
            UInt32((Double(RTLSDRProtocol.crystalHz) * (1 + Double(frequencyCorrectionPPM) / 1e6)).rounded(.towardZero))
        }
    }

    private let hardware: Guarded<Hardware>

    /// sample rate the resampler really runs at [Hz]
    public var sampleRateHz: Double { hardware.withLock { $0.sampleRateHz } }
    /// frequency at the centre of the samples [Hz]
    public var centerFrequencyHz: UInt32 { hardware.withLock { $0.centerFrequencyHz } }
    public var gain: RTLSDRGain { hardware.withLock { $0.gain } }
    /// the crystal error corrected for [ppm]
    public var frequencyCorrectionPPM: Int { hardware.withLock { $0.frequencyCorrectionPPM } }

    /// FIR coefficients librtlsdr loads for DAB/FM (fir_default): 8 int8 then 8 int12
    static let firCoefficients: [Int] = [-54, -36, -41, -40, -32, -14, 14, 53, 101, 156, 215, 273, 327, 372, 404, 421]

    private init(transport: USBTransport, bus: sending RTLSDRRegisterBus, tuner: sending R82XXTuner) {
        self.transport = transport
        tunerChip = tuner.chip
        crystalHz = tuner.crystalHz
        hardware = Guarded(Hardware(bus: bus, tuner: tuner))
    }

    /// Initialises the dongle behind an opened transport (for libusb, open it
    /// with `detachKernelDriver: true`: the DVB driver dvb_usb_rtl28xxu claims
    /// these dongles): baseband init, tuner probe, tuner init. Throws
    /// `.unsupported` when no R820T/R828D answers.
    public static func open(transport: USBTransport) throws(USBError) -> RTLSDRDevice {
        let bus = RTLSDRRegisterBus(transport: transport)
        // librtlsdr's dummy write: a dongle that fails it needs a USB reset
        try bus.write(.usb, RTLSDRUSBRegister.sysctl, value: 0x09, length: 1)
        try initialiseBaseband(bus)
        let chip = try probeTuner(bus)
        let crystal = chip == .r828d ? RTLSDRProtocol.r828dCrystalHz : RTLSDRProtocol.crystalHz
        let tuner = R82XXTuner(chip: chip, bus: bus, crystalHz: crystal)
        try bus.withRepeater { () throws(USBError) in
            // R82xx: low-IF, so no zero-IF mode, I ADC only, IF 3.57 MHz, spectrum inverted
            try bus.demodWrite(page: 1, 0xb1, value: 0x1a)
            try bus.demodWrite(page: 0, 0x08, value: 0x4d)
            try setIntermediateFrequency(bus, hz: RTLSDRProtocol.r82xxIntermediateHz)
            try bus.demodWrite(page: 1, 0x15, value: 0x01)
            try tuner.initialise()
        }
        return RTLSDRDevice(transport: transport, bus: bus, tuner: tuner)
    }

    /// rtlsdr_init_baseband: USB endpoint, demod power, soft reset, DDC and IF
    /// cleared, FIR, SDR mode, AGC loops off, zero-IF with DC and IQ correction.
    private static func initialiseBaseband(_ bus: RTLSDRRegisterBus) throws(USBError) {
        try bus.write(.usb, RTLSDRUSBRegister.sysctl, value: 0x09, length: 1)
        try bus.write(.usb, RTLSDRUSBRegister.epaMaxPacket, value: 0x0002, length: 2)
        try bus.write(.usb, RTLSDRUSBRegister.epaControl, value: RTLSDREndpointControl.stallAndFlush, length: 2)
        try bus.write(.sys, RTLSDRSysRegister.demodControl1, value: 0x22, length: 1)
        try bus.write(.sys, RTLSDRSysRegister.demodControl, value: 0xe8, length: 1)
        try bus.demodWrite(page: 1, 0x01, value: UInt16(RTLSDRDemod.softReset))
        try bus.demodWrite(page: 1, 0x01, value: UInt16(RTLSDRDemod.repeaterOff))
        try bus.demodWrite(page: 1, 0x15, value: 0x00)
        try bus.demodWrite(page: 1, 0x16, value: 0x0000, length: 2)
        for register in UInt8(0x16)..<0x1c { try bus.demodWrite(page: 1, register, value: 0x00) }
        for (i, byte) in firBytes().enumerated() { try bus.demodWrite(page: 1, 0x1c + UInt8(i), value: UInt16(byte)) }
        try bus.demodWrite(page: 0, 0x19, value: UInt16(RTLSDRDemod.agcOff))
        try bus.demodWrite(page: 1, 0x93, value: 0xf0)
        try bus.demodWrite(page: 1, 0x94, value: 0x0f)
        try bus.demodWrite(page: 1, 0x11, value: 0x00)
        try bus.demodWrite(page: 1, 0x04, value: 0x00)
        try bus.demodWrite(page: 0, 0x61, value: 0x60)
        try bus.demodWrite(page: 0, 0x06, value: 0x80)
        try bus.demodWrite(page: 1, 0xb1, value: 0x1b)
        try bus.demodWrite(page: 0, 0x0d, value: 0x83)
    }

    /// The 20 FIR bytes: 8 int8, then pairs of int12 packed into 3 bytes.
    static func firBytes() -> [UInt8] {
        var bytes = firCoefficients[0..<8].map { UInt8(truncatingIfNeeded: $0) }
        for i in stride(from: 8, to: 16, by: 2) {
            let a = firCoefficients[i], b = firCoefficients[i + 1]
            bytes.append(UInt8(truncatingIfNeeded: a >> 4))
            bytes.append(UInt8(truncatingIfNeeded: (a << 4) | ((b >> 8) & 0x0f)))
            bytes.append(UInt8(truncatingIfNeeded: b))
        }
        return bytes
    }

    /// Reads register 0 at the R820T, then the R828D address, with the
    /// repeater open (librtlsdr probes E4000 and FC0013 first; tscope
    /// supports only the R82xx family).
    private static func probeTuner(_ bus: RTLSDRRegisterBus) throws(USBError) -> R82XXTuner.Chip {
        try bus.withRepeater { () throws(USBError) -> R82XXTuner.Chip in
            for chip in [R82XXTuner.Chip.r820t, .r828d] {
                if let id = try? readChipID(bus, address: chip.address), id == R82XXTables.chipID { return chip }
            }
            throw .unsupported("RTL-SDR tuner not supported: no R820T/R828D answered on the I2C bus "
                + "(E4000, FC0012/13 and FC2580 dongles are not supported)")
        }
    }

    private static func readChipID(_ bus: RTLSDRRegisterBus, address: UInt8) throws(USBError) -> UInt8 {
        try bus.i2cWrite(address: address, [0x00])
        return try bus.i2cRead(address: address, length: 1)[0]
    }

    /// Demod page 1 registers 0x19…0x1b: the IF the demodulator mixes down
    /// from, for the RTL2832U's crystal as corrected.
    private static func setIntermediateFrequency(_ bus: RTLSDRRegisterBus, hz: UInt32,
                                                 crystalHz: UInt32 = RTLSDRProtocol.crystalHz) throws(USBError) {
        let word = RTLSDRProtocol.intermediateFrequencyWord(hz: hz, crystalHz: crystalHz)
        try bus.demodWrite(page: 1, 0x19, value: UInt16((word >> 16) & 0x3f))
        try bus.demodWrite(page: 1, 0x1a, value: UInt16((word >> 8) & 0xff))
        try bus.demodWrite(page: 1, 0x1b, value: UInt16(word & 0xff))
    }

    // MARK: configuration

    /// Sets the sample rate (225 001–300 000 or 900 001–3 200 000 S/s); the
    /// tuner's IF filter follows it, as librtlsdr 0.6.0 does. Returns the
    /// exact rate [Hz].
    @discardableResult
    public func setSampleRate(_ hz: UInt32) throws(USBError) -> Double {
        guard RTLSDRProtocol.isSupportedSampleRate(hz) else {
            throw .unsupported("RTL-SDR sample rate \(hz) S/s is not supported: use 225001–300000 or 900001–3200000")
        }
        let ratio = RTLSDRProtocol.resamplerRatio(sampleRateHz: hz)
        let real = RTLSDRProtocol.sampleRate(resamplerRatio: ratio)
        try hardware.withLock { (hardware: inout Hardware) throws(USBError) in
            let bus = hardware.bus, tuner = hardware.tuner, center = hardware.centerFrequencyHz
            let crystal = hardware.correctedCrystalHz
            try bus.withRepeater { () throws(USBError) in
                let intermediate = try tuner.setBandwidth(Int(real))
                try Self.setIntermediateFrequency(bus, hz: intermediate, crystalHz: crystal)
                if center != 0 { try tuner.setFrequency(center) }
            }
            hardware.sampleRateHz = real
            try bus.demodWrite(page: 1, 0x9f, value: UInt16(ratio >> 16), length: 2)
            try bus.demodWrite(page: 1, 0xa1, value: UInt16(ratio & 0xffff), length: 2)
            // sample frequency correction (registers 0x3f, 0x3e), then soft reset
            try Self.setSampleFrequencyCorrection(bus, ppm: hardware.frequencyCorrectionPPM)
            try bus.demodWrite(page: 1, 0x01, value: UInt16(RTLSDRDemod.softReset))
            try bus.demodWrite(page: 1, 0x01, value: UInt16(RTLSDRDemod.repeaterOff))
        }
        return real
    }

    /// rtlsdr_set_sample_freq_correction: −ppm·2²⁴/10⁶ into page 1 0x3f (low
    /// byte) and 0x3e (6 high bits).
    private static func setSampleFrequencyCorrection(_ bus: RTLSDRRegisterBus, ppm: Int) throws(USBError) {
        let offset = Int16(truncatingIfNeeded: -ppm * (1 << 24) / 1_000_000)
        let bits = UInt16(bitPattern: offset)
        try bus.demodWrite(page: 1, 0x3f, value: bits & 0xff)
        try bus.demodWrite(page: 1, 0x3e, value: (bits >> 8) & 0x3f)
    }

    /// Corrects for a crystal `ppm` parts per million fast (rtl_sdr's -p,
    /// rtlsdr_set_freq_correction): the sample-rate correction registers and
    /// the tuner's PLL for the corrected crystal, the current frequency tuned
    /// again. As in librtlsdr 0.6.0 the demodulator's IF is computed for the
    /// corrected crystal only when the sample rate is set next (a correction
    /// set after the rate leaves the 3.57 MHz IF off by ppm × 3.57 MHz, 179 Hz
    /// at 50 ppm): the live source sets the correction first.
    public func setFrequencyCorrection(ppm: Int) throws(USBError) {
        try hardware.withLock { (hardware: inout Hardware) throws(USBError) in
            hardware.frequencyCorrectionPPM = ppm
            let bus = hardware.bus, tuner = hardware.tuner, center = hardware.centerFrequencyHz
            tuner.frequencyCorrectionPPM = ppm
            try Self.setSampleFrequencyCorrection(bus, ppm: ppm)
            if center != 0 { try bus.withRepeater { () throws(USBError) in try tuner.setFrequency(center) } }
        }
    }

    /// The bias tee of the RTL-SDR Blog V3 and V4 (rtlsdr_set_bias_tee):
    /// GPIO 0 made an output (GPD bit cleared, GPOE bit set) and driven
    /// high (on) or low (off).
    public func setBiasTee(_ on: Bool) throws(USBError) {
        try hardware.withLock { (hardware: inout Hardware) throws(USBError) in
            let bus = hardware.bus
            let direction = try bus.read(.sys, RTLSDRSysRegister.gpd)
            try bus.write(.sys, RTLSDRSysRegister.gpd, value: UInt16(direction & ~1), length: 1)
            let enable = try bus.read(.sys, RTLSDRSysRegister.gpoe)
            try bus.write(.sys, RTLSDRSysRegister.gpoe, value: UInt16(enable | 1), length: 1)
            let output = try bus.read(.sys, RTLSDRSysRegister.gpo)
            try bus.write(.sys, RTLSDRSysRegister.gpo, value: UInt16(on ? output | 1 : output & ~1), length: 1)
        }
    }

    /// Tunes the centre of the samples to `hz` [Hz].
    public func setCenterFrequency(_ hz: UInt32) throws(USBError) {
        try hardware.withLock { (hardware: inout Hardware) throws(USBError) in
            let tuner = hardware.tuner
            try hardware.bus.withRepeater { () throws(USBError) in try tuner.setFrequency(hz) }
            hardware.centerFrequencyHz = hz
        }
    }

    /// Tuner gain mode and value.
    public func setGain(_ gain: RTLSDRGain) throws(USBError) {
        try hardware.withLock { (hardware: inout Hardware) throws(USBError) in
            let tuner = hardware.tuner
            try hardware.bus.withRepeater { () throws(USBError) in
                switch gain {
                case .automatic: try tuner.setAutomaticGain()
                case .manual(let tenths): try tuner.setManualGain(tenthsDB: tenths)
                }
            }
            hardware.gain = gain
        }
    }

    /// The RTL2832U's digital AGC (rtlsdr_set_agc_mode).
    public func setDigitalAGC(_ on: Bool) throws(USBError) {
        try hardware.withLock { (hardware: inout Hardware) throws(USBError) in
            try hardware.bus.demodWrite(page: 0, 0x19, value: UInt16(on ? RTLSDRDemod.agcOn : RTLSDRDemod.agcOff))
        }
    }

    /// Flushes the sample FIFO and lets data flow (mandatory before reading).
    public func resetBuffer() throws(USBError) {
        try hardware.withLock { (hardware: inout Hardware) throws(USBError) in
            try hardware.bus.write(.usb, RTLSDRUSBRegister.epaControl, value: RTLSDREndpointControl.stallAndFlush, length: 2)
            try hardware.bus.write(.usb, RTLSDRUSBRegister.epaControl, value: RTLSDREndpointControl.run, length: 2)
        }
    }

    /// Starts continuous bulk IN of interleaved u8 I/Q.
    public func startStreaming(transferSize: Int = RTLSDRStreaming.transferSize,
                               transfersInFlight: Int = RTLSDRStreaming.transfersInFlight,
                               onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        try transport.startBulkStream(endpoint: RTLSDRProtocol.bulkInEndpoint, transferSize: transferSize,
                                      transfersInFlight: transfersInFlight, onData: onData, onEnd: onEnd)
    }

    public func stopStreaming() { transport.stopBulkStream() }

    /// Tuner to standby and demodulator off, as rtlsdr_close does; errors are
    /// ignored (the dongle may be gone). The transport stays open.
    public func powerDown() {
        transport.stopBulkStream()
        hardware.withLock { hardware in
            _ = try? hardware.bus.write(.sys, RTLSDRSysRegister.demodControl, value: 0x20, length: 1)
        }
    }
}

/// Bulk transfer sizes for hopping: small transfers so little stale data is
/// in flight after a retune.
public enum RTLSDRStreaming {
    /// bytes per transfer (a multiple of 512, as librtlsdr requires)
    public static let transferSize = 16_384
    public static let transfersInFlight = 4
}
