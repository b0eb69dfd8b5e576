import ArgumentParser
import Devices
import Foundation
import Runs

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

    @Option(name: .customLong("lna-gain"), help: ArgumentHelp(
        "HackRF: LNA (IF) gain, 0–40 dB in 8 dB steps (default 16).", valueName: "dB"))
    public var lnaGain: Int?

    @Option(name: .customLong("vga-gain"), help: ArgumentHelp(
        "HackRF: VGA (baseband) gain, 0–62 dB in 2 dB steps (default 20).", valueName: "dB"))
    public var vgaGain: Int?

    @Option(name: .customLong("amp"), help: ArgumentHelp("HackRF: RF amplifier (+14 dB), on or off (default off).",
                                                         valueName: "on|off"))
    public var amp: OnOff?

    @Option(name: .customLong("antenna-power"), help: ArgumentHelp(
        "HackRF: 3.3 V on the antenna port for an active antenna, on or off (default off).", valueName: "on|off"))
    public var antennaPower: OnOff?

    @Option(name: .customLong("gain"), help: ArgumentHelp(
        "RTL-SDR: tuner gain in dB, snapped to the tuner's nearest step (0–49.6), or auto (default).",
        valueName: "dB|auto"))
    public var tunerGain: String?

    @Option(name: .customLong("rbw"), help: ArgumentHelp(
        "tinySA: resolution bandwidth in kHz (the unit takes the first filter at least that wide), or auto.",
        valueName: "kHz|auto"))
    public var rbw: String?

    @Option(name: .customLong("attenuation"), help: ArgumentHelp(
        "tinySA: input attenuation, 0–31 dB, or auto (levels stay corrected for it; the noise floor rises).",
        valueName: "dB|auto"))
    public var attenuation: String?

    @Option(name: .customLong("calibration"), help: ArgumentHelp(
        "Calibration to apply: a file from `tscope calibrate`, or none. Default: the one made for this analyzer's "
            + "model and serial in ${XDG_CONFIG_HOME:-~/.config}/tscope/calibration/, if any.",
        valueName: "file|none"))
    public var calibration: String?

    /// a demo device's input: a signal generator's tones "MHz:dBm,…" instead of the demo scene
    @Option(name: .customLong("demo-generator"), help: .hidden)
    public var demoGenerator: String?

    /// a demo RTL-SDR's crystal error [ppm]
    @Option(name: .customLong("demo-crystal-ppm"), help: .hidden)
    public var demoCrystalPPM: Double?

    @Option(name: .customLong("ppm"), help: ArgumentHelp(
        "RTL-SDR: correct for a crystal this many ppm fast (rtl_sdr's -p; measure it on a known carrier).",
        valueName: "ppm"))
    public var ppm: Int?

    @Option(name: .customLong("bias-tee"), help: ArgumentHelp(
        "RTL-SDR: power on the antenna port (the RTL-SDR Blog V3/V4's bias tee, GPIO 0), on or off. Like rtl_sdr "
            + "-T it stays as set until the dongle is unplugged or set off.",
        valueName: "on|off"))
    public var biasTee: OnOff?

    public func validate() throws {
        if let lnaGain, !(0...40).contains(lnaGain) || lnaGain % 8 != 0 {
            throw ValidationError("--lna-gain \(lnaGain): the HackRF's LNA takes 0, 8, 16, 24, 32 or 40 dB")
        }
        if let vgaGain, !(0...62).contains(vgaGain) || vgaGain % 2 != 0 {
            throw ValidationError("--vga-gain \(vgaGain): the HackRF's VGA takes 0–62 dB in 2 dB steps (0, 2, 4 … 62)")
        }
        _ = try rtlsdrGain
        _ = try tinySA
        if let ppm, !(-1000...1000).contains(ppm) {
            throw ValidationError("--ppm \(ppm): expected a crystal error between -1000 and 1000 ppm")
        }
        if let demoGenerator, GeneratorTone.list(parsing: demoGenerator) == nil {
            throw ValidationError("--demo-generator \(demoGenerator): expected MHz:dBm pairs, e.g. 100:-30,150:-30")
        }
    }

    /// `--gain` as the RTL-SDR takes it: automatic, or the tuner's nearest step
    var rtlsdrGain: RTLSDRGain? {
        get throws {
            guard let text = tunerGain else { return nil }
            if text == "auto" { return .automatic }
            let steps = R82XXTables.gainTable
            guard let dB = Double(text), dB.isFinite, dB >= 0, dB <= Double(steps.last ?? 0) / 10 + 0.5 else {
                throw ValidationError("--gain \(text): the RTL-SDR's tuner takes auto or 0–\(Double(steps.last ?? 0) / 10) dB "
                    + "(steps: \(steps.map { "\(Double($0) / 10)" }.joined(separator: ", ")))")
            }
            return RTLSDRGain.nearest(dB: dB)
        }
    }

    /// `--rbw` and `--attenuation` as the tinySA takes them
    var tinySA: TinySASettings {
        get throws {
            var settings = TinySASettings()
            if let rbw {
                if rbw == "auto" {
                    settings.rbw = .automatic
                } else if let kHz = Double(rbw), TinySASettings.rbwRangeKHz.contains(kHz) {
                    settings.rbw = .fixed(kHz)
                } else {
                    throw ValidationError("--rbw \(rbw): the tinySA takes auto or 0.2–850 kHz "
                        + "(the basic's filters 3.1–620.7 kHz, the Ultra's 0.2, 1, 3, 10, 30, 100, 300, 600, 850)")
                }
            }
            if let attenuation {
                if attenuation == "auto" {
                    settings.attenuation = .automatic
                } else if let dB = Int(attenuation), TinySASettings.attenuationRange.contains(dB) {
                    settings.attenuation = .fixed(dB)
                } else {
                    throw ValidationError("--attenuation \(attenuation): the tinySA takes auto or 0–31 dB in 1 dB steps")
                }
            }
            return settings
        }
    }

    /// The settings given.
    public var settings: AnalyzerSettings {
        get throws {
            AnalyzerSettings(lnaGainDB: lnaGain, vgaGainDB: vgaGain, amplifier: amp?.isOn,
                             antennaPower: antennaPower?.isOn, tunerGain: try rtlsdrGain,
                             frequencyCorrectionPPM: ppm, biasTee: biasTee?.isOn, tinySA: try tinySA)
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
        selection.demoInput = DemoInput(generator: demoGenerator.flatMap(GeneratorTone.list(parsing:)),
                                        crystalErrorPPM: demoCrystalPPM ?? 0)
        if let text = tunerGain, let wanted = Double(text), case .manual(let tenths)? = selection.settings.tunerGain,
           abs(wanted * 10 - Double(tenths)) > 0.05 {
            FileHandle.standardError.write(Data(
                "--gain \(text): the tuner's nearest step is \(Double(tenths) / 10) dB; using that\n".utf8))
        }
        return selection
    }
}
