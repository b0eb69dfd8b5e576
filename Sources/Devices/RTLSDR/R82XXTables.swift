/// Register facts of the Rafael Micro R820T/R828D tuner as librtlsdr programs
/// it (osmocom/rtl-sdr src/tuner_r82xx.c and tuner_r82xx.h, release 0.6.0).
/// Numbers only; see Firmware-Notes/rtlsdr.md for what each one does.
public enum R82XXTables {
    /// I2C addresses (8-bit form librtlsdr uses as wValue)
    public static let r820tAddress: UInt8 = 0x34
    public static let r828dAddress: UInt8 = 0x74
    /// register 0 of either chip reads this (R82XX_CHECK_VAL)
    public static let chipID: UInt8 = 0x69
    /// first register the host writes; registers 0…4 are read-only status
    public static let firstWritable: UInt8 = 0x05
    /// VER_NUM, written into register 0x13 bits 5:0
    public static let versionNumber: UInt8 = 49
    /// librtlsdr's max_i2c_msg_len: register byte + up to 7 data bytes
    public static let maxMessageLength = 8

    /// r82xx_init_array: values of registers 0x05…0x1f after init
    public static let initialRegisters: [UInt8] = [
        0x83, 0x32, 0x75,              // 05…07
        0xc0, 0x40, 0xd6, 0x6c,        // 08…0b
        0xf5, 0x63, 0x75, 0x68,        // 0c…0f
        0x6c, 0x83, 0x80, 0x00,        // 10…13
        0x0f, 0x00, 0xc0, 0x30,        // 14…17
        0x48, 0xcc, 0x60, 0x00,        // 18…1b
        0x54, 0xae, 0x4a, 0xc0,        // 1c…1f
    ]

    /// One row of freq_ranges: the RF filter settings from `startMHz` up.
    public struct FrequencyRange: Sendable, Equatable {
        public var startMHz: UInt32
        /// register 0x17 bit 3 (open drain)
        public var openDrain: UInt8
        /// register 0x1a bits 7:6 and 1:0 (RF mux, poly mux)
        public var rfMuxPoly: UInt8
        /// register 0x1b (tracking filter band)
        public var trackingFilter: UInt8
        /// register 0x10 bits 1:0 for the "high cap 0 pF" crystal setting librtlsdr uses
        public var crystalCapZero: UInt8
    }

    public static let frequencyRanges: [FrequencyRange] = [
        .init(startMHz: 0, openDrain: 0x08, rfMuxPoly: 0x02, trackingFilter: 0xdf, crystalCapZero: 0),
        .init(startMHz: 50, openDrain: 0x08, rfMuxPoly: 0x02, trackingFilter: 0xbe, crystalCapZero: 0),
        .init(startMHz: 55, openDrain: 0x08, rfMuxPoly: 0x02, trackingFilter: 0x8b, crystalCapZero: 0),
        .init(startMHz: 60, openDrain: 0x08, rfMuxPoly: 0x02, trackingFilter: 0x7b, crystalCapZero: 0),
        .init(startMHz: 65, openDrain: 0x08, rfMuxPoly: 0x02, trackingFilter: 0x69, crystalCapZero: 0),
        .init(startMHz: 70, openDrain: 0x08, rfMuxPoly: 0x02, trackingFilter: 0x58, crystalCapZero: 0),
        .init(startMHz: 75, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x44, crystalCapZero: 0),
        .init(startMHz: 80, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x44, crystalCapZero: 0),
        .init(startMHz: 90, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x34, crystalCapZero: 0),
        .init(startMHz: 100, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x34, crystalCapZero: 0),
        .init(startMHz: 110, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x24, crystalCapZero: 0),
        .init(startMHz: 120, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x24, crystalCapZero: 0),
        .init(startMHz: 140, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x14, crystalCapZero: 0),
        .init(startMHz: 180, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x13, crystalCapZero: 0),
        .init(startMHz: 220, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x13, crystalCapZero: 0),
        .init(startMHz: 250, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x11, crystalCapZero: 0),
        .init(startMHz: 280, openDrain: 0x00, rfMuxPoly: 0x02, trackingFilter: 0x00, crystalCapZero: 0),
        .init(startMHz: 310, openDrain: 0x00, rfMuxPoly: 0x41, trackingFilter: 0x00, crystalCapZero: 0),
        .init(startMHz: 450, openDrain: 0x00, rfMuxPoly: 0x41, trackingFilter: 0x00, crystalCapZero: 0),
        .init(startMHz: 588, openDrain: 0x00, rfMuxPoly: 0x40, trackingFilter: 0x00, crystalCapZero: 0),
        .init(startMHz: 650, openDrain: 0x00, rfMuxPoly: 0x40, trackingFilter: 0x00, crystalCapZero: 0),
    ]

