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
