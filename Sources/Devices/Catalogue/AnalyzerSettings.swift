import DSP
import Signals

/// The analyzer's own settings a command gives (`--lna-gain`, `--gain` …):
/// each nil until given, so a setting for another kind of analyzer can be
/// named and refused, and the kind's default used otherwise. One path sets
/// them on every command; the status line, recordings and `meter --json`
/// show the same `summary`.
public struct AnalyzerSettings: Sendable, Equatable {
    /// HackRF LNA (IF) gain [dB]: 0–40 in 8 dB steps (default 16, as hackrf_sweep)
    public var lnaGainDB: Int?
    /// HackRF VGA (baseband) gain [dB]: 0–62 in 2 dB steps (default 20, as hackrf_sweep)
    public var vgaGainDB: Int?
    /// HackRF RF amplifier (default off)
    public var amplifier: Bool?
    /// HackRF antenna port power (default off)
    public var antennaPower: Bool?
    /// RTL-SDR tuner gain (default automatic)
    public var tunerGain: RTLSDRGain?
    /// RTL-SDR crystal error corrected for [ppm] (default 0)
    public var frequencyCorrectionPPM: Int?
    /// RTL-SDR bias tee (default: left as it is)
    public var biasTee: Bool?
    /// tinySA resolution bandwidth and attenuation (default: the unit's own, automatic)
    public var tinySA = TinySASettings()

    public init(lnaGainDB: Int? = nil, vgaGainDB: Int? = nil, amplifier: Bool? = nil, antennaPower: Bool? = nil,
                tunerGain: RTLSDRGain? = nil, frequencyCorrectionPPM: Int? = nil, biasTee: Bool? = nil,
                tinySA: TinySASettings = .init()) {
        self.frequencyCorrectionPPM = frequencyCorrectionPPM
        self.biasTee = biasTee
        self.tinySA = tinySA
        self.lnaGainDB = lnaGainDB
        self.vgaGainDB = vgaGainDB
        self.amplifier = amplifier
        self.antennaPower = antennaPower
        self.tunerGain = tunerGain
    }

    /// the HackRF's RF amplifier gain when on [dB]: nominally 14 dB, as
    /// gr-osmosdr and SoapyHackRF give its "AMP" gain element (0 or 14)
    public static let hackRFAmplifierDB = 14

    /// whether any setting was given
    public var isEmpty: Bool { self == AnalyzerSettings() }

    /// The options given that `kind` does not have, by their option names.
    public func foreignOptions(for kind: AnalyzerKind) -> [String] {
        var hackRF: [String] = []
        if lnaGainDB != nil { hackRF.append("--lna-gain") }
        if vgaGainDB != nil { hackRF.append("--vga-gain") }
        if amplifier != nil { hackRF.append("--amp") }
        if antennaPower != nil { hackRF.append("--antenna-power") }
        var rtlsdr = tunerGain != nil ? ["--gain"] : []
        if frequencyCorrectionPPM != nil { rtlsdr.append("--ppm") }
        if biasTee != nil { rtlsdr.append("--bias-tee") }
        var tinySA: [String] = []
        if self.tinySA.rbw != nil { tinySA.append("--rbw") }
        if self.tinySA.attenuation != nil { tinySA.append("--attenuation") }
        switch kind {
        case .hackrf: return rtlsdr + tinySA
        case .rtlsdr: return hackRF + tinySA
        case .tinysa: return hackRF + rtlsdr
        case .rfexplorer: return hackRF + rtlsdr + tinySA
        }
    }

    /// "--lna-gain is a HackRF setting: the tinySA has none of it" — nil when all fit.
    public func problem(for kind: AnalyzerKind) -> String? {
        let foreign = foreignOptions(for: kind)
        guard let first = foreign.first else { return nil }
        let owner = ["--gain", "--ppm", "--bias-tee"].contains(first) ? "an RTL-SDR" : ["--rbw", "--attenuation"].contains(first) ? "a tinySA" : "a HackRF"
        let offered = kind.settingOptions.isEmpty ? "it has no settings of its own"
            : "its settings are \(kind.settingOptions.joined(separator: ", "))"
        return "\(first) is \(owner) setting; the \(kind.model) does not take it (\(offered))"
    }

    /// HackRF gains as the sweep source takes them (defaults where not given)
    public var hackRFGains: HackRFGains {
        (try? HackRFGains(lnaDB: lnaGainDB ?? HackRFGains.sweepDefaults.lnaDB,
                          vgaDB: vgaGainDB ?? HackRFGains.sweepDefaults.vgaDB)) ?? .sweepDefaults
    }

    /// The HackRF source's settings with `detector`.
    public func hackRF(detector: SpectrumDetector) -> HackRFSpectrumSource.Settings {
        HackRFSpectrumSource.Settings(gains: hackRFGains, ampEnabled: amplifier ?? false,
                                      antennaPower: antennaPower ?? false, detector: detector)
    }

