import ArgumentParser
import DSP
import Devices
import Runs
import Signals

/// The options `sweep` shares with hackrf_sweep (-f, -w, -N, -1, -l, -g, -a,
/// -p, -B, -r); -f, -w and -g mean rtl_power's values with an RTL-SDR.
public struct SweepOptions: ParsableArguments {
    public init() {}

    @Option(name: .customShort("f"), parsing: .singleValue,
            help: "Range start:stop in MHz, repeatable up to 10 times (default 0:6000); RTL-SDR: low:high:bin.")
    public var ranges: [String] = []

    @Option(name: .customShort("w", allowingJoined: true),
            help: "FFT bin width in Hz, 2445–5000000 (default 1000000); RTL-SDR: window (rtl_power -w).")
    public var binWidthOrWindow: String?

    @Option(name: .customShort("N", allowingJoined: true), help: "Number of sweeps to perform.")
    public var sweepCount: UInt32?

    @Flag(name: .customShort("1"), help: "One sweep, then exit.")
    public var oneShot = false

    @Option(name: .customShort("l", allowingJoined: true), help: "LNA (IF) gain, 0–40 dB in 8 dB steps.")
    public var lnaGain: Int = 16

    @Option(name: .customShort("g", allowingJoined: true),
            help: "VGA (baseband) gain, 0–62 dB in 2 dB steps (default 20); RTL-SDR: tuner gain [dB] (default automatic).")
    public var gain: String?

    @Option(name: .customShort("a", allowingJoined: true), help: "RF amplifier: 1 on, 0 off.")
    public var amp: UInt32 = 0

    @Option(name: .customShort("p", allowingJoined: true), help: "Antenna port power: 1 on, 0 off.")
    public var antennaPower: UInt32 = 0

    @Flag(name: .customShort("B"), help: "Binary output (hackrf_sweep -B records).")
    public var binary = false

    @Option(name: .customShort("r"), help: "Output file ('-' or none: stdout).")
    public var outputPath: String?

    /// `-w` for the HackRF: the bin width [Hz]
    public var binWidth: UInt32 {
        get throws {
            guard let text = binWidthOrWindow else { return 1_000_000 }
            guard let value = UInt32(text) else { throw ValidationError("-w \(text): expected a bin width in Hz, e.g. -w 100000") }
            return value
        }
    }

