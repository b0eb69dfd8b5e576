import Analyzers
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
    /// `--gain DB` as typed [dB]: a SoapySDR device's overall gain (an RTL-SDR takes it as `tunerGain`)
    public var overallGainDB: Double?
    /// `--gain NAME=DB`: a SoapySDR device's gain elements by name ("LNA" → 16)
    public var namedGainsDB: [String: Double] = [:]
    /// `--antenna NAME`: a SoapySDR device's antenna port
    public var antenna: String?
    /// `--sample-rate`: a SoapySDR device's sample rate [S/s] (default: chosen for the band)
    public var sampleRateHz: Double?
    /// `--rbw cispr[-a…e]`: FFT bins for a CISPR 16-1-1 bandwidth, on an analyzer tscope detects samples for
    public var cisprResolution: CISPRResolution?

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

    /// The options given that `kind` does not have, by their option names
    /// (`--rbw cispr` belongs to every analyzer tscope detects samples for).
    public func foreignOptions(for kind: AnalyzerKind) -> [String] {
        givenSettings.filter { setting in
            if setting == .rbw, cisprResolution != nil, kind.detectsFromSamples { return false }
            return !kind.settingsDescription.settings.contains(setting)
        }.map(\.option)
    }

    /// every option given, by its option name ("--lna-gain"), in `AnalyzerSetting.allCases` order
    public var givenOptions: [String] { givenSettings.map(\.option) }

    /// every setting given, in `AnalyzerSetting.allCases` order
    public var givenSettings: [AnalyzerSetting] { AnalyzerSetting.allCases.filter { $0.readBack(self) != nil } }

    /// "--lna-gain is a HackRF setting: the tinySA has none of it" — nil when all fit.
    public func problem(for kind: AnalyzerKind) -> String? {
        if let cispr = cisprResolution, !kind.detectsFromSamples {
            return "--rbw \(cispr): the \(kind.model) filters and detects on the device; CISPR bandwidths are made "
                + "as FFT bins on the analyzers tscope detects samples for (HackRF, RTL-SDR, SoapySDR)"
                + (kind.settingsDescription.settings.contains(.rbw) ? " (give its own --rbw in kHz)" : "")
        }
        if let problem = kind.settingsDescription.validate(self) { return problem }
        let foreign = foreignOptions(for: kind)
        guard let first = foreign.first else { return nil }
        let owner = (AnalyzerKind.allCases + [.soapy]).first { $0.settingOptions.contains(first) }?
            .settingsDescription.ownerName ?? "another analyzer's"
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
    public func totalGainDB(for kind: AnalyzerKind) -> Double? { kind.settingsDescription.totalGainDB(self) }

    /// What the analyzer runs at, for the status line, recordings and
    /// JSON: "LNA 16 dB, VGA 20 dB, amp off" (", antenna power on" when it is),
    /// "gain 29.7 dB", "gain auto"; "" for analyzers with no settings here.
    public func summary(for kind: AnalyzerKind) -> String {
        let own = kind.settingsDescription.summary(self)
        guard let cispr = cisprResolution, kind.detectsFromSamples else { return own }
        // the bins' own width is on the status line and in every frame; this says why
        return (own.isEmpty ? "" : own + ", ") + "RBW \(cispr)"
    }

    /// The same as `key=value` pairs for machine-readable outputs ("lna_gain_db" → "16").
    public func fields(for kind: AnalyzerKind) -> [(key: String, value: String)] { kind.settingsDescription.fields(self) }
}

extension AnalyzerKind {
    /// the settings options the kind takes, for messages
    public var settingOptions: [String] { settingsDescription.options }
}

/// A setting's value that is out of range or of the wrong form: "--lna-gain 17: the HackRF's LNA takes 0, 8, 16, 24, 32 or 40 dB".
public struct AnalyzerSettingError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension AnalyzerSettings {
    /// every setting by its option name (without the dashes), in `AnalyzerSetting.allCases` order
    public static var optionNames: [String] { AnalyzerSetting.allCases.map(\.name) }

