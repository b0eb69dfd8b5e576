import ArgumentParser
import Devices
import Foundation
import Runs
import Signals
import DSP

extension AnalysisMode: ExpressibleByArgument {}
extension LevelUnits.Reading: ExpressibleByArgument {}

extension AnalyzerSettingsOptions {
    /// `--mode realtime` on a band the analyzer cannot stream at once: the
    /// one-line usage error naming the widest it can (for `--device auto`,
    /// the widest any analyzer here streams; the source checks the one found).
    public func checkMode(bands: [FrequencyRange], device: DeviceChoice) throws {
        guard mode == .realtime else { return }
        for band in bands {
            if let kind = device.kind {
                if let problem = kind.realtimeProblem(widthHz: band.spanHz) { throw ValidationError(problem) }
            } else if let problem = AnalyzerKind.hackrf.realtimeProblem(widthHz: band.spanHz) {
                throw ValidationError(problem)
            }
        }
    }
}

/// on|off on the command line
public enum OnOff: String, ExpressibleByArgument, CaseIterable, Sendable {
    case on, off
    public var isOn: Bool { self == .on }
}

/// The analyzer's own settings and the calibration, on every live command
/// (`watch`, `meter`, `events`, `record`, `serve`, `calibrate`). Values are
/// checked here (exit 64 naming the allowed values); whether they fit the
/// analyzer chosen is checked when it is chosen (`DeviceSelection`).
public struct AnalyzerSettingsOptions: ParsableArguments {
    public init() {}

    @Option(name: .customLong(AnalyzerSetting.lnaGain.name), help: AnalyzerSetting.lnaGain.argumentHelp)
    public var lnaGain: Int?

    @Option(name: .customLong(AnalyzerSetting.vgaGain.name), help: AnalyzerSetting.vgaGain.argumentHelp)
    public var vgaGain: Int?

    @Option(name: .customLong(AnalyzerSetting.amp.name), help: AnalyzerSetting.amp.argumentHelp)
    public var amp: OnOff?

    @Option(name: .customLong(AnalyzerSetting.antennaPower.name), help: AnalyzerSetting.antennaPower.argumentHelp)
    public var antennaPower: OnOff?

    @Option(name: .customLong(AnalyzerSetting.gain.name), help: AnalyzerSetting.gain.argumentHelp)
    public var gains: [String] = []

    /// `--gain` as one value (its repeats joined by commas, as `AnalyzerSettings.set` takes them)
    public var tunerGain: String? { gains.isEmpty ? nil : gains.joined(separator: ",") }

    @Option(name: .customLong(AnalyzerSetting.antenna.name), help: AnalyzerSetting.antenna.argumentHelp)
    public var antenna: String?

    @Option(name: .customLong(AnalyzerSetting.sampleRate.name), help: AnalyzerSetting.sampleRate.argumentHelp)
    public var sampleRate: String?

    @Option(name: .customLong(AnalyzerSetting.rbw.name), help: AnalyzerSetting.rbw.argumentHelp)
    public var rbw: String?

    @Option(name: .customLong(AnalyzerSetting.attenuation.name), help: AnalyzerSetting.attenuation.argumentHelp)
    public var attenuation: String?

    @Option(name: .customLong("calibration"), help: ArgumentHelp(
        "Calibration to apply: a file from `tscope calibrate`, or none. Default: the one made for this analyzer's "
            + "model and serial in ${XDG_CONFIG_HOME:-~/.config}/tscope/calibration/, if any.",
        valueName: "file|none"))
    public var calibration: String?

    @Option(name: .customLong("unit"), help: ArgumentHelp(
        "The unit of every reading of a calibrated analyzer (levels in dBm): dBm (default); dBuV or dBmV, the "
            + "voltage across 50 Ω (dBm + 106.99, + 46.99); W, the meter's readings as power. An uncalibrated "
            + "SDR's levels stay dB.",
        valueName: "dBm|dBuV|dBmV|W"))
    public var unit: LevelUnits.Reading?

    @Option(name: .customLong("correction"), help: ArgumentHelp(
        "A CSV of frequency_hz,correction_db added to every level (cable loss +, preamplifier gain −), linear "
            + "between rows, the end rows' beyond. Repeat to add several.",
        valueName: "file"))
    public var corrections: [String] = []

    @Option(name: .customLong("antenna-factor"), help: ArgumentHelp(
        "A CSV of frequency_hz,antenna_factor_db_per_m: readings become field strength in dBuV/m "
            + "(dBuV + the factor). Needs a calibrated analyzer.",
        valueName: "file"))
    public var antennaFactor: String?

    /// whether `--unit`, `--correction` or `--antenna-factor` was given
    public var levelUnitsGiven: Bool { unit != nil || !corrections.isEmpty || antennaFactor != nil }

