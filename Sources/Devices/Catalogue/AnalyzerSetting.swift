import DSP
import Signals

/// One analyzer setting as a key: its option name, its help, its one parser
/// and how it reads back. The command line (`AnalyzerSettingsOptions`), a
/// remote viewer's request to a sensor (`AnalyzerSettings.given`/`set`), the
/// messages refusing a setting another family owns, and each family's list of
/// what it takes (`AnalyzerSettingsDescription.settings`) all use these keys,
/// so a setting's name and rules are written here once.
public struct AnalyzerSetting: Sendable, Hashable, CustomStringConvertible {
    /// the option name without dashes ("lna-gain"), also the key a remote viewer sends
    public let name: String
    /// the command line's help for it
    public let help: String
    /// how help names its value ("dB", "on|off")
    public let valueName: String
    /// reads a value as typed into the settings; a bad value names what is allowed
    let parse: @Sendable (inout AnalyzerSettings, String) throws(AnalyzerSettingError) -> Void
    /// the value given, as `parse` takes it back; nil when not given
    let readBack: @Sendable (AnalyzerSettings) -> String?

    init(_ name: String, help: String, valueName: String,
         parse: @escaping @Sendable (inout AnalyzerSettings, String) throws(AnalyzerSettingError) -> Void,
         readBack: @escaping @Sendable (AnalyzerSettings) -> String?) {
        self.name = name
        self.help = help
        self.valueName = valueName
        self.parse = parse
        self.readBack = readBack
    }

    /// "--lna-gain"
    public var option: String { "--\(name)" }
    public var description: String { option }
    public static func == (a: AnalyzerSetting, b: AnalyzerSetting) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The setting named `name` ("lna-gain"); nil for none.
    public init?(named name: String) {
        guard let setting = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = setting
    }

    /// every setting, in the order messages and a remote request list them
    public static let allCases: [AnalyzerSetting] = [
        .lnaGain, .vgaGain, .amp, .antennaPower, .gain, .ppm, .biasTee, .rbw, .attenuation, .antenna, .sampleRate,
    ]

    /// "on" or "off"
    static func onOff(_ name: String, _ text: String) throws(AnalyzerSettingError) -> Bool {
        switch text {
        case "on": return true
        case "off": return false
        default: throw AnalyzerSettingError("--\(name) \(text): expected on or off")
        }
    }

    static func onOffText(_ value: Bool?) -> String? { value.map { $0 ? "on" : "off" } }
}

// MARK: the HackRF's

extension AnalyzerSetting {
    /// HackRF LNA (IF) gain [dB]
    public static let lnaGain = AnalyzerSetting(
        "lna-gain", help: "HackRF: LNA (IF) gain, 0–40 dB in 8 dB steps (default 16).", valueName: "dB",
        parse: { settings, text throws(AnalyzerSettingError) in
            guard let dB = Int(text), (0...40).contains(dB), dB % 8 == 0 else {
                throw AnalyzerSettingError("--lna-gain \(text): the HackRF's LNA takes 0, 8, 16, 24, 32 or 40 dB")
            }
            settings.lnaGainDB = dB
        },
        readBack: { $0.lnaGainDB.map(String.init) })

    /// HackRF VGA (baseband) gain [dB]
    public static let vgaGain = AnalyzerSetting(
        "vga-gain", help: "HackRF: VGA (baseband) gain, 0–62 dB in 2 dB steps (default 20).", valueName: "dB",
        parse: { settings, text throws(AnalyzerSettingError) in
            guard let dB = Int(text), (0...62).contains(dB), dB % 2 == 0 else {
                throw AnalyzerSettingError("--vga-gain \(text): the HackRF's VGA takes 0–62 dB in 2 dB steps (0, 2, 4 … 62)")
            }
            settings.vgaGainDB = dB
        },
        readBack: { $0.vgaGainDB.map(String.init) })