    /// The analyzer's total gain at these settings [dB], by its nominal gain
    /// steps; nil where it is not fixed (an RTL-SDR on automatic gain) and
    /// 0 where levels are the analyzer's own dBm (tinySA, RF Explorer).
    public func totalGainDB(for kind: AnalyzerKind) -> Double? {
        switch kind {
        case .hackrf:
            let gains = hackRFGains
            return Double(gains.lnaDB + gains.vgaDB + ((amplifier ?? false) ? Self.hackRFAmplifierDB : 0))
        case .rtlsdr:
            if case .manual(let tenths) = tunerGain ?? .automatic { return Double(tenths) / 10 }
            return nil
        case .tinysa, .rfexplorer:
            return 0
        }
    }

    /// What the analyzer runs at, for the status line, recordings and
    /// JSON: "LNA 16 dB, VGA 20 dB, amp off" (", antenna power on" when it is),
    /// "gain 29.7 dB", "gain auto"; "" for analyzers with no settings here.
    public func summary(for kind: AnalyzerKind) -> String {
        switch kind {
        case .hackrf:
            let gains = hackRFGains
            return "LNA \(gains.lnaDB) dB, VGA \(gains.vgaDB) dB, amp \((amplifier ?? false) ? "on" : "off")"
                + ((antennaPower ?? false) ? ", antenna power on" : "")
        case .rtlsdr:
            var text = "gain auto"
            if case .manual(let tenths) = tunerGain ?? .automatic { text = "gain \(tenths / 10).\(tenths % 10) dB" }
            if let ppm = frequencyCorrectionPPM, ppm != 0 { text += ", \(ppm) ppm" }
            if let biasTee { text += ", bias tee \(biasTee ? "on" : "off")" }
            return text
        case .tinysa:
            var parts: [String] = []
            switch tinySA.rbw {
            case .fixed(let kHz)?: parts.append("RBW \(TinySASettings.text(kHz)) kHz")
            case .automatic?: parts.append("RBW auto")
            case nil: break
            }
            switch tinySA.attenuation {
            case .fixed(let dB)?: parts.append("attenuation \(dB) dB")
            case .automatic?: parts.append("attenuation auto")
            case nil: break
            }
            return parts.joined(separator: ", ")
        case .rfexplorer:
            return ""
        }
    }

    /// The same as `key=value` pairs for machine-readable outputs ("lna_gain_db" → "16").
    public func fields(for kind: AnalyzerKind) -> [(key: String, value: String)] {
        switch kind {
        case .hackrf:
            let gains = hackRFGains
            return [("lna_gain_db", "\(gains.lnaDB)"), ("vga_gain_db", "\(gains.vgaDB)"),
                    ("amp", (amplifier ?? false) ? "on" : "off"), ("antenna_power", (antennaPower ?? false) ? "on" : "off")]
        case .rtlsdr:
            var fields: [(key: String, value: String)] = [("gain_db", "auto")]
            if case .manual(let tenths) = tunerGain ?? .automatic { fields = [("gain_db", "\(tenths / 10).\(tenths % 10)")] }
            fields.append(("ppm", "\(frequencyCorrectionPPM ?? 0)"))
            if let biasTee { fields.append(("bias_tee", biasTee ? "on" : "off")) }
            return fields
        case .tinysa:
            var fields: [(key: String, value: String)] = []
            switch tinySA.rbw {
            case .fixed(let kHz)?: fields.append(("rbw_khz", TinySASettings.text(kHz)))
            case .automatic?: fields.append(("rbw_khz", "auto"))
            case nil: break
            }
            switch tinySA.attenuation {
            case .fixed(let dB)?: fields.append(("attenuation_db", "\(dB)"))
            case .automatic?: fields.append(("attenuation_db", "auto"))
            case nil: break
            }
            return fields
        case .rfexplorer:
            return []
        }
    }
}

extension AnalyzerKind {
    /// the settings options the kind takes, for messages
    public var settingOptions: [String] {
        switch self {
        case .hackrf: return ["--lna-gain", "--vga-gain", "--amp", "--antenna-power"]
        case .rtlsdr: return ["--gain", "--ppm", "--bias-tee"]
        case .tinysa: return ["--rbw", "--attenuation"]
        case .rfexplorer: return []
        }
    }
}

/// A setting's value that is out of range or of the wrong form: "--lna-gain 17: the HackRF's LNA takes 0, 8, 16, 24, 32 or 40 dB".
public struct AnalyzerSettingError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension AnalyzerSettings {
    /// every setting by its option name (without the dashes)
    public static let optionNames = ["lna-gain", "vga-gain", "amp", "antenna-power", "gain", "ppm", "bias-tee", "rbw",
                                     "attenuation"]

