import ArgumentParser
import Devices
import Foundation
import Runs

/// Headless sweeps in hackrf_sweep's output layouts, with its options.
struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Sweep and write hackrf_sweep-compatible CSV (or -B binary); with --device rtlsdr, rtl_power CSV.",
        discussion: """
            Output fields (text): date, time, hz_low, hz_high, hz_bin_width, num_samples, dB, dB, …
            Each 20 MHz tuning step gives two lines, [f, f+5 MHz] and [f+10, f+15 MHz], exactly as hackrf_sweep.
            With --device rtlsdr or demo-rtlsdr it takes rtl_power's options instead and writes rtl_power's CSV:
              -f low:high:bin (k/M/G suffixes), -i interval, -1, -e exit timer (s/m/h), -g gain [dB],
              -w window, -c crop (20% or 0.2), [filename]
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: .customShort("f"), parsing: .singleValue,
            help: "Range start:stop in MHz, repeatable up to 10 times (default 0:6000); RTL-SDR: low:high:bin.")
    var ranges: [String] = []

    @Option(name: .customShort("w", allowingJoined: true),
            help: "FFT bin width in Hz, 2445–5000000 (default 1000000); RTL-SDR: window (rtl_power -w).")
    var binWidthOrWindow: String?

    @Option(name: .customShort("N", allowingJoined: true), help: "Number of sweeps to perform.")
    var sweepCount: UInt32?

    @Flag(name: .customShort("1"), help: "One sweep, then exit.")
    var oneShot = false

    @Option(name: .customShort("l", allowingJoined: true), help: "LNA (IF) gain, 0–40 dB in 8 dB steps.")
    var lnaGain: Int = 16

    @Option(name: .customShort("g", allowingJoined: true),
            help: "VGA (baseband) gain, 0–62 dB in 2 dB steps (default 20); RTL-SDR: tuner gain [dB] (default automatic).")
    var gain: String?

    @Option(name: .customShort("a", allowingJoined: true), help: "RF amplifier: 1 on, 0 off.")
    var amp: UInt32 = 0

    @Option(name: .customShort("p", allowingJoined: true), help: "Antenna port power: 1 on, 0 off.")
    var antennaPower: UInt32 = 0

    @Flag(name: .customShort("B"), help: "Binary output (hackrf_sweep -B records).")
    var binary = false

    @Option(name: .customShort("r"), help: "Output file ('-' or none: stdout).")
    var outputPath: String?

    @OptionGroup var rtlPower: RTLPowerOptions

    /// `-w` for the HackRF: the bin width [Hz]
    var binWidth: UInt32 {
        get throws {
            guard let text = binWidthOrWindow else { return 1_000_000 }
            guard let value = UInt32(text) else { throw ValidationError("-w \(text): expected a bin width in Hz, e.g. -w 100000") }
            return value
        }
    }

    /// `-g` for the HackRF: the VGA gain [dB]
    var vgaGain: Int {
        get throws {
            guard let text = gain else { return 20 }
            guard let value = Int(text) else { throw ValidationError("-g \(text): expected a VGA gain in dB, e.g. -g 20") }
            return value
        }
    }

    func validate() throws {
        if deviceOptions.device.isRTLSDR {
            _ = try usage { try RTLPowerSettings(rtlPower.commandLine(sweep: self)) }
            if let detector = detectorOption.detector, detector != .sample {
                throw ValidationError("--detector \(detector.rawValue): the RTL-SDR sweep writes rtl_power's numbers "
                    + "(sample); peak and average are for the HackRF")
            }
            return
        }
        try rtlPower.rejectForHackRF()
        _ = try binWidth
        _ = try vgaGain
        guard amp <= 1 else { throw ValidationError("-a (amp) shall be 0 or 1") }
        guard antennaPower <= 1 else { throw ValidationError("-p (antenna power) shall be 0 or 1") }
        if let sweepCount, sweepCount == 0 { throw ValidationError("-N must be at least 1") }
        _ = try parsedRanges()
    }

    /// `-f` values as MHz pairs; hackrf_sweep's default 0:6000 when none given.
    func parsedRanges() throws -> [SweepRangeMHz] {
        guard !ranges.isEmpty else { return [SweepRangeMHz(startMHz: 0, stopMHz: 6000)] }
        return try ranges.map { text in
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = UInt32(parts[0]), let stop = UInt32(parts[1]) else {
                throw ValidationError("-f \(text): expected start:stop in whole MHz, e.g. -f 2400:2500")
            }
            return SweepRangeMHz(startMHz: Int(start), stopMHz: Int(stop))
        }
    }

    func run() throws {
        if deviceOptions.device.isRTLSDR {
            try RTLPowerSweep(settings: try usage { try RTLPowerSettings(rtlPower.commandLine(sweep: self)) },
                              selection: deviceOptions.selection).run()
            return
        }
        try rtlPower.rejectFilenameForHackRF()
        _ = try HackRFSweepRun.run(
            selection: deviceOptions.selection,
            plan: try HackRFSweepPlan(ranges: try parsedRanges(), binWidthHz: Double(try binWidth)),
            gains: try HackRFGains(lnaDB: lnaGain, vgaDB: try vgaGain), ampEnabled: amp == 1, antennaPower: antennaPower == 1,
            outputPath: outputPath, layout: binary ? .binary : .text, sweepLimit: oneShot ? 1 : sweepCount.map(Int.init),
            detector: detectorOption.chosen(default: .sample))
    }
}
