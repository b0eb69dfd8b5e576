import ArgumentParser
import CommandOptions
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

    @OptionGroup var sweep: SweepOptions

    @OptionGroup var rtlPower: RTLPowerOptions

    @OptionGroup(title: "Analyzer settings (long forms of -l, -g, -a, -p; RTL-SDR: --gain for -g)")
    var analyzerOptions: AnalyzerSettingsOptions

    func validate() throws {
        if analyzerOptions.mode == .realtime {
            throw ValidationError("--mode realtime: sweep writes hackrf_sweep's and rtl_power's swept output; "
                + "real-time spectra come from watch, meter, events, record and serve")
        }
        if analyzerOptions.calibration != nil || analyzerOptions.levelUnitsGiven {
            throw ValidationError("--calibration, --unit, --correction, --antenna-factor: sweep writes hackrf_sweep's and rtl_power's own dB; "
                + "calibrated readings come from meter, watch, events and record")
        }
        try sweep.validate(rtlSDR: deviceOptions.device.isRTLSDR, rtlPower: rtlPower, detector: detectorOption.detector,
                           cispr: try analyzerOptions.settings.cisprResolution)
    }

    func run() throws {
        let sweep = sweep.overridden(by: analyzerOptions, rtlSDR: deviceOptions.device.isRTLSDR)
        let given = try analyzerOptions.settings
        // sweep drives a HackRF unless an RTL-SDR is named
        if let problem = given.problem(for: deviceOptions.device.kind ?? .hackrf) {
            throw ValidationError(problem)
        }
        if deviceOptions.device.isRTLSDR {
            try RTLPowerSweep(settings: try usage {
                try RTLPowerSettings(rtlPower.commandLine(sweep: sweep), conversion: deviceOptions.conversion)
            },
                              selection: deviceOptions.selection).run()
            return
        }
        try rtlPower.rejectFilenameForHackRF()
        _ = try HackRFSweepRun.run(
            selection: deviceOptions.selection,
            plan: try HackRFSweepPlan(ranges: try HackRFSweepRun.tunedRanges(try sweep.parsedRanges(),
                                                                        conversion: deviceOptions.conversion),
                                      binWidthHz: try sweep.binWidthHz(cispr: given.cisprResolution)),
            gains: try HackRFGains(lnaDB: sweep.lnaGain, vgaDB: try sweep.vgaGain), ampEnabled: sweep.amp == 1,
            antennaPower: sweep.antennaPower == 1, outputPath: sweep.outputPath, layout: sweep.binary ? .binary : .text,
            sweepLimit: sweep.oneShot ? 1 : sweep.sweepCount.map(Int.init),
            detector: detectorOption.chosen(default: .sample))
    }
}
