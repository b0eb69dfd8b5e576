import ArgumentParser
import Runs

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

    /// The values as rtl_power's command line gave them.
    func commandLine(sweep: SweepCommand) -> RTLPowerCommandLine {
        RTLPowerCommandLine(ranges: sweep.ranges, window: sweep.binWidthOrWindow, gain: sweep.gain, interval: interval,
                            exitTimer: exitTimer, crop: crop, singleShot: sweep.oneShot,
                            outputPath: sweep.outputPath, filename: filename)
    }

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

