import USBDriver

/// The R820T/R828D tuner behind the RTL2832U's I2C repeater, programmed as
/// librtlsdr's tuner_r82xx.c does: a shadow copy of registers 0x05…0x1f so
/// unchanged values are never resent, masked writes, filter calibration at
/// init, RF filter selection and PLL per tuning, IF filter per sample rate,
/// and LNA/mixer gain. Every call expects the repeater to be open.
public final class R82XXTuner {
    public enum Chip: Sendable, Equatable {
        case r820t, r828d

        var address: UInt8 { self == .r820t ? R82XXTables.r820tAddress : R82XXTables.r828dAddress }
        /// VCO power reference the PLL compares its fine-tune bits with
        var vcoPowerReference: UInt8 { self == .r820t ? 2 : 1 }
    }

    public let chip: Chip
    /// tuner crystal [Hz]
    public let crystalHz: UInt32
    /// the crystal's error [ppm] the PLL settings correct for (librtlsdr's
    /// APPLY_PPM_CORR on the tuner's crystal)
    var frequencyCorrectionPPM = 0
    /// the crystal frequency the PLL is computed for [Hz]
    var correctedCrystalHz: UInt32 {
        UInt32((Double(crystalHz) * (1 + Double(frequencyCorrectionPPM) / 1e6)).rounded(.towardZero))
    }
    /// IF the tuner mixes down to [Hz]; set by `setBandwidth`
    public private(set) var intermediateHz: UInt32 = RTLSDRProtocol.r82xxIntermediateHz
    /// filter calibration result (register 4 bits 3:0)
    public private(set) var filterCalibrationCode: UInt8 = 0

    private let bus: RTLSDRRegisterBus
    /// registers 0x05…0x1f as last written
    private var shadow = [UInt8](repeating: 0, count: R82XXTables.initialRegisters.count)
    /// R828D's input selection (register 0x05 bits 6:5) last written
    private var input: UInt8 = 0

    init(chip: Chip, bus: RTLSDRRegisterBus, crystalHz: UInt32) {
        self.chip = chip
        self.bus = bus
        self.crystalHz = crystalHz
    }

    // MARK: register access

    private func shadowIndex(_ register: UInt8) -> Int { Int(register) - Int(R82XXTables.firstWritable) }

    /// Writes consecutive registers from `register`, skipping the transfer when
    /// the shadow already holds these values; 7 data bytes per I2C message.
    private func write(_ register: UInt8, _ values: [UInt8]) throws(USBError) {
        let first = shadowIndex(register)
        precondition(first >= 0 && first + values.count <= shadow.count, "R82xx register out of range")
        if Array(shadow[first..<(first + values.count)]) == values { return }
        for (i, v) in values.enumerated() { shadow[first + i] = v }
        var position = 0
        while position < values.count {
            let size = min(values.count - position, R82XXTables.maxMessageLength - 1)
            try bus.i2cWrite(address: chip.address,
                             [register + UInt8(position)] + values[position..<(position + size)])
            position += size
        }
    }

    /// Changes the bits of `mask` in a register to those of `value`.
    private func write(_ register: UInt8, _ value: UInt8, mask: UInt8) throws(USBError) {
        let current = shadow[shadowIndex(register)]
        try write(register, [(current & ~mask) | (value & mask)])
    }

    /// Reads status registers 0…count−1, bit-reversed back to normal order.
    private func readStatus(count: Int) throws(USBError) -> [UInt8] {
        try bus.i2cWrite(address: chip.address, [0x00])
        return try bus.i2cRead(address: chip.address, length: count).map(R82XXTables.bitReversed)
    }

    // MARK: init

    /// r82xx_init: the register table, the 6 MHz DVB-T standard with filter
    /// calibration, then the DVB-T system settings.
    func initialise() throws(USBError) {
        for i in shadow.indices { shadow[i] = 0 }
        try write(R82XXTables.firstWritable, R82XXTables.initialRegisters)
        try setStandard()
        try selectSystemFrequency()
    }

