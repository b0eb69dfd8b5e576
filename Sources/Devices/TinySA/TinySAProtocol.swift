import Signals
import USBDriver

/// The tinySA's USB face: a CDC-ACM serial port (ChibiOS) carrying a text
/// shell. Facts and sources: Firmware-Notes/tinysa.md.
public enum TinySAProtocol {
    /// STMicroelectronics virtual COM port ids, shared by the basic unit and
    /// the Ultra (and by other STM32 CDC devices: identify with `version`)
    public static let vendorID: UInt16 = 0x0483
    public static let productID: UInt16 = 0x5740

    /// CDC communication interface (the class requests name it in wIndex)
    public static let controlInterface: UInt16 = 0
    /// CDC data interface: the bulk endpoints are its own, so it is claimed too
    public static let dataInterface: UInt16 = 1
    /// bulk endpoints of the CDC data interface (ChibiOS usbcfg.c: data endpoint 1)
    public static let bulkInEndpoint: UInt8 = 0x81
    public static let bulkOutEndpoint: UInt8 = 0x01

    /// CDC PSTN subclass 1.2, section 6.3: class requests to the interface
    public static let setLineCoding: UInt8 = 0x20
    public static let setControlLineState: UInt8 = 0x22
    /// SET_CONTROL_LINE_STATE wValue: DTR (bit 0) and RTS (bit 1) on
    public static let dtrAndRTS: UInt16 = 0x0003
    /// the CDC bit rate the host announces; the USB link ignores it [bit/s]
    public static let lineBitRate: UInt32 = 115_200

    /// commands end with a carriage return; the shell echoes the line,
    /// answers, and ends every reply with this prompt
    public static let commandTerminator: UInt8 = 0x0d
    public static let prompt: [UInt8] = Array("ch> ".utf8)

    /// `scanraw` reply framing: `{`, then per point `x` + int16 LE, then `}`
    public static let scanOpen: UInt8 = UInt8(ascii: "{")
    public static let scanPointMarker: UInt8 = UInt8(ascii: "x")
    public static let scanClose: UInt8 = UInt8(ascii: "}")
    /// a scanraw value is 32 × (dBm + zero level)
    public static let rawUnitsPerDB: Float = 32

    /// control transfer timeout [ms]
    public static let controlTimeoutMS: UInt32 = 500
    /// bulk OUT timeout for a command line [ms]
    public static let writeTimeoutMS: UInt32 = 500

    /// 7-byte CDC line coding: rate u32 LE, 1 stop bit, no parity, 8 data bits
    public static var lineCoding: [UInt8] {
        let rate = lineBitRate
        return [UInt8(rate & 0xff), UInt8((rate >> 8) & 0xff), UInt8((rate >> 16) & 0xff), UInt8(rate >> 24), 0, 0, 8]
    }

    /// `scanraw start stop points` + CR
    public static func scanCommand(startHz: UInt64, stopHz: UInt64, points: Int) -> [UInt8] {
        command("scanraw \(startHz) \(stopHz) \(points)")
    }

    /// a command line + CR
    public static func command(_ line: String) -> [UInt8] {
        Array(line.utf8) + [commandTerminator]
    }

    /// what the firmware prints once when the USB link comes up, before it
    /// reads the first line (main.c: the shell loop's `"\r\ntinySA Shell\r\n"`
    /// and the prompt)
    public static let banner: [UInt8] = Array("\r\ntinySA Shell\r\nch> ".utf8)
    /// the shell's line buffer (main.c VNA_SHELL_MAX_LENGTH = 48 with the
    /// terminating NUL): longer lines lose their extra characters [bytes]
    public static let maxLineLength = 47
}

/// A tinySA's RF path: the basic's LOW and HIGH connectors; the Ultra's
/// normal path and its ultra mode (`ultra on`) above it.
public enum TinySAInput: String, Sendable, Equatable {
    case low, high, ultra
}

/// The two tinySA models: they differ in the scanraw zero level, the number
/// of points a sweep may have and the frequency range.
public enum TinySAModel: String, Sendable, Equatable, CaseIterable {
    case basic
    case ultra