    /// The units and tables given, each table read (a bad file is one error naming it and the line).
    public func levelUnits() throws -> LevelUnits {
        if antennaFactor != nil, let unit, unit != .dBuV {
            throw ValidationError("--antenna-factor gives field strength in dBuV/m: --unit \(unit.rawValue) does not go with it")
        }
        do {
            return LevelUnits(reading: unit ?? .dBm, corrections: try corrections.map { try LevelCorrectionTable.read(path: $0) },
                              antennaFactor: try antennaFactor.map { try LevelCorrectionTable.read(path: $0) })
        } catch let error as InputError {
            throw ValidationError(error.description)
        }
    }

    /// a demo device's input: a signal generator's tones "MHz:dBm,…" instead of the demo scene
    @Option(name: .customLong("demo-generator"), help: .hidden)
    public var demoGenerator: String?

    /// pulsed transmitters added to a demo device's scene "MHz:dBm:WIDTH_US:PERIOD_MS[:PHASE_MS],…"
    @Option(name: .customLong("demo-pulse"), help: .hidden)
    public var demoPulse: String?

    /// a demo RTL-SDR's crystal error [ppm]
    @Option(name: .customLong("demo-crystal-ppm"), help: .hidden)
    public var demoCrystalPPM: Double?

    @Option(name: .customLong(AnalyzerSetting.ppm.name), help: AnalyzerSetting.ppm.argumentHelp)
    public var ppm: Int?

    @Option(name: .customLong(AnalyzerSetting.biasTee.name), help: AnalyzerSetting.biasTee.argumentHelp)
    public var biasTee: OnOff?

    @Option(name: .customLong("mode"), help: ArgumentHelp(
        "realtime: stream one tuning and transform every sample (overlapped FFTs), for a band the analyzer sees at "
            + "once (\(AnalyzerKind.realtimeLimitsText()), a SoapySDR device 0.8 × its top rate); sweep: step across the band "
            + "as hackrf_sweep and rtl_power do (a SoapySDR device hops as soapy_power: per hop restart, 5 ms settle, "
            + "≥ 10 ms measured, 0.4 × the rate kept clear of DC); "
            + "auto (default): realtime where the band allows.",
        valueName: "auto|realtime|sweep"))
    public var mode: AnalysisMode = .auto

    public func validate() throws {
        _ = try settings
        if let demoGenerator, GeneratorTone.list(parsing: demoGenerator) == nil {
            throw ValidationError("--demo-generator \(demoGenerator): expected MHz:dBm pairs, e.g. 100:-30,150:-30")
        }
        if let demoPulse, DemoScene.PulsedCarrier.list(parsing: demoPulse) == nil {
            throw ValidationError("--demo-pulse \(demoPulse): expected MHz:dBm:width_µs:period_ms[:phase_ms], e.g. 305:-40:200:500")
        }
    }

    /// The settings given, each value checked by the one parser (`AnalyzerSettings.set`).
    public var settings: AnalyzerSettings {
        get throws {
            var settings = AnalyzerSettings()
            let given: [(AnalyzerSetting, String?)] = [
                (.lnaGain, lnaGain.map(String.init)), (.vgaGain, vgaGain.map(String.init)), (.amp, amp?.rawValue),
                (.antennaPower, antennaPower?.rawValue), (.gain, tunerGain), (.ppm, ppm.map(String.init)),
                (.biasTee, biasTee?.rawValue), (.rbw, rbw), (.attenuation, attenuation),
                (.antenna, antenna), (.sampleRate, sampleRate),
            ]
            for case let (setting, value?) in given {
                do { try settings.set(setting, to: value) } catch { throw ValidationError(error.description) }
            }
            return settings
        }
    }

    /// `selection` with these settings, calibration choice and generator;
    /// settings another kind of analyzer takes are a usage error; a snapped
    /// RTL-SDR gain is said once on stderr.
    public func apply(to selection: DeviceSelection) throws -> DeviceSelection {
        var selection = selection
        selection.settings = try settings
        // a fixed kind is checked before anything opens (auto: once the analyzer is found)
        if let kind = selection.device.kind, let problem = selection.settings.problem(for: kind) {
            throw ValidationError(problem)
        }
        selection.calibration = calibration.map(CalibrationChoice.init(argument:)) ?? .automatic
        selection.levelUnits = try levelUnits()
        selection.mode = mode
        selection.demoInput = DemoInput(generator: demoGenerator.flatMap(GeneratorTone.list(parsing:)),
                                        crystalErrorPPM: demoCrystalPPM ?? 0,
                                        pulses: demoPulse.flatMap(DemoScene.PulsedCarrier.list(parsing:)) ?? [])
        let rtlsdr = selection.device.kind == nil && !selection.device.isSoapy || selection.device.kind == .rtlsdr
        if rtlsdr, let text = tunerGain, let wanted = Double(text), case .manual(let tenths)? = selection.settings.tunerGain,
           abs(wanted * 10 - Double(tenths)) > 0.05 {
            FileHandle.standardError.write(Data(
                "--gain \(text): the tuner's nearest step is \(Double(tenths) / 10) dB; using that\n".utf8))
        }
        return selection
    }
}

extension AnalyzerSetting {
    /// the setting's help as ArgumentParser shows it
    var argumentHelp: ArgumentHelp { ArgumentHelp(help, valueName: valueName) }
}