    /// HackRF RF amplifier (+14 dB)
    public static let amp = AnalyzerSetting(
        "amp", help: "HackRF: RF amplifier (+14 dB), on or off (default off).", valueName: "on|off",
        parse: { settings, text throws(AnalyzerSettingError) in settings.amplifier = try onOff("amp", text) },
        readBack: { onOffText($0.amplifier) })

    /// HackRF antenna port power (3.3 V)
    public static let antennaPower = AnalyzerSetting(
        "antenna-power", help: "HackRF: 3.3 V on the antenna port for an active antenna, on or off (default off).",
        valueName: "on|off",
        parse: { settings, text throws(AnalyzerSettingError) in settings.antennaPower = try onOff("antenna-power", text) },
        readBack: { onOffText($0.antennaPower) })
}

// MARK: the RTL-SDR's and SoapySDR's

extension AnalyzerSetting {
    /// RTL-SDR tuner gain; a SoapySDR device's overall gain or gain elements
    public static let gain = AnalyzerSetting(
        "gain", help: "RTL-SDR: tuner gain in dB, snapped to the tuner's nearest step (0–49.6), or auto (default). "
            + "SoapySDR device: the overall gain in dB, auto, or one gain element NAME=DB (repeatable: "
            + "--gain LNA=16 --gain VGA=20; `tscope devices --probe` lists them).",
        valueName: "dB|auto|NAME=dB",
        parse: { settings, text throws(AnalyzerSettingError) in
            // a comma-separated list: auto, DB (overall; an RTL-SDR's tuner step), NAME=DB (a SoapySDR gain element)
            for part in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                try settings.setGain(part)
            }
        },
        readBack: { settings in
            var gains: [String] = []
            if let overall = settings.overallGainDB {
                gains.append(AnalyzerSettings.decimal(overall))
            } else {
                switch settings.tunerGain {
                case .automatic?: gains.append("auto")
                case .manual(let tenths)?: gains.append("\(Double(tenths) / 10)")
                case nil: break
                }
            }
            gains += settings.namedGainsDB.keys.sorted().map {
                "\($0)=\(AnalyzerSettings.decimal(settings.namedGainsDB[$0] ?? 0))"
            }
            return gains.isEmpty ? nil : gains.joined(separator: ",")
        })

    /// RTL-SDR crystal correction [ppm]
    public static let ppm = AnalyzerSetting(
        "ppm", help: "RTL-SDR: correct for a crystal this many ppm fast (rtl_sdr's -p; measure it on a known carrier).",
        valueName: "ppm",
        parse: { settings, text throws(AnalyzerSettingError) in
            guard let ppm = Int(text), (-1000...1000).contains(ppm) else {
                throw AnalyzerSettingError("--ppm \(text): expected a crystal error between -1000 and 1000 ppm")
            }
            settings.frequencyCorrectionPPM = ppm
        },
        readBack: { $0.frequencyCorrectionPPM.map(String.init) })

    /// RTL-SDR bias tee (GPIO 0)
    public static let biasTee = AnalyzerSetting(
        "bias-tee", help: "RTL-SDR: power on the antenna port (the RTL-SDR Blog V3/V4's bias tee, GPIO 0), on or off. "
            + "Like rtl_sdr -T it stays as set until the dongle is unplugged or set off.",
        valueName: "on|off",
        parse: { settings, text throws(AnalyzerSettingError) in settings.biasTee = try onOff("bias-tee", text) },
        readBack: { onOffText($0.biasTee) })

    /// a SoapySDR device's antenna port
    public static let antenna = AnalyzerSetting(
        "antenna", help: "SoapySDR device: the antenna port to receive on (default: the device's).", valueName: "name",
        parse: { settings, text throws(AnalyzerSettingError) in
            guard !text.isEmpty, !text.contains(",") else {
                throw AnalyzerSettingError("--antenna \(text): expected an antenna's name, as `tscope devices` lists it")
            }
            settings.antenna = text
        },
        readBack: { $0.antenna })

    /// a SoapySDR device's sample rate [S/s]
    public static let sampleRate = AnalyzerSetting(
        "sample-rate", help: "SoapySDR device: sample rate in S/s (2.4e6, 2.4M); default: the lowest offered ≥ 1.25 × "
            + "the band in real time (at most 20 MS/s), the highest (RTL-SDR: 2.4 MS/s) when hopping.",
        valueName: "S/s",
        parse: { settings, text throws(AnalyzerSettingError) in
            guard let rate = SampleRateText.hertz(text), rate >= 1e3, rate <= 1e10 else {
                throw AnalyzerSettingError("--sample-rate \(text): expected samples per second, e.g. 2.4e6, 2400000 or 2.4M")
            }
            settings.sampleRateHz = rate
        },
        readBack: { $0.sampleRateHz.map(AnalyzerSettings.decimal) })
}