    /// scanraw raw/32 − zeroLevel = dBm (firmware: float_TO_PURE_RSSI(ext_zero_level))
    public var zeroLevelDB: Float { self == .basic ? 128 : 174 }
    /// most points one sweep may have (firmware POINTS_COUNT)
    public var maxPoints: Int { self == .basic ? 290 : 450 }
    /// what the analyzer tunes [Hz]: basic 0.1–959 MHz (low and high input),
    /// Ultra 0.1 MHz–6 GHz (ultra mode)
    public var tunableLowerHz: Double { 100_000 }
    public var tunableUpperHz: Double { self == .basic ? 959e6 : 6_000e6 }

    /// The inputs the model measures through, in order of preference.
    public var inputs: [TinySAInput] { self == .basic ? [.low, .high] : [.low, .ultra] }

    /// The band `input` receives [Hz] (erikkaashoek/tinySA nanovna.h and
    /// sa_core.c `update_min_max_freq`). Basic: low input to 350 MHz
    /// (DEFAULT_MAX_FREQ), high input 240–959 MHz (HIGH_MIN/MAX_FREQ_MHZ,
    /// selected with `mode high input`). Ultra: without `ultra on` up to
    /// 800 MHz (main.c NORMAL_MAX_FREQ on boards without the second IF;
    /// 900 MHz on those with it), with it to 6 GHz (tinysa.org's ultra-mode
    /// limit; harmonic mixing above ULTRA_MAX_FREQ ≈ 5.3 GHz).
    public func range(of input: TinySAInput) -> ClosedRange<Double> {
        switch (self, input) {
        case (.basic, .low): return tunableLowerHz...350e6
        case (.basic, _): return 240e6...959e6
        case (.ultra, .low): return tunableLowerHz...800e6
        case (.ultra, _): return tunableLowerHz...6_000e6
        }
    }

    /// The command lines that select `input` (sa_cmd.c `cmd_mode`: the
    /// basic takes `mode low|high input|output`, the Ultra `mode [low]
    /// input|output`; `cmd_ultra`: `ultra on|off`).
    public func commands(selecting input: TinySAInput) -> [String] {
        switch (self, input) {
        case (.basic, .low): return ["mode low input"]
        case (.basic, _): return ["mode high input"]
        case (.ultra, .low): return ["mode low input"]
        case (.ultra, _): return ["mode low input", "ultra on"]
        }
    }

    /// The input to measure `band` through and the part of it that input
    /// receives: the first input that holds the whole band, else the one
    /// that holds most of it (the band is then clipped); nil when none
    /// receives any of it.
    public func input(for band: FrequencyRange) -> (input: TinySAInput, band: FrequencyRange)? {
        var best: (input: TinySAInput, band: FrequencyRange)?
        for input in inputs {
            let range = range(of: input)
            guard let clipped = FrequencyRange(lowerHz: max(band.lowerHz, range.lowerBound),
                                               upperHz: min(band.upperHz, range.upperBound)) else { continue }
            if clipped == band { return (input, band) }
            if best.map({ clipped.spanHz > $0.band.spanHz }) ?? true { best = (input, clipped) }
        }
        return best
    }
    public var displayName: String { self == .basic ? "tinySA" : "tinySA Ultra" }

    /// The resolution bandwidth the firmware picks in auto mode for a sweep
    /// step [Hz] (sa_core.c `update_rbw`, normal speed): twice the step, in
    /// 100 Hz units rounded down, clamped to the receiver's range (basic
    /// 2.6–600 kHz, Ultra 0.1–850 kHz), then the first filter at least that
    /// wide (`set_rbw`; basic: the Si4432's IF filter bandwidths, si4432.c
    /// and the Si4432 datasheet; Ultra: the Si4463 filters, si4468.c).
    public func autoRBWHz(stepHz: Double) -> Double {
        let wish = 2 * Int(max(0, stepHz) / 100)
        let filters = self == .basic ? Self.si4432FiltersX10 : Self.si4463FiltersX10
        let clamped = self == .basic ? min(max(wish, 26), 6000) : min(max(wish, 1), 8500)
        return Double(filters.first { clamped <= $0 } ?? filters[filters.count - 1]) * 100
    }