    /// Sets one setting from its option name ("lna-gain") and its value as
    /// typed ("24"): the one parser behind the command line and a remote
    /// viewer's request. A bad value names what is allowed.
    public mutating func set(_ option: String, to text: String) throws(AnalyzerSettingError) {
        func onOff() throws(AnalyzerSettingError) -> Bool {
            switch text {
            case "on": return true
            case "off": return false
            default: throw AnalyzerSettingError("--\(option) \(text): expected on or off")
            }
        }
        switch option {
        case "lna-gain":
            guard let dB = Int(text), (0...40).contains(dB), dB % 8 == 0 else {
                throw AnalyzerSettingError("--lna-gain \(text): the HackRF's LNA takes 0, 8, 16, 24, 32 or 40 dB")
            }
            lnaGainDB = dB
        case "vga-gain":
            guard let dB = Int(text), (0...62).contains(dB), dB % 2 == 0 else {
                throw AnalyzerSettingError("--vga-gain \(text): the HackRF's VGA takes 0–62 dB in 2 dB steps (0, 2, 4 … 62)")
            }
            vgaGainDB = dB
        case "amp": amplifier = try onOff()
        case "antenna-power": antennaPower = try onOff()
        case "bias-tee": biasTee = try onOff()
        case "gain":
            if text == "auto" {
                tunerGain = .automatic
                return
            }
            let steps = R82XXTables.gainTable
            let top = Double(steps.last ?? 0) / 10
            guard let dB = Double(text), dB.isFinite, dB >= 0, dB <= top + 0.5 else {
                throw AnalyzerSettingError("--gain \(text): the RTL-SDR's tuner takes auto or 0–\(top) dB "
                    + "(steps: \(steps.map { "\(Double($0) / 10)" }.joined(separator: ", ")))")
            }
            tunerGain = RTLSDRGain.nearest(dB: dB)
        case "ppm":
            guard let ppm = Int(text), (-1000...1000).contains(ppm) else {
                throw AnalyzerSettingError("--ppm \(text): expected a crystal error between -1000 and 1000 ppm")
            }
            frequencyCorrectionPPM = ppm
        case "rbw":
            if text == "auto" {
                tinySA.rbw = .automatic
            } else if let kHz = Double(text), TinySASettings.rbwRangeKHz.contains(kHz) {
                tinySA.rbw = .fixed(kHz)
            } else {
                throw AnalyzerSettingError("--rbw \(text): the tinySA takes auto or 0.2–850 kHz "
                    + "(the basic's filters 3.1–620.7 kHz, the Ultra's 0.2, 1, 3, 10, 30, 100, 300, 600, 850)")
            }
        case "attenuation":
            if text == "auto" {
                tinySA.attenuation = .automatic
            } else if let dB = Int(text), TinySASettings.attenuationRange.contains(dB) {
                tinySA.attenuation = .fixed(dB)
            } else {
                throw AnalyzerSettingError("--attenuation \(text): the tinySA takes auto or 0–31 dB in 1 dB steps")
            }
        default:
            throw AnalyzerSettingError("\(option): not a setting; the settings are "
                + Self.optionNames.map { "--\($0)" }.joined(separator: ", "))
        }
    }

    /// The settings given, by option name and value as `set` takes them
    /// (what a remote viewer sends the sensor).
    public var given: [String: String] {
        var given: [String: String] = [:]
        if let lnaGainDB { given["lna-gain"] = "\(lnaGainDB)" }
        if let vgaGainDB { given["vga-gain"] = "\(vgaGainDB)" }
        if let amplifier { given["amp"] = amplifier ? "on" : "off" }
        if let antennaPower { given["antenna-power"] = antennaPower ? "on" : "off" }
        if let biasTee { given["bias-tee"] = biasTee ? "on" : "off" }
        switch tunerGain {
        case .automatic?: given["gain"] = "auto"
        case .manual(let tenths)?: given["gain"] = "\(Double(tenths) / 10)"
        case nil: break
        }
        if let frequencyCorrectionPPM { given["ppm"] = "\(frequencyCorrectionPPM)" }
        switch tinySA.rbw {
        case .automatic?: given["rbw"] = "auto"
        case .fixed(let kHz)?: given["rbw"] = TinySASettings.text(kHz)
        case nil: break
        }
        switch tinySA.attenuation {
        case .automatic?: given["attenuation"] = "auto"
        case .fixed(let dB)?: given["attenuation"] = "\(dB)"
        case nil: break
        }
        return given
    }

    /// `given` applied over these settings (a viewer's change to a running sensor).
    public func updated(with changes: [String: String]) throws(AnalyzerSettingError) -> AnalyzerSettings {
        var settings = self
        for option in changes.keys.sorted() { try settings.set(option, to: changes[option] ?? "") }
        return settings
    }
}
