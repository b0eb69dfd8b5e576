/// The R820T/R828D as the emulator presents it on the I2C bus: 32 registers,
/// writes land at the register named by the first byte, reads always start
/// at register 0 and come back bit-reversed (the chip shifts LSB first).
/// Status registers 0…4 report chip id, PLL lock and calibration so that
/// librtlsdr's init and tuning succeed when the values written make sense.
struct R82XXEmulatedChip {
    let address: UInt8
    /// tuner crystal [Hz]
    let crystalHz: Double
    /// register file; 0x05…0x1f as written
    private(set) var registers = [UInt8](repeating: 0, count: 32)

    /// VCO fine-tune bits the chip reports: equal to the chip's VCO power
    /// reference (R820T 2, R828D 1), so the host needs no divider correction
    let vcoFineTune: UInt8
    /// filter calibration code reported after a calibration run
    static let calibrationCode: UInt8 = 0x08
    /// VCO range the PLL locks in [Hz]
    static let vcoRange = 1.77e9...3.54e9

    init(chip: R82XXTuner.Chip, crystalHz: Double) {
        address = chip.address
        vcoFineTune = chip.vcoPowerReference
        self.crystalHz = crystalHz
    }

    /// An I2C write: register, then data for it and the following ones.
    /// Returns false when it touches registers that do not exist or are read-only.
    mutating func write(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first else { return false }
        let data = bytes.dropFirst()
        if data.isEmpty { return first == 0 }  // sets the read pointer, which is always 0 on this chip
        guard first >= R82XXTables.firstWritable, Int(first) + data.count <= registers.count else { return false }
        for (i, byte) in data.enumerated() { registers[Int(first) + i] = byte }
        return true
    }

    /// An I2C read of `length` bytes from register 0, as the wire carries them.
    func read(length: Int) -> [UInt8] {
        (0..<max(0, min(length, registers.count))).map { index in
            index == 0 ? R82XXTables.chipID : R82XXTables.bitReversed(status(index))
        }
    }

    /// Logical (not reversed) value of register `index` as the chip reports it.
    private func status(_ index: Int) -> UInt8 {
        switch index {
        case 2: return pllLocked ? 0x40 | 0x20 : 0x20
        case 3: return registers[0x05] & 0x0f | (registers[0x07] & 0x0f) << 4
        case 4: return vcoFineTune << 4 | Self.calibrationCode
        default: return registers[index]
        }
    }

    /// mixer divider: 2 << register 0x10 bits 7:5
    var mixerDivider: Double { Double(2 << Int(registers[0x10] >> 5)) }

    /// VCO frequency the PLL registers ask for [Hz]: 2·xtal·(N + SDM/65536),
    /// N = 4·ni + si + 13 from register 0x14, SDM from 0x16:0x15.
    var vcoHz: Double {
        let ni = Double(registers[0x14] & 0x3f)
        let si = Double(registers[0x14] >> 6)
        let sdm = Double(UInt16(registers[0x16]) << 8 | UInt16(registers[0x15]))
        return 2 * crystalHz * (4 * ni + si + 13 + sdm / 65_536)
    }

    /// local oscillator [Hz]
    var localOscillatorHz: Double { vcoHz / mixerDivider }

    var pllLocked: Bool { Self.vcoRange.contains(vcoHz) }

    /// manual gain (LNA auto off) [tenths of dB], or nil in AGC mode
    var manualGainTenthsDB: Int? {
        guard registers[0x05] & 0x10 != 0 else { return nil }
        let lna = Int(registers[0x05] & 0x0f), mixer = Int(registers[0x07] & 0x0f)
        return R82XXTables.lnaGainSteps[1...max(1, lna)].reduce(0, +) * (lna > 0 ? 1 : 0)
            + R82XXTables.mixerGainSteps[1...max(1, mixer)].reduce(0, +) * (mixer > 0 ? 1 : 0)
    }
}