    /// Sets one setting from its option name ("lna-gain") and its value as
    /// typed ("24"): the one parser behind the command line and a remote
    /// viewer's request (each `AnalyzerSetting`'s own). A bad value names what is allowed.
    public mutating func set(_ option: String, to text: String) throws(AnalyzerSettingError) {
        guard let setting = AnalyzerSetting(named: option) else {
            throw AnalyzerSettingError("\(option): not a setting; the settings are "
                + AnalyzerSetting.allCases.map(\.option).joined(separator: ", "))
        }
        try set(setting, to: text)
    }

    /// Sets `setting` from its value as typed.
    public mutating func set(_ setting: AnalyzerSetting, to text: String) throws(AnalyzerSettingError) {
        try setting.parse(&self, text)
    }

    /// The settings given, by option name and value as `set` takes them
    /// (what a remote viewer sends the sensor).
    public var given: [String: String] {
        Dictionary(uniqueKeysWithValues: AnalyzerSetting.allCases.compactMap { setting in
            setting.readBack(self).map { (setting.name, $0) }
        })
    }

    /// `given` applied over these settings (a viewer's change to a running sensor).
    public func updated(with changes: [String: String]) throws(AnalyzerSettingError) -> AnalyzerSettings {
        var settings = self
        for option in changes.keys.sorted() { try settings.set(option, to: changes[option] ?? "") }
        return settings
    }
}

extension AnalyzerSettings {
    /// One `--gain` value: auto, a number of dB, or NAME=DB.
    mutating func setGain(_ text: String) throws(AnalyzerSettingError) {
        if text == "auto" {
            tunerGain = .automatic
            return
        }
        if let equals = text.firstIndex(of: "=") {
            let name = String(text[..<equals]), value = String(text[text.index(after: equals)...])
            guard !name.isEmpty, let dB = Double(value), dB.isFinite else {
                throw AnalyzerSettingError("--gain \(text): expected NAME=DB (a gain element of a SoapySDR device, "
                    + "e.g. LNA=16), a number of dB, or auto")
            }
            namedGainsDB[name] = dB
            return
        }
        guard let dB = Double(text), dB.isFinite, dB >= 0 else {
            throw AnalyzerSettingError("--gain \(text): expected a number of dB ≥ 0, auto, or NAME=DB")
        }
        overallGainDB = dB
        // an RTL-SDR's tuner takes the nearest of its steps; beyond them the RTL-SDR refuses it when chosen
        let top = Double(R82XXTables.gainTable.last ?? 0) / 10
        tunerGain = dB <= top + 0.5 ? RTLSDRGain.nearest(dB: dB) : nil
    }

    /// "16", "29.7", "2400000"
    static func decimal(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Why an RTL-SDR cannot take the `--gain` given; nil when it can.
    var rtlsdrGainProblem: String? {
        if !namedGainsDB.isEmpty {
            return "--gain NAME=DB names a SoapySDR device's gain elements; the RTL-SDR's tuner takes auto or one "
                + "number of dB"
        }
        if let overallGainDB, tunerGain == nil {
            let steps = R82XXTables.gainTable
            return "--gain \(Self.decimal(overallGainDB)): the RTL-SDR's tuner takes auto or 0–\(Double(steps.last ?? 0) / 10) dB "
                + "(steps: \(steps.map { "\(Double($0) / 10)" }.joined(separator: ", ")))"
        }
        return nil
    }
}

/// Sample rates as typed: "2.4e6", "2400000", "2.4M", "250k".
public enum SampleRateText {
    public static func hertz(_ text: String) -> Double? {
        var body = Substring(text), scale = 1.0
        switch body.last {
        case "k"?, "K"?: scale = 1e3; body = body.dropLast()
        case "M"?: scale = 1e6; body = body.dropLast()
        case "G"?: scale = 1e9; body = body.dropLast()
        default: break
        }
        guard let value = Double(body), value.isFinite else { return nil }
        return value * scale
    }
}
