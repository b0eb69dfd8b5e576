import Analyzers
import DSP
import Signals
import USBDriver

/// Which analyzer a command uses (`--device`): `auto`, a family's id
/// (`hackrf`), its emulator (`demo-hackrf`; `demo` is the demo family's),
/// or a SoapySDR device by its arguments (`soapy:driver=airspy`).
public struct DeviceChoice: Sendable, Hashable, CustomStringConvertible {
    public enum Target: Sendable, Hashable {
        /// the first attached analyzer of any kind, else the demo device
        case auto
        /// a family's firmware emulator
        case emulated(AnalyzerKind)
        /// an attached analyzer of the family
        case hardware(AnalyzerKind)
        /// a SoapySDR device by its arguments ("driver=rtlsdr,serial=…"; "" for the first)
        case soapy(String)
    }

    public let target: Target

    public init(_ target: Target) { self.target = target }

    public static let auto = DeviceChoice(.auto)
    /// the built-in demo: the demo family's emulator with a synthetic scene
    public static let demo = DeviceChoice(.emulated(AnalyzerKind.demoFamily))
    public static func emulated(_ kind: AnalyzerKind) -> DeviceChoice { DeviceChoice(.emulated(kind)) }
    public static func hardware(_ kind: AnalyzerKind) -> DeviceChoice { DeviceChoice(.hardware(kind)) }

    /// Parses `--device`'s value; nil for none of the forms (`catalogue`: the built-in list unless a test adds to it).
    public init?(rawValue text: String, in catalogue: [AnalyzerKind] = AnalyzerKind.allCases) {
        if text == "auto" { self = .auto; return }
        if text == "demo" { self = .demo; return }
        if text == "soapy" { self = DeviceChoice(.soapy("")); return }
        if text.hasPrefix("soapy:") { self = DeviceChoice(.soapy(String(text.dropFirst("soapy:".count)))); return }
        if text.hasPrefix("demo-"), let kind = AnalyzerKind(rawValue: String(text.dropFirst(5)), in: catalogue),
           kind.emulator != nil {
            self = .emulated(kind)
            return
        }
        guard let kind = AnalyzerKind(rawValue: text, in: catalogue) else { return nil }
        self = .hardware(kind)
    }

    public var rawValue: String {
        switch target {
        case .auto: return "auto"
        case .emulated(let kind): return "demo-\(kind.id)"
        case .hardware(let kind): return kind.id
        case .soapy(let arguments): return arguments.isEmpty ? "soapy" : "soapy:\(arguments)"
        }
    }

    public var description: String { rawValue }

    /// every named choice, for help and messages: auto, the families, their emulators, soapy:ARGS
    public static var names: [String] { names(in: AnalyzerKind.allCases) }

    public static func names(in catalogue: [AnalyzerKind]) -> [String] {
        ["auto"] + catalogue.map(\.id) + ["demo"]
            + catalogue.filter { $0.emulator != nil }.map { "demo-\($0.id)" } + ["soapy:ARGS"]
    }

    /// the analyzer kind a fixed choice names; nil for auto (and a SoapySDR device, known once opened)
    public var kind: AnalyzerKind? {
        switch target {
        case .auto, .soapy: return nil
        case .emulated(let kind), .hardware(let kind): return kind
        }
    }

    public var isDemo: Bool { if case .emulated = target { return true } else { return false } }
    public var isSoapy: Bool { if case .soapy = target { return true } else { return false } }
}

/// The analyzer `--device` chose, ready to be opened (and reopened after a
/// loss) as a `SpectrumSource`.
public struct SelectedAnalyzer: Sendable {
    public var kind: AnalyzerKind
    public var isDemo: Bool
    /// "tinySA", "RF Explorer 1234" — for the status line and messages
    public var name: String
    public var factory: SpectrumSourceFactory
    /// the USB serial number of the analyzer chosen (nil for the demo devices), for capture metadata
    public var serial: String?

    /// the settings it runs with (defaults where none were given)
    public var settings = AnalyzerSettings()
    /// the calibration applied to its frames, when one is in use
    public var calibration: LiveCalibration?

    /// what `devices --probe` says of the device beyond its frames (a SoapySDR device's gains, rates, antennas, sensors)
    public var details: [String] = []

    /// a SoapySDR device: what SoapySDR reported of it when chosen (runs that stream its I/Q themselves
    /// open it again by these arguments); nil for every other analyzer
    public var soapyDevice: SoapyDeviceDescription?

    /// the `--device` choice that opens this same analyzer again (not `auto`, which might find another)
    public var choice: DeviceChoice?

    /// set where the analyzer is not the kind's own device (a remote sensor)
    public var stallSecondsOverride: Double?
    public var tunableRangeOverride: FrequencyRange?