    /// The filter a fixed `rbw` request selects [Hz]: the first the receiver
    /// has at least that wide (sa_core.c `update_rbw` with rbw_x10 set), the
    /// widest beyond them.
    public func rbwFilterHz(requestedHz: Double) -> Double {
        let filters = self == .basic ? Self.si4432FiltersX10 : Self.si4463FiltersX10
        let wish = Int((requestedHz / 100).rounded(.up))
        return Double(filters.first { wish <= $0 } ?? filters[filters.count - 1]) * 100
    }

    /// filter bandwidths [100 Hz] the basic's Si4432 offers (si4432.c RBW_choices)
    static let si4432FiltersX10 = [31, 32, 37, 42, 45, 49, 54, 59, 61, 72, 82, 88, 95, 106, 115, 121, 142, 162, 175,
                                   189, 210, 227, 240, 282, 322, 347, 377, 417, 452, 479, 562, 641, 692, 752, 832, 900,
                                   953, 1121, 1279, 1379, 1428, 1678, 1811, 1915, 2251, 2488, 2693, 2849, 3355, 3618,
                                   4202, 4684, 5188, 5770, 6207]
    /// filter bandwidths [100 Hz] the Ultra's Si4463 offers (si4468.c RBW_choices)
    static let si4463FiltersX10 = [2, 10, 30, 100, 300, 1000, 3000, 6000, 8500]

    /// The model a `version` reply names: the Ultra's firmware is built as
    /// TINYSA4 and reports "tinySA4_v…", the basic unit "tinySA_v…".
    public init?(versionLine: String) {
        if versionLine.hasPrefix("tinySA4") { self = .ultra }
        else if versionLine.hasPrefix("tinySA") { self = .basic }
        else { return nil }
    }

    /// the version line the emulator answers with (the Ultra's: the real
    /// unit whose answers are in Tests/DevicesTests/Fixtures/tinysa-ultra-v1.4-143)
    public var versionLine: String { self == .basic ? "tinySA_v1.4-105-g7a1a5d4" : "tinySA4_v1.4-143-g864bb27" }

    /// the Ultra's `version` second line, trailing space included (main.c
    /// cmd_version: `HW Version:` and the board's version string; a real
    /// HW V0.4.5.1.1 board's); the basic prints none
    public var hardwareVersionLine: String? { self == .ultra ? "HW Version:V0.4.5.1.1 " : nil }

    /// `info`'s lines (main.c `info_about`, then the build's facts), as a
    /// real Ultra prints them (the fixture above); the basic's board line
    /// and copyright years are the firmware's for that build (not captured)
    public var infoLines: [String] {
        [self == .ultra ? "tinySA ULTRA" : "tinySA",
         self == .ultra ? "2019-2024 Copyright @Erik Kaashoek" : "2019-2023 Copyright @Erik Kaashoek",
         "2016-2020 Copyright @edy555",
         "SW licensed under GPL. See: https://github.com/erikkaashoek/tinySA",
         "Version: \(versionLine)",
         "Build Time: Jan 10 2024 - 11:14:08",
         "Kernel: 4.0.0",
         "Compiler: GCC 7.2.1 20170904 (release) [ARM/embedded-7-branch revision 255204]",
         "Architecture: ARMv7E-M Core Variant: Cortex-M4F",
         "Port Info: Advanced kernel mode",
         self == .ultra ? "Platform: STM32F303xC Analog & DSP" : "Platform: STM32F072xB Entry Level Medium Density devices"]
    }

    /// the sweep a unit shows at power-on, which `frequencies` lists [Hz,
    /// points]: the low input's band over the model's points (a real Ultra
    /// set to 0–2.6 GHz listed that: the sweep is the user's)
    public var powerOnSweep: (startHz: UInt64, stopHz: UInt64, points: Int) {
        self == .basic ? (0, 350_000_000, 290) : (0, 800_000_000, 450)
    }
}