    /// The row for a LO frequency: the last whose start is ≤ the frequency in whole MHz.
    public static func frequencyRange(forHz hz: UInt32) -> FrequencyRange {
        let mhz = hz / 1_000_000
        var row = frequencyRanges[0]
        for candidate in frequencyRanges where candidate.startMHz <= mhz { row = candidate }
        return row
    }

    /// gain steps per LNA / mixer index [tenths of dB] (measured by Steve Markgraf at 928 MHz)
    public static let lnaGainSteps: [Int] = [0, 9, 13, 40, 38, 13, 31, 22, 26, 31, 26, 14, 19, 5, 35, 13]
    public static let mixerGainSteps: [Int] = [0, 5, 10, 10, 19, 9, 10, 25, 17, 10, 8, 16, 13, 6, 3, -8]

    /// rtlsdr_get_tuner_gains for R82xx [tenths of dB]: what `-g` snaps to
    public static let gainTable: [Int] = [
        0, 9, 14, 27, 37, 77, 87, 125, 144, 157, 166, 197, 207, 229, 254, 280, 297, 328,
        338, 364, 372, 386, 402, 421, 434, 439, 445, 480, 496,
    ]

    /// The LNA and mixer indices r82xx_set_gain picks for `tenthsDB`: steps
    /// are added alternately (LNA first) until the sum reaches the request.
    public static func gainIndices(tenthsDB: Int) -> (lna: UInt8, mixer: UInt8, totalTenthsDB: Int) {
        var total = 0
        var lna = 0, mixer = 0
        for _ in 0..<15 {
            if total >= tenthsDB { break }
            lna += 1
            total += lnaGainSteps[lna]
            if total >= tenthsDB { break }
            mixer += 1
            total += mixerGainSteps[mixer]
        }
        return (UInt8(lna), UInt8(mixer), total)
    }

    /// IF low-pass contributions [Hz] (r82xx_if_low_pass_bw_table)
    public static let lowPassBandwidths: [Int] = [
        1_700_000, 1_600_000, 1_550_000, 1_450_000, 1_200_000, 900_000, 700_000, 550_000, 450_000, 350_000,
    ]
    /// high-pass filter contributions [Hz] (FILT_HP_BW1, FILT_HP_BW2)
    public static let highPass1 = 350_000
    public static let highPass2 = 380_000

    /// What r82xx_set_bandwidth sets for `bandwidthHz`: registers 0x0a (bit 4)
    /// and 0x0b (mask 0xef), and the IF the tuner then delivers [Hz].
    public static func bandwidthSetting(bandwidthHz: Int) -> (reg0A: UInt8, reg0B: UInt8, intermediateHz: Int) {
        if bandwidthHz > 7_000_000 { return (0x10, 0x0b, 4_570_000) }
        if bandwidthHz > 6_000_000 { return (0x10, 0x2a, 4_570_000) }
        if bandwidthHz > lowPassBandwidths[0] + highPass1 + highPass2 { return (0x10, 0x6b, 3_570_000) }
        var bw = bandwidthHz
        var reg0B: UInt8 = 0x80
        var intermediate = 2_300_000
        var realBandwidth = 0
        if bw > lowPassBandwidths[0] + highPass1 {
            bw -= highPass2
            intermediate += highPass2
            realBandwidth += highPass2
        } else {
            reg0B |= 0x20
        }
        if bw > lowPassBandwidths[0] {
            bw -= highPass1
            intermediate += highPass1
            realBandwidth += highPass1
        } else {
            reg0B |= 0x40
        }
        var index = 0
        while index < lowPassBandwidths.count, !(bw > lowPassBandwidths[index]) { index += 1 }
        index = max(index - 1, 0)
        reg0B |= UInt8(15 - index)
        realBandwidth += lowPassBandwidths[index]
        intermediate -= realBandwidth / 2
        return (0x00, reg0B, intermediate)
    }

    /// Reverses the bits of a byte: R82xx registers come back over I2C LSB first.
    public static func bitReversed(_ byte: UInt8) -> UInt8 {
        var value = byte
        var result: UInt8 = 0
        for _ in 0..<8 {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }
}
