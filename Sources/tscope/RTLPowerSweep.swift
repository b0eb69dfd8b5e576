import ArgumentParser
import Capture
import DSP
import Devices
import Foundation
import Runs
import Signals
import ThreadKit
import USBDriver

/// rtl_power's options that hackrf_sweep has no equivalent for (the shared
/// letters -f, -w, -g, -1 live in `SweepCommand`).
struct RTLPowerOptions: ParsableArguments {
    @Option(name: .customShort("i", allowingJoined: true),
            help: "RTL-SDR: integration interval, seconds or with s/m/h suffix (default 10).")
    var interval: String?

    @Option(name: .customShort("e", allowingJoined: true),
            help: "RTL-SDR: exit after this long, seconds or with s/m/h suffix (default: run until stopped).")
    var exitTimer: String?

    @Option(name: .customShort("c", allowingJoined: true),
            help: "RTL-SDR: crop each hop's edges, percent (20%) or fraction (0.2) (default 0).")
    var crop: String?

    @Argument(help: "RTL-SDR: output file ('-' or none: stdout), as rtl_power takes it.")
    var filename: String?

    /// These options mean nothing to a HackRF; each is named.
    func rejectForHackRF() throws {
        let given = [("-i", interval), ("-e", exitTimer), ("-c", crop)].filter { $0.1 != nil }.map(\.0)
        if let first = given.first {
            throw ValidationError("\(first) is an rtl_power option: use it with --device rtlsdr")
        }
    }

    /// A file name argument means nothing to a HackRF (it writes to -r FILE).
    /// Checked after parsing, not in `validate`: ArgumentParser names an
    /// unknown option (`-z 3`) only when validation passes, and the value
    /// after an unknown option lands here.
    func rejectFilenameForHackRF() throws {
        if let filename {
            throw ValidationError("unexpected argument '\(filename)': the HackRF writes to -r FILE "
                + "(a bare file name is rtl_power's, with --device rtlsdr)")
        }
    }
}

extension RTLPowerSettings {
    /// Parses rtl_power's command line as `sweep --device rtlsdr` takes it.
    init(sweep: SweepCommand) throws {
        let plan: RTLSDRHopPlan, window: SpectralWindow, gain: RTLSDRGain
        guard sweep.ranges.count == 1 else {
            throw ValidationError("RTL-SDR: give exactly one -f low:high:bin, e.g. -f 88M:108M:125k")
        }
        let text = sweep.ranges[0]
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let low = RTLPowerNumber.frequency(parts[0]), let high = RTLPowerNumber.frequency(parts[1]),
              let bin = RTLPowerNumber.frequency(parts[2]) else {
            throw ValidationError("-f \(text): expected low:high:bin in Hz with k/M/G suffixes, e.g. -f 88M:108M:125k")
        }
        let options = sweep.rtlPower
        let crop: Double
        if let cropText = options.crop {
            guard let value = RTLPowerNumber.fraction(cropText) else {
                throw ValidationError("-c \(cropText): expected a percentage (20%) or a fraction (0.2)")
            }
            crop = value
        } else {
            crop = 0
        }
        do {
            plan = try RTLSDRHopPlan(lowerHz: Int(low), upperHz: Int(high), maxBinHz: Int(bin), crop: crop)
        } catch {
            throw ValidationError("-f \(text): \(error)")
        }
        if let windowText = sweep.binWidthOrWindow {
            guard let chosen = SpectralWindow(rawValue: windowText) else {
                let names = SpectralWindow.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("-w \(windowText): expected a window: \(names)")
            }
            window = chosen
        } else {
            window = .rectangle  // rtl_power's default
        }
        if let gainText = sweep.gain {
            guard let dB = Double(gainText), dB.isFinite else {
                throw ValidationError("-g \(gainText): expected the tuner gain in dB, e.g. -g 29.7")
            }
            gain = .nearest(dB: dB)
        } else {
            gain = .automatic
        }
        let interval = try options.interval.map { text -> Double in
            guard let value = RTLPowerNumber.seconds(text), value.isFinite else {
                throw ValidationError("-i \(text): expected seconds, or a number with s/m/h, e.g. -i 10 or -i 5m")
            }
            return value
        } ?? 10
        let intervalSeconds = max(1, Int(interval.rounded()))
        var exitSeconds = try options.exitTimer.map { text -> Int in
            guard let value = RTLPowerNumber.seconds(text), value.isFinite, value >= 0 else {
                throw ValidationError("-e \(text): expected seconds, or a number with s/m/h, e.g. -e 1h")
            }
            return Int(value.rounded())
        }
        if exitSeconds == 0 { exitSeconds = nil }
        if sweep.outputPath != nil && options.filename != nil {
            throw ValidationError("give the output file once: as -r FILE or as the last argument")
        }
        self.init(plan: plan, window: window, gain: gain, intervalSeconds: intervalSeconds, exitSeconds: exitSeconds,
                  singleShot: sweep.oneShot, outputPath: options.filename ?? sweep.outputPath)
    }
}