    private func setStandard() throws(USBError) {
        shadow = R82XXTables.initialRegisters
        try write(0x0c, 0x00, mask: 0x0f)
        try write(0x13, R82XXTables.versionNumber, mask: 0x3f)
        try write(0x1d, 0x00, mask: 0x38)
        // filter calibration at 56 MHz, at most twice
        let highPassCorner: UInt8 = 0x6b
        for _ in 0..<2 {
            try write(0x0b, highPassCorner, mask: 0x60)
            try write(0x0f, 0x04, mask: 0x04)
            try write(0x10, 0x00, mask: 0x03)
            try setPLL(loHz: 56_000_000)
            try write(0x0b, 0x10, mask: 0x10)
            try write(0x0b, 0x00, mask: 0x10)
            try write(0x0f, 0x00, mask: 0x04)
            let status = try readStatus(count: 5)
            filterCalibrationCode = status[4] & 0x0f
            if filterCalibrationCode != 0 && filterCalibrationCode != 0x0f { break }
        }
        if filterCalibrationCode == 0x0f { filterCalibrationCode = 0 }
        try write(0x0a, 0x10 | filterCalibrationCode, mask: 0x1f)
        try write(0x0b, highPassCorner, mask: 0xef)
        try write(0x07, 0x00, mask: 0x80)
        try write(0x06, 0x10, mask: 0x30)
        try write(0x1e, 0x60, mask: 0x60)
        try write(0x05, 0x01, mask: 0x80)
        try write(0x1f, 0x00, mask: 0x80)
        try write(0x0f, 0x00, mask: 0x80)
        try write(0x19, 0x60, mask: 0x60)
    }

    /// r82xx_sysfreq_sel for DVB-T, digital TV (LNA/mixer tops, currents, AGC clock).
    private func selectSystemFrequency() throws(USBError) {
        let mixerTop: UInt8 = 0x24
        try write(0x1d, 0xe5, mask: 0xc7)
        try write(0x1c, mixerTop, mask: 0xf8)
        try write(0x0d, [0x53])
        try write(0x0e, [0x75])
        try write(0x05, 0x00, mask: 0x60)
        try write(0x06, 0x00, mask: 0x08)
        try write(0x11, 0x38, mask: 0x38)
        try write(0x17, 0x30, mask: 0x30)
        try write(0x0a, 0x40, mask: 0x60)
        try write(0x1d, 0x00, mask: 0x38)
        try write(0x1c, 0x00, mask: 0x04)
        try write(0x06, 0x00, mask: 0x40)
        try write(0x1a, 0x30, mask: 0x30)
        try write(0x1d, 0x18, mask: 0x38)
        try write(0x1c, mixerTop, mask: 0x04)
        try write(0x1e, 14, mask: 0x1f)
        try write(0x1a, 0x20, mask: 0x30)
    }

    // MARK: tuning

    /// Tunes so that `hz` lands at the IF: RF filters and PLL for LO = hz + IF.
    func setFrequency(_ hz: UInt32) throws(USBError) {
        let lo = hz &+ intermediateHz
        try setMux(loHz: lo)
        try setPLL(loHz: lo)
        if chip == .r828d {
            // Cable1 below 345 MHz, Air-In above (librtlsdr's switch point)
            let wanted: UInt8 = hz > 345_000_000 ? 0x00 : 0x60
            if wanted != input {
                input = wanted
                try write(0x05, wanted, mask: 0x60)
            }
        }
    }

    private func setMux(loHz: UInt32) throws(USBError) {
        let range = R82XXTables.frequencyRange(forHz: loHz)
        try write(0x17, range.openDrain, mask: 0x08)
        try write(0x1a, range.rfMuxPoly, mask: 0xc3)
        try write(0x1b, [range.trackingFilter])
        try write(0x10, range.crystalCapZero, mask: 0x0b)
        try write(0x08, 0x00, mask: 0x3f)
        try write(0x09, 0x00, mask: 0x3f)
    }