    /// a converter in front of it (`--frequency-offset`): every band given and
    /// range reported is real; nil for none
    public var conversion: FrequencyConversion?

    /// Tells the calibration the band now tuned (real, before frames of it
    /// arrive; the calibration is looked up at the analyzer's own frequencies)
    /// and returns the unit its levels are in: dBm where a calibration covers
    /// the band, else the analyzer's own unit.
    @discardableResult
    public func tune(to band: FrequencyRange) -> PowerUnit {
        let tuned = conversion.flatMap { $0.tuned(band) } ?? band
        let measured = calibration?.tune(to: tuned) ?? unitOverride ?? kind.powerUnit
        return levelCorrection?.units.unit(from: measured) ?? measured
    }

    /// the unit its levels are in now, after the calibration and before `--unit` and the correction tables
    public var measuredUnit: PowerUnit { calibration?.unit ?? unitOverride ?? kind.powerUnit }

    /// the unit its levels are in now
    public var powerUnit: PowerUnit { levelCorrection?.units.unit(from: measuredUnit) ?? measuredUnit }

    /// `--unit`, `--correction`, `--antenna-factor`: applied to every frame after the calibration,
    /// at the real frequencies; nil for none
    public var levelCorrection: LiveLevelCorrection?
    /// set where the levels' unit is not the kind's own (a remote sensor that applies a calibration)
    public var unitOverride: PowerUnit?
    /// set where the settings are not this machine's (a remote sensor's, as it describes them)
    public var settingsOverride: String?
    /// a remote sensor's settings as `meter --json` fields, as it gives them
    public var jsonSettingsOverride: String?

