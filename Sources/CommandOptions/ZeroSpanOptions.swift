import ArgumentParser
import DSP
import Devices
import Runs
import Signals

extension ZeroSpanTrigger: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}

/// `tscope zerospan`'s options: what to measure, the trigger, the output,
/// and the settings of a radio that streams I/Q (its own `--rbw` is the
/// zero-span filter's, in Hz, not the tinySA's setting in kHz, so the
/// shared settings group is not used here).
public struct ZeroSpanOptions: ParsableArguments {
    public init() {}

    public static let abstract = "Zero span: power against time at one frequency, and its pulses' timing."
    public static let discussion = """
        Power against time at one frequency, as a bench analyzer's zero span shows it: the radio is tuned to \
        the frequency (a quarter of its sample rate above, so its DC offset stays out of the filter), its I/Q \
        goes through a 4-pole synchronously tuned RBW filter (−3 dB at ±RBW/2, 10–90 % rise time 0.68/RBW), \
        power |y|² is detected and each of the trace's 1000 points keeps its samples' peak. Times count samples, \
        never the wall clock. Levels are dB full scale, or dBm where a calibration covers the frequency. \
        Each trace is measured: pulses (start, −3 dB width, peak), period, duty, rise and fall (10–90 % of the \
        envelope). Works on a HackRF (8 MS/s for an RBW up to 1 MHz, 20 MS/s up to 2.5 MHz) and an RTL-SDR \
        (2.4 MS/s, RBW up to 300 kHz), and a SoapySDR device (--device soapy:ARGS: the lowest rate it offers of \
        at least 8 × the RBW; --gain as for watch); on a tinySA the unit's own zero span is used (its rbw, sweeptime 3 ms–60 s \
        and trigger; the trace starts at its trigger, in dBm). The same measurement is view 6 of `tscope watch`. \
        Docs/measurements-and-events.md has a worked reading.
        """

    @Option(name: [.customShort("f"), .long], help: ArgumentHelp("Frequency to watch, e.g. 1030M.", valueName: "hz"))
    public var frequency: FrequencyArgument

    @Option(help: ArgumentHelp("Resolution bandwidth (−3 dB), e.g. 1M or 100k.", valueName: "hz"))
    public var rbw: FrequencyArgument

    @Option(name: .customLong("sweep-time"), help: ArgumentHelp("Time one trace spans, e.g. 5ms, 200us, 1s.",
                                                                 valueName: "s"), transform: Self.seconds)
    public var sweepTime: Double

    @Option(parsing: .unconditional, help: ArgumentHelp("Start each trace where the power crosses LEVEL [dB, or dBm calibrated], rising "
                               + "(default) or falling. Without it the traces free-run.", valueName: "level[:rising|falling]"))
    public var trigger: ZeroSpanTrigger?

    @Option(name: .customLong("pre-trigger"), help: ArgumentHelp("Share of the trace before the trigger [%].", valueName: "pct"))
    public var preTrigger: Double = 10

    @Option(help: "Measure this many traces, then exit (default: until Ctrl-C).")
    public var count: Int?

    @Flag(help: "One JSON object per trace, one line each.")
    public var json = false

    @Option(name: .customLong(AnalyzerSetting.lnaGain.name), help: AnalyzerSetting.lnaGain.argumentHelp)
    public var lnaGain: Int?
    @Option(name: .customLong(AnalyzerSetting.vgaGain.name), help: AnalyzerSetting.vgaGain.argumentHelp)
    public var vgaGain: Int?
    @Option(name: .customLong(AnalyzerSetting.amp.name), help: AnalyzerSetting.amp.argumentHelp)
    public var amp: OnOff?
    @Option(name: .customLong(AnalyzerSetting.gain.name), help: AnalyzerSetting.gain.argumentHelp)
    public var gain: String?
    @Option(name: .customLong(AnalyzerSetting.ppm.name), help: AnalyzerSetting.ppm.argumentHelp)
    public var ppm: Int?
    @Option(name: .customLong("calibration"), help: ArgumentHelp("Calibration to apply (`tscope calibrate`), or none.",
                                                                 valueName: "file|none"))
    public var calibration: String?
    /// pulsed transmitters added to a demo device's scene (tests): "MHz:dBm:WIDTH_US:PERIOD_MS[:PHASE_MS[:COUNT]],…"
    @Option(name: .customLong("demo-pulse"), help: .hidden)
    public var demoPulse: String?

    static func seconds(_ text: String) throws -> Double {
        let units: [(String, Double)] = [("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("ns", 1e-9), ("s", 1)]
        var body = text.trimmingCharacters(in: .whitespaces), scale = 1.0
        if let (suffix, factor) = units.first(where: { body.hasSuffix($0.0) }) {
            body.removeLast(suffix.count)
            scale = factor
        }
        guard let value = Double(body.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0 else {
            throw ValidationError("expected a time above 0, e.g. 5ms, 200us or 0.01")
        }
        return value * scale
    }

    public func validate() throws {
        guard frequency.hertz > 0 else { throw ValidationError("--frequency: expected a frequency above 0, e.g. 1030M") }
        guard rbw.hertz > 0 else { throw ValidationError("--rbw: expected a bandwidth above 0, e.g. 1M") }
        guard preTrigger >= 0, preTrigger < 100 else { throw ValidationError("--pre-trigger \(preTrigger): expected 0 to 99 %") }
        if let count, count < 1 { throw ValidationError("--count \(count): expected 1 or more traces") }
        if let demoPulse, DemoScene.PulsedCarrier.list(parsing: demoPulse) == nil {
            throw ValidationError("--demo-pulse \(demoPulse): expected MHz:dBm:width_µs:period_ms[:phase_ms[:count]]")
        }
        _ = try settings
    }

    var settings: AnalyzerSettings {
        get throws {
            var settings = AnalyzerSettings()
            let given: [(AnalyzerSetting, String?)] = [
                (.lnaGain, lnaGain.map(String.init)), (.vgaGain, vgaGain.map(String.init)), (.amp, amp?.rawValue),
                (.gain, gain), (.ppm, ppm.map(String.init)),
            ]
            for case let (setting, value?) in given {
                do { try settings.set(setting, to: value) } catch { throw ValidationError(error.description) }
            }
            return settings
        }
    }

    /// The run's request on the analyzer `device` chose.
    public func request(device: DeviceOptions) throws -> ZeroSpanRequest {
        var selection = try device.selection
        if selection.conversion != nil { throw ValidationError("--frequency-offset: zerospan takes the analyzer's own frequency") }
        selection.settings = try settings
        if let kind = selection.device.kind, let problem = selection.settings.problem(for: kind) {
            throw ValidationError(problem)
        }
        selection.calibration = calibration.map(CalibrationChoice.init(argument:)) ?? .automatic
        selection.demoInput = DemoInput(pulses: demoPulse.flatMap(DemoScene.PulsedCarrier.list(parsing:)) ?? [])
        return ZeroSpanRequest(selection: selection, frequencyHz: frequency.hertz, rbwHz: rbw.hertz,
                               sweepSeconds: sweepTime, trigger: trigger, preTriggerPercent: preTrigger,
                               count: count, json: json)
    }
}