    /// r82xx_set_pll: mixer divider putting the VCO in 1.77…3.54 GHz, then
    /// N = vco / (2·xtal) as integer + 16-bit sigma-delta fraction.
    private func setPLL(loHz: UInt32) throws(USBError) {
        let loKHz = (UInt64(loHz) + 500) / 1000
        let vcoMinKHz: UInt64 = 1_770_000
        try write(0x10, 0x00, mask: 0x10)
        try write(0x1a, 0x00, mask: 0x0c)
        try write(0x12, 0x80, mask: 0xe0)
        var mixDivider: UInt64 = 2
        var dividerNumber: UInt8 = 0
        // librtlsdr leaves the divider at /2 when even /64 keeps the VCO below
        // its range and mistunes; refuse instead
        guard loKHz * 64 >= vcoMinKHz else {
            throw .unsupported("R82xx tuner cannot tune this low: LO \(loHz) Hz is under \(vcoMinKHz / 64) kHz")
        }
        while mixDivider <= 64 {
            if loKHz * mixDivider >= vcoMinKHz && loKHz * mixDivider < 2 * vcoMinKHz {
                var buffer = mixDivider
                while buffer > 2 {
                    buffer >>= 1
                    dividerNumber += 1
                }
                break
            }
            mixDivider <<= 1
        }
        let status = try readStatus(count: 5)
        let fineTune = (status[4] & 0x30) >> 4
        if fineTune > chip.vcoPowerReference {
            dividerNumber &-= 1
        } else if fineTune < chip.vcoPowerReference {
            dividerNumber &+= 1
        }
        try write(0x10, dividerNumber << 5, mask: 0xe0)
        let vcoHz = UInt64(loHz) * mixDivider
        let reference = UInt64(correctedCrystalHz)
        let vcoDivider = (reference + 65_536 * vcoHz) / (2 * reference)
        let nint = vcoDivider / 65_536
        let sdm = UInt16(vcoDivider % 65_536)
        guard nint >= 13, nint <= UInt64(128 / Int(chip.vcoPowerReference) - 1) else {
            throw .unsupported("R82xx tuner: no PLL setting for LO \(loHz) Hz (N = \(nint))")
        }
        let ni = UInt8((nint - 13) / 4)
        let si = UInt8(nint - 13 - 4 * UInt64(ni))
        try write(0x14, [ni &+ si << 6])
        try write(0x12, sdm == 0 ? 0x08 : 0x00, mask: 0x08)
        try write(0x16, [UInt8(sdm >> 8)])
        try write(0x15, [UInt8(truncatingIfNeeded: sdm)])
        var locked = false
        for attempt in 0..<2 {
            let lock = try readStatus(count: 3)
            if lock[2] & 0x40 != 0 {
                locked = true
                break
            }
            // not locked: raise the VCO current once
            if attempt == 0 { try write(0x12, 0x60, mask: 0xe0) }
        }
        guard locked else {
            throw .io(operation: "R82xx tuning to LO \(loHz) Hz", detail: "PLL did not lock")
        }
        try write(0x1a, 0x08, mask: 0x08)
    }

    // MARK: filters and gain

    /// r82xx_set_bandwidth: IF filter for `bandwidthHz`; returns the new IF [Hz]
    /// that the demodulator must be told.
    func setBandwidth(_ bandwidthHz: Int) throws(USBError) -> UInt32 {
        let setting = R82XXTables.bandwidthSetting(bandwidthHz: bandwidthHz)
        intermediateHz = UInt32(setting.intermediateHz)
        try write(0x0a, setting.reg0A, mask: 0x10)
        try write(0x0b, setting.reg0B, mask: 0xef)
        return intermediateHz
    }

    /// Manual gain: LNA and mixer AGC off, VGA fixed at 16.3 dB, indices from
    /// the step tables. Returns the gain the steps add up to [tenths of dB].
    @discardableResult
    func setManualGain(tenthsDB: Int) throws(USBError) -> Int {
        try write(0x05, 0x10, mask: 0x10)
        try write(0x07, 0x00, mask: 0x10)
        _ = try readStatus(count: 4)
        try write(0x0c, 0x08, mask: 0x9f)
        let indices = R82XXTables.gainIndices(tenthsDB: tenthsDB)
        try write(0x05, indices.lna, mask: 0x0f)
        try write(0x07, indices.mixer, mask: 0x0f)
        return indices.totalTenthsDB
    }

    /// Automatic gain: LNA and mixer AGC on, VGA fixed at 26.5 dB.
    func setAutomaticGain() throws(USBError) {
        try write(0x05, 0x00, mask: 0x10)
        try write(0x07, 0x10, mask: 0x10)
        try write(0x0c, 0x0b, mask: 0x9f)
    }
}
