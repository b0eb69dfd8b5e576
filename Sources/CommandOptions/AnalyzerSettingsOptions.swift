import ArgumentParser
import Devices
import Foundation
import Runs
import Signals
import DSP

extension AnalysisMode: ExpressibleByArgument {}

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
        "RTL-SDR: tuner gain in dB, snapped to the tuner's nearest step (0–49.6), or auto (default). "
            + "SoapySDR device: the overall gain in dB, auto, or one gain element NAME=DB (repeatable: "
            + "--gain LNA=16 --gain VGA=20; `tscope devices --probe` lists them).",
        valueName: "dB|auto|NAME=dB"))
    public var gains: [String] = []

    /// `--gain` as one value (its repeats joined by commas, as `AnalyzerSettings.set` takes them)
    public var tunerGain: String? { gains.isEmpty ? nil : gains.joined(separator: ",") }

    @Option(name: .customLong("antenna"), help: ArgumentHelp(
        "SoapySDR device: the antenna port to receive on (default: the device's).", valueName: "name"))
    public var antenna: String?

    @Option(name: .customLong("sample-rate"), help: ArgumentHelp(
        "SoapySDR device: sample rate in S/s (2.4e6, 2.4M); default: the lowest offered ≥ 1.25 × the band in real "
            + "time (at most 20 MS/s), the highest (RTL-SDR: 2.4 MS/s) when hopping.",
        valueName: "S/s"))
    public var sampleRate: String?

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

    /// pulsed transmitters added to a demo device's scene "MHz:dBm:WIDTH_US:PERIOD_MS[:PHASE_MS],…"
    @Option(name: .customLong("demo-pulse"), help: .hidden)
    public var demoPulse: String?

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
            let given: [(String, String?)] = [
                ("lna-gain", lnaGain.map(String.init)), ("vga-gain", vgaGain.map(String.init)), ("amp", amp?.rawValue),
                ("antenna-power", antennaPower?.rawValue), ("gain", tunerGain), ("ppm", ppm.map(String.init)),
                ("bias-tee", biasTee?.rawValue), ("rbw", rbw), ("attenuation", attenuation),
                ("antenna", antenna), ("sample-rate", sampleRate),
            ]
            for case let (option, value?) in given {
                do { try settings.set(option, to: value) } catch { throw ValidationError(error.description) }
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