    /// what the status line says of its settings and calibration:
    /// "LNA 16 dB, VGA 20 dB, amp off │ cal 2026-11-25"
    public var settingsLine: String? {
        if let settingsOverride { return settingsOverride.isEmpty ? nil : settingsOverride }
        var parts: [String] = []
        let summary = settings.summary(for: kind)
        if !summary.isEmpty { parts.append(summary) }
        if let conversion, !conversion.isIdentity { parts.append("converter \(conversion)") }
        if let summary = levelCorrection?.units.summary { parts.append(summary) }
        if let calibration {
            if calibration.isActive {
                parts.append("cal \(calibration.table.madeOn)")
            } else {
                parts.append("cal: \(calibration.unusable ?? "band outside"), \(calibration.uncalibratedUnit)")
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: " │ ")
    }

    /// how long without a frame means the device stalled [s]
    public var stallSeconds: Double { stallSecondsOverride ?? kind.stallSeconds }
    /// what the analyzer tunes [Hz], in real frequencies behind a converter
    public var tunableRange: FrequencyRange {
        let own = tunableRangeOverride ?? kind.tunableRange
        return conversion.flatMap { $0.real(own) } ?? own
    }

    public init(kind: AnalyzerKind, isDemo: Bool, name: String, factory: @escaping SpectrumSourceFactory,
                serial: String? = nil) {
        self.kind = kind
        self.isDemo = isDemo
        self.name = name
        self.factory = factory
        self.serial = serial
    }

    /// Resolves a choice (and a serial): a fixed kind is that kind (opened
    /// when the source starts); `auto` takes the first attached analyzer of
    /// any kind, else the demo HackRF.
    /// - Parameters:
    ///   - settings: the analyzer's settings (the caller checks they fit its kind)
    ///   - detector: how each dwell or hop becomes one level per bin
    ///   - demoInput: a demo device's signal generator and crystal error
    ///   - keepingEveryDetector: frames also carry every other detector's levels, where the family can
    public static func select(_ choice: DeviceChoice, serial: String?, demoSeed: UInt64,
                              settings: AnalyzerSettings = .init(), detector: SpectrumDetector = .peak,
                              mode: AnalysisMode = .auto, demoInput: DemoInput = .init(),
                              keepingEveryDetector: Bool = false) throws -> SelectedAnalyzer {
        func demo(_ kind: AnalyzerKind) -> SelectedAnalyzer {
            var analyzer = SelectedAnalyzer(kind: kind, isDemo: true, name: kind.model,
                                            factory: kind.demoFactory(seed: demoSeed, settings: settings,
                                                                      detector: detector, mode: mode, input: demoInput,
                                                                      keepingEveryDetector: keepingEveryDetector))
            analyzer.settings = settings
            analyzer.choice = .emulated(kind)
            return analyzer
        }
        let kind: AnalyzerKind
        var found: USBDeviceInfo?
        switch choice.target {
        case .emulated(let emulated):
            return demo(emulated)
        case .soapy(let arguments):
            var analyzer = try SoapyFamily.select(arguments: arguments, serial: serial, settings: settings,
                                                  detector: detector, mode: mode)
            analyzer.choice = choice
            return analyzer
        case .hardware(let fixed):
            kind = fixed
            found = try? USBEnumerator.devices(matching: fixed.usbIDs).first { serial == nil || $0.serialNumber == serial }
        case .auto:
            let attached = try USBEnumerator.devices(matching: AnalyzerKind.allUSBIDs)
                .filter { serial == nil || $0.serialNumber == serial }
            guard let first = attached.first, let firstKind = AnalyzerKind(first) else {
                // no native analyzer: a device SoapySDR reaches (one tscope does not drive itself), else the demo
                if let soapy = SoapyFamily.firstForeignDevice(serial: serial) {
                    var analyzer = try SoapyFamily.select(arguments: soapy, serial: nil, settings: settings,
                                                          detector: detector, mode: mode)
                    analyzer.choice = DeviceChoice(.soapy(soapy))
                    return analyzer
                }
                if let serial { throw USBError.notFound(device: "analyzer with serial \(serial)") }
                return demo(AnalyzerKind.demoFamily)
            }
            kind = firstKind
            found = first
        }
        let serialSuffix = serial.map { " \($0.suffix(8))" } ?? ""
        var analyzer = SelectedAnalyzer(kind: kind, isDemo: false, name: kind.model + serialSuffix,
                                        factory: kind.hardwareFactory(serial: serial, settings: settings,
                                                                      detector: detector, mode: mode,
                                                                      keepingEveryDetector: keepingEveryDetector),
                                        serial: serial ?? found?.serialNumber)
        analyzer.settings = settings
        analyzer.choice = .hardware(kind)
        return analyzer
    }
}

extension SelectedAnalyzer {
    /// What a recording stores of the settings and the calibration applied
    /// (the capture store's and PostgreSQL's `gains` field): the HackRF's
    /// "lna=16 vga=20 amp=0" as before, an RTL-SDR's "gain=29.7", then with
    /// levels in dBm " unit=dBm" (a tinySA, an RF Explorer), and with a
    /// calibration applied " calibration=2026-11-25 serial=S
    /// gain_correction_db=-8 offsets_db=100000000:-42.130,…" — the table's
    /// points as applied.
    public func recordedSettings(unit: PowerUnit) -> String? {
        if let settingsOverride {
            // a remote sensor's: its settings line as it described it
            return "sensor_settings=\"\(settingsOverride)\"" + (unit.recordedToken.map { " " + $0 } ?? "")
        }
        var parts: [String] = []
        if let recorded = kind.settingsDescription.recorded(settings), !recorded.isEmpty { parts.append(recorded) }
        if let token = unit.recordedToken { parts.append(token) }
        if let calibration, unit.isAbsolute, calibration.isActive {
            let offsets = calibration.table.points.map {
                "\(Int64($0.frequencyHz.rounded())):\(String(format: "%.3f", $0.offsetDB))"
            }
            parts.append("calibration=\(calibration.table.madeOn) serial=\(calibration.table.serial) "
                + "gain_correction_db=\(String(format: "%g", calibration.gainCorrectionDB)) "
                + "offsets_db=\(offsets.joined(separator: ","))")
        }
        if let units = levelCorrection?.units, !units.isIdentity {
            // the tables by name and the correction each adds at its rows, so the recording says what was added
            if let antennaFactor = units.antennaFactor { parts.append("antenna_factor=\(Self.token(antennaFactor))") }
            for table in units.corrections { parts.append("correction=\(Self.token(table))") }
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// "cable.csv:100000000:1.200,…": a table as a recording's `gains` text keeps it (spaces in the name as _)
    static func token(_ table: LevelCorrectionTable) -> String {
        let rows = table.points.map { "\(Int64($0.frequencyHz.rounded())):\(String(format: "%.3f", $0.correctionDB))" }
        return table.name.replacingOccurrences(of: " ", with: "_") + ":" + rows.joined(separator: ",")
    }

    /// `meter --json`'s fields for the settings and calibration, each
    /// `,"key":value` ("lna_gain_db":16 … "calibration":"2026-11-25" or null)
    public var jsonSettings: String {
        if let jsonSettingsOverride { return jsonSettingsOverride }
        if let settingsOverride { return ",\"settings\":\"\(settingsOverride.replacingOccurrences(of: "\"", with: "'"))\"" }
        var text = ""
        for field in settings.fields(for: kind) {
            let numeric = Double(field.value) != nil
            text += ",\"\(field.key)\":" + (numeric ? field.value : "\"\(field.value)\"")
        }
        if let calibration, calibration.isActive {
            text += ",\"calibration\":\"\(calibration.table.madeOn)\","
                + "\"calibration_uncertainty_db\":\(String(format: "%.3f", calibration.table.worstUncertaintyDB))"
        } else {
            text += ",\"calibration\":null"
        }
        return text
    }
}