    /// The HackRF's bin width [Hz]: `-w`, or with `--rbw cispr[-a…e]` the
    /// width whose Hann 6 dB bandwidth is the CISPR band's for the ranges
    /// swept (together: the widest band any of them touches). hackrf_sweep's
    /// rule then picks N from it (`SweepFFTSize.forBinWidth`).
    public func binWidthHz(cispr: CISPRResolution?) throws -> Double {
        guard let cispr else { return Double(try binWidth) }
        if binWidthOrWindow != nil { throw ValidationError("-w and --rbw \(cispr): give one bin width") }
        let ranges = try parsedRanges()
        let lowest = ranges.map(\.startMHz).min() ?? 0, highest = ranges.map(\.stopMHz).max() ?? 6000
        guard let swept = FrequencyRange(lowerHz: Double(lowest) * 1e6, upperHz: Double(highest) * 1e6) else {
            throw ValidationError("-f: expected start below stop")
        }
        do throws(CISPRResolutionError) {
            return try cispr.binWidthHz(for: swept)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `-g` for the HackRF: the VGA gain [dB]
    public var vgaGain: Int {
        get throws {
            guard let text = gain else { return 20 }
            guard let value = Int(text) else { throw ValidationError("-g \(text): expected a VGA gain in dB, e.g. -g 20") }
            return value
        }
    }

    /// The values a HackRF sweep takes, each checked.
    public func validateForHackRF() throws {
        _ = try binWidth
        _ = try vgaGain
        guard amp <= 1 else { throw ValidationError("-a (amp) shall be 0 or 1") }
        guard antennaPower <= 1 else { throw ValidationError("-p (antenna power) shall be 0 or 1") }
        if let sweepCount, sweepCount == 0 { throw ValidationError("-N must be at least 1") }
        _ = try parsedRanges()
    }

    /// `-f` values as MHz pairs; hackrf_sweep's default 0:6000 when none given.
    public func parsedRanges() throws -> [SweepRangeMHz] {
        guard !ranges.isEmpty else { return [SweepRangeMHz(startMHz: 0, stopMHz: 6000)] }
        return try ranges.map { text in
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = UInt32(parts[0]), let stop = UInt32(parts[1]) else {
                throw ValidationError("-f \(text): expected start:stop in whole MHz, e.g. -f 2400:2500")
            }
            return SweepRangeMHz(startMHz: Int(start), stopMHz: Int(stop))
        }
    }
}

/// rtl_power's options that hackrf_sweep has no equivalent for (the shared
/// letters -f, -w, -g, -1 live in `SweepCommand`).
public struct RTLPowerOptions: ParsableArguments {
    public init() {}

    @Option(name: .customShort("i", allowingJoined: true),
            help: "RTL-SDR: integration interval, seconds or with s/m/h suffix (default 10).")
    public var interval: String?

    @Option(name: .customShort("e", allowingJoined: true),
            help: "RTL-SDR: exit after this long, seconds or with s/m/h suffix (default: run until stopped).")
    public var exitTimer: String?

    @Option(name: .customShort("c", allowingJoined: true),
            help: "RTL-SDR: crop each hop's edges, percent (20%) or fraction (0.2) (default 0).")
    public var crop: String?

    @Argument(help: "RTL-SDR: output file ('-' or none: stdout), as rtl_power takes it.")
    public var filename: String?

    /// The values as rtl_power's command line gave them.
    public func commandLine(sweep: SweepOptions) -> RTLPowerCommandLine {
        RTLPowerCommandLine(ranges: sweep.ranges, window: sweep.binWidthOrWindow, gain: sweep.gain, interval: interval,
                            exitTimer: exitTimer, crop: crop, singleShot: sweep.oneShot,
                            outputPath: sweep.outputPath, filename: filename)
    }

    /// These options mean nothing to a HackRF; each is named.
    public func rejectForHackRF() throws {
        let given = [("-i", interval), ("-e", exitTimer), ("-c", crop)].filter { $0.1 != nil }.map(\.0)
        if let first = given.first {
            throw ValidationError("\(first) is an rtl_power option: use it with --device rtlsdr")
        }
    }

    /// A file name argument means nothing to a HackRF (it writes to -r FILE).
    /// Checked after parsing, not in `validate`: ArgumentParser names an
    /// unknown option (`-z 3`) only when validation passes, and the value
    /// after an unknown option lands here.
    public func rejectFilenameForHackRF() throws {
        if let filename {
            throw ValidationError("unexpected argument '\(filename)': the HackRF writes to -r FILE "
                + "(a bare file name is rtl_power's, with --device rtlsdr)")
        }
    }
}


extension SweepOptions {
    /// These options with the analyzer settings' long forms in place of hackrf_sweep's and rtl_power's
    /// letters (the long forms win): `--gain` for `-g` on an RTL-SDR, `--vga-gain`, `--lna-gain`, `--amp`,
    /// `--antenna-power`.
    public func overridden(by settings: AnalyzerSettingsOptions, rtlSDR: Bool) -> SweepOptions {
        var sweep = self
        if let gain = settings.tunerGain, rtlSDR { sweep.gain = gain }
        if let vga = settings.vgaGain { sweep.gain = String(vga) }
        if let lna = settings.lnaGain { sweep.lnaGain = lna }
        if let amp = settings.amp { sweep.amp = amp.isOn ? 1 : 0 }
        if let power = settings.antennaPower { sweep.antennaPower = power.isOn ? 1 : 0 }
        return sweep
    }
}

extension SweepOptions {
    /// `sweep`'s checks for the analyzer it drives: rtl_power's options and the sample detector for an RTL-SDR,
    /// hackrf_sweep's for a HackRF (rtl_power's letters refused).
    public func validate(rtlSDR: Bool, rtlPower: RTLPowerOptions, detector: SpectrumDetector?,
                         cispr: CISPRResolution? = nil) throws {
        if rtlSDR {
            _ = try usage { try RTLPowerSettings(rtlPower.commandLine(sweep: self)) }
            if let cispr {
                throw ValidationError("--rbw \(cispr): the RTL-SDR sweep writes rtl_power's bins (-f low:high:bin); "
                    + "CISPR bins on an RTL-SDR come from watch, meter, events and record")
            }
            if let detector, detector != .sample {
                throw ValidationError("--detector \(detector.rawValue): the RTL-SDR sweep writes rtl_power's numbers "
                    + "(sample); the other detectors are for the HackRF")
            }
            return
        }
        try rtlPower.rejectForHackRF()
        try validateForHackRF()
        _ = try binWidthHz(cispr: cispr)
    }
}