// MARK: the tinySA's

extension AnalyzerSetting {
    /// tinySA resolution bandwidth [kHz]; on the analyzers tscope detects samples for, a CISPR 16-1-1 bandwidth
    public static let rbw = AnalyzerSetting(
        "rbw", help: "tinySA: resolution bandwidth in kHz (the unit takes the first filter at least that wide), or auto. "
            + "HackRF, RTL-SDR, SoapySDR device: cispr makes the FFT bins give CISPR 16-1-1's 6 dB bandwidth for "
            + "the band watched (A 9–150 kHz: 200 Hz, B to 30 MHz: 9 kHz, C/D to 1 GHz: 120 kHz, E above: 1 MHz; "
            + "a span over several takes the widest), or cispr-a … cispr-e names the band.",
        valueName: "kHz|auto|cispr[-a…e]",
        parse: { settings, text throws(AnalyzerSettingError) in
            if text.lowercased().hasPrefix("cispr") {
                guard let resolution = CISPRResolution(text: text) else {
                    throw AnalyzerSettingError("--rbw \(text): expected cispr (the band from the frequencies) or one of "
                        + CISPRResolution.texts.dropFirst().joined(separator: ", "))
                }
                settings.cisprResolution = resolution
            } else if text == "auto" {
                settings.tinySA.rbw = .automatic
            } else if let kHz = Double(text), TinySASettings.rbwRangeKHz.contains(kHz) {
                settings.tinySA.rbw = .fixed(kHz)
            } else {
                throw AnalyzerSettingError("--rbw \(text): the tinySA takes auto or 0.2–850 kHz "
                    + "(the basic's filters 3.1–620.7 kHz, the Ultra's 0.2, 1, 3, 10, 30, 100, 300, 600, 850)")
            }
        },
        readBack: { settings in
            if let cispr = settings.cisprResolution { return cispr.description }
            switch settings.tinySA.rbw {
            case .automatic?: return "auto"
            case .fixed(let kHz)?: return TinySASettings.text(kHz)
            case nil: return nil
            }
        })

    /// tinySA input attenuation [dB]
    public static let attenuation = AnalyzerSetting(
        "attenuation", help: "tinySA: input attenuation, 0–31 dB, or auto (levels stay corrected for it; the noise floor rises).",
        valueName: "dB|auto",
        parse: { settings, text throws(AnalyzerSettingError) in
            if text == "auto" {
                settings.tinySA.attenuation = .automatic
            } else if let dB = Int(text), TinySASettings.attenuationRange.contains(dB) {
                settings.tinySA.attenuation = .fixed(dB)
            } else {
                throw AnalyzerSettingError("--attenuation \(text): the tinySA takes auto or 0–31 dB in 1 dB steps")
            }
        },
        readBack: { settings in
            switch settings.tinySA.attenuation {
            case .automatic?: return "auto"
            case .fixed(let dB)?: return "\(dB)"
            case nil: return nil
            }
        })
}
