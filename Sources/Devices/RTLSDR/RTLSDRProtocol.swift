import USBDriver

/// RTL2832U's USB register interface as librtlsdr uses it (osmocom/rtl-sdr
/// src/librtlsdr.c, release 0.6.0; facts in Firmware-Notes/rtlsdr.md).
///
/// Every access is a vendor control transfer with bRequest 0: wValue is the
/// register address, wIndex selects the block (`block << 8`), +0x10 for a
/// write. Demodulator registers instead use wValue = `(reg << 8) | 0x20` and
/// wIndex = page (+0x10 for a write). Multi-byte values are big-endian.
public enum RTLSDRProtocol {
    /// Realtek's vendor id
    public static let vendorID: UInt16 = 0x0bda
    /// "Generic RTL2832U OEM", the id almost every RTL-SDR dongle carries
    public static let productID: UInt16 = 0x2838
    /// ids librtlsdr's known_devices table opens as RTL2832U dongles (a subset:
    /// the Realtek ids and the common rebadged ones); `tscope devices` lists these
    public static let knownIDs: [(vendorID: UInt16, productID: UInt16)] = [
        (0x0bda, 0x2832), (0x0bda, 0x2838), (0x0ccd, 0x00a9), (0x0ccd, 0x00b3), (0x0ccd, 0x00d3),
        (0x0ccd, 0x00d7), (0x0ccd, 0x00e0), (0x1554, 0x5020), (0x15f4, 0x0131), (0x185b, 0x0620),
        (0x185b, 0x0650), (0x1b80, 0xd393), (0x1b80, 0xd394), (0x1b80, 0xd395), (0x1b80, 0xd39d),
        (0x1d19, 0x1101), (0x1d19, 0x1102), (0x1d19, 0x1103), (0x1f4d, 0xb803), (0x1f4d, 0xc803),
        (0x1f4d, 0xd803),
    ]

    /// control transfer timeout [ms] (librtlsdr CTRL_TIMEOUT)
    public static let controlTimeoutMS: UInt32 = 300
    /// bulk IN endpoint carrying interleaved u8 I/Q
    public static let bulkInEndpoint: UInt8 = 0x81
    /// crystal of the RTL2832U [Hz] (DEF_RTL_XTAL_FREQ); the R820T shares it
    public static let crystalHz: UInt32 = 28_800_000
    /// R828D boards carry their own 16 MHz crystal (R828D_XTAL_FREQ)
    public static let r828dCrystalHz: UInt32 = 16_000_000
    /// IF the R82xx tuners deliver in librtlsdr's 6 MHz mode [Hz] (R82XX_IF_FREQ)
    public static let r82xxIntermediateHz: UInt32 = 3_570_000

    /// sample rates the resampler accepts [Hz] (rtlsdr_set_sample_rate):
    /// 225 001…300 000 and 900 001…3 200 000
    public static func isSupportedSampleRate(_ hz: UInt32) -> Bool {
        (225_001...300_000).contains(hz) || (900_001...3_200_000).contains(hz)
    }

    /// The resampler ratio for `hz`: xtal·2²² / fs, low two bits cleared, as
    /// written to demod page 1 registers 0x9f (high 16 bits) and 0xa1 (low).
    public static func resamplerRatio(sampleRateHz hz: UInt32, crystalHz: UInt32 = crystalHz) -> UInt32 {
        let ratio = UInt64(crystalHz) << 22 / UInt64(hz)
        return UInt32(truncatingIfNeeded: ratio) & 0x0fff_fffc
    }

    /// The rate a ratio really gives [Hz]: bit 27 is mirrored into bit 28
    /// before dividing, as librtlsdr computes `real_rate`.
    public static func sampleRate(resamplerRatio ratio: UInt32, crystalHz: UInt32 = crystalHz) -> Double {
        let real = ratio | ((ratio & 0x0800_0000) << 1)
        guard real > 0 else { return 0 }
        return Double(UInt64(crystalHz) << 22) / Double(real)
    }

    /// The 22-bit IF register value for `hz` (page 1, 0x19…0x1b):
    /// −(hz·2²² / xtal), masked to 22 bits (rtlsdr_set_if_freq).
    public static func intermediateFrequencyWord(hz: UInt32, crystalHz: UInt32 = crystalHz) -> UInt32 {
        let magnitude = Int64((Double(hz) * 4_194_304.0 / Double(crystalHz)).rounded(.towardZero))
        return UInt32(truncatingIfNeeded: -magnitude) & 0x3f_ffff
    }
}

/// Register blocks of the RTL2832U (wIndex high byte).
public enum RTLSDRBlock: UInt8, Sendable {
    case demod = 0, usb = 1, sys = 2, tuner = 3, rom = 4, ir = 5, i2c = 6
}

/// USB-block registers librtlsdr writes.
public enum RTLSDRUSBRegister {
    public static let sysctl: UInt16 = 0x2000
    /// endpoint A control: 0x1002 stalls and flushes the FIFO, 0x0000 runs
    public static let epaControl: UInt16 = 0x2148
    public static let epaMaxPacket: UInt16 = 0x2158
}

/// SYS-block registers librtlsdr writes.
public enum RTLSDRSysRegister {
    public static let demodControl: UInt16 = 0x3000
    public static let gpo: UInt16 = 0x3001
    public static let gpoe: UInt16 = 0x3003
    public static let gpd: UInt16 = 0x3004
    public static let demodControl1: UInt16 = 0x300b
}

/// Demodulator values with a meaning the driver and emulator share.
public enum RTLSDRDemod {
    /// page 1 reg 0x01: I2C repeater on (tuner reachable) / off; 0x14 = soft reset
    public static let repeaterOn: UInt8 = 0x18
    public static let repeaterOff: UInt8 = 0x10
    public static let softReset: UInt8 = 0x14
    /// page 0 reg 0x19: SDR mode with the demod's digital AGC off / on
    public static let agcOff: UInt8 = 0x05
    public static let agcOn: UInt8 = 0x25
    /// page 0x0a reg 0x01: the dummy read after every demod write
    public static let dummyReadPage: UInt8 = 0x0a
}

/// USB_EPA_CTL values of the reset-buffer step.
public enum RTLSDREndpointControl {
    public static let stallAndFlush: UInt16 = 0x1002
    public static let run: UInt16 = 0x0000
}

extension ControlSetup {
    /// A write to a USB/SYS/I2C/... block register.
    static func rtlWrite(block: RTLSDRBlock, address: UInt16) -> ControlSetup {
        ControlSetup(requestType: .vendorOut, request: 0, value: address, index: UInt16(block.rawValue) << 8 | 0x10)
    }

    /// A read of a USB/SYS/I2C/... block register.
    static func rtlRead(block: RTLSDRBlock, address: UInt16) -> ControlSetup {
        ControlSetup(requestType: .vendorIn, request: 0, value: address, index: UInt16(block.rawValue) << 8)
    }

    /// A write to demodulator register `register` of `page`.
    static func demodWrite(page: UInt8, register: UInt8) -> ControlSetup {
        ControlSetup(requestType: .vendorOut, request: 0, value: UInt16(register) << 8 | 0x20, index: 0x10 | UInt16(page))
    }

    /// A read of demodulator register `register` of `page`.
    static func demodRead(page: UInt8, register: UInt8) -> ControlSetup {
        ControlSetup(requestType: .vendorIn, request: 0, value: UInt16(register) << 8 | 0x20, index: UInt16(page))
    }
}
