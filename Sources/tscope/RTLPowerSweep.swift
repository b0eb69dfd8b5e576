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

/// rtl_power's number suffixes (osmocom/rtl-sdr src/convenience/convenience.c,
/// atofs/atoft/atofp): k/M/G for frequencies, s/m/h for times, % for crop.
enum RTLPowerNumber {
    static func frequency(_ text: String) -> Double? {
        scaled(text, suffixes: ["k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9])
    }

    static func seconds(_ text: String) -> Double? {
        scaled(text, suffixes: ["s": 1, "S": 1, "m": 60, "M": 60, "h": 3600, "H": 3600])
    }

    static func fraction(_ text: String) -> Double? { scaled(text, suffixes: ["%": 0.01]) }

    private static func scaled(_ text: String, suffixes: [Character: Double]) -> Double? {
        guard let last = text.last else { return nil }
        if let factor = suffixes[last] { return Double(text.dropLast()).map { $0 * factor } }
        return Double(text)
    }
}

/// The parsed and checked rtl_power command line.
struct RTLPowerSettings {
    var plan: RTLSDRHopPlan
    var window: SpectralWindow
    var gain: RTLSDRGain
    /// seconds between reports (at least 1)
    var intervalSeconds: Int
    /// stop after this many seconds; nil = never
    var exitSeconds: Int?
    var singleShot: Bool
    var outputPath: String?

    init(sweep: SweepCommand) throws {
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
        intervalSeconds = max(1, Int(interval.rounded()))
        exitSeconds = try options.exitTimer.map { text -> Int in
            guard let value = RTLPowerNumber.seconds(text), value.isFinite, value >= 0 else {
                throw ValidationError("-e \(text): expected seconds, or a number with s/m/h, e.g. -e 1h")
            }
            return Int(value.rounded())
        }
        if exitSeconds == 0 { exitSeconds = nil }
        singleShot = sweep.oneShot
        if sweep.outputPath != nil && options.filename != nil {
            throw ValidationError("give the output file once: as -r FILE or as the last argument")
        }
        outputPath = options.filename ?? sweep.outputPath
    }
}

/// rtl_power's main loop: hop the plan continuously; when an interval has
/// passed, print one line per hop (all stamped with the same second), reset
/// the integration, and stop after one report with -1 or when -e expires.
final class RTLPowerSweep {
    let settings: RTLPowerSettings
    let deviceOptions: DeviceOptions

    init(settings: RTLPowerSettings, deviceOptions: DeviceOptions) {
        self.settings = settings
        self.deviceOptions = deviceOptions
    }

    func run() throws {
        let plan = settings.plan
        report(plan)
        let opened: DeviceSelection.OpenedRTLSDR
        opened = try deviceOptions.selection.openRTLSDR()
        try opened.device.setGain(settings.gain)
        defer {
            opened.device.powerDown()
            opened.device.transport.close()
        }
        // created once the dongle answers: a run that cannot start leaves no file
        let writer = RTLPowerCSVWriter(sink: try SweepOutput.open(settings.outputPath))
        let reporter = RTLPowerReporter(settings: settings, writer: writer, start: Int(time(nil)))
        let hopper = RTLSDRHopper(device: opened.device, plan: plan, window: settings.window)
        let done = DispatchSemaphore(value: 0)
        let outcome = RTLPowerOutcome()
        try hopper.start(onPass: { accumulator in reporter.pass(accumulator) },
                         onEnd: { error in
                             outcome.set(error)
                             done.signal()
                         })
        let signals = SignalWatch(signals: [SIGINT, SIGTERM, SIGHUP]) { reporter.requestStop() }
        done.wait()
        signals.cancel()
        hopper.stop()
        var failure = reporter.writeError
        do { try writer.flush() } catch { failure = failure ?? "\(error)" }
        if let error = outcome.error { failure = failure ?? error.description }
        if let failure { throw CommandError(failure) }
    }

    /// What rtl_power prints about the plan on stderr.
    private func report(_ plan: RTLSDRHopPlan) {
        let lines = [
            "Number of frequency hops: \(plan.hopCount)",
            "Dongle bandwidth: \(plan.sampleRateHz)Hz",
            "Downsampling by: \(plan.downsample)x",
            "Cropping by: \(String(format: "%0.2f", plan.crop * 100))%",
            "Total FFT bins: \(plan.hopCount * plan.fftSize)",
            "Logged FFT bins: \(Int(Double(plan.hopCount * plan.fftSize) * (1 - plan.crop)))",
            "FFT bin size: \(String(format: "%0.2f", plan.binWidthHz))Hz",
            "Buffer size: \(plan.bufferBytes) bytes",
            "Reporting every \(settings.intervalSeconds) seconds",
        ]
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// The error hopping ended with, set once on the hop thread.
final class RTLPowerOutcome: Sendable {
    private let stored = Locked<RTLSDRHopError?>(nil)
    func set(_ error: RTLSDRHopError?) { stored.value = error }
    var error: RTLSDRHopError? { stored.value }
}

/// Decides after each pass whether a report is due and writes it; runs on
/// the hop thread.
final class RTLPowerReporter: @unchecked Sendable {
    private let settings: RTLPowerSettings
    private let writer: RTLPowerCSVWriter
    private var nextTick: Int
    private let exitTime: Int?
    private let lock = NSLock()
    private var stopRequested = false
    private(set) var writeError: String?

    init(settings: RTLPowerSettings, writer: RTLPowerCSVWriter, start: Int) {
        self.settings = settings
        self.writer = writer
        nextTick = start + settings.intervalSeconds
        exitTime = settings.exitSeconds.map { start + $0 }
    }

    /// SIGINT/SIGTERM: finish this pass, then stop (rtl_power's first Ctrl-C).
    func requestStop() { lock.withLock { stopRequested = true } }

    /// Returns false to stop hopping.
    func pass(_ accumulator: RTLSDRHopAccumulator) -> Bool {
        if lock.withLock({ stopRequested }) { return false }
        let now = Int(time(nil))
        guard now >= nextTick else { return true }
        let plan = accumulator.plan
        do {
            for hop in 0..<plan.hopCount {
                let centre = plan.hopCenterHz(hop)
                try writer.writeHop(seconds: now, lowHz: centre - plan.printedHalfWidthHz,
                                    highHz: centre + plan.printedHalfWidthHz, stepHz: plan.binWidthHz,
                                    samples: accumulator.samples(hop: hop), values: accumulator.hopDecibels(hop))
            }
            try writer.flush()
        } catch {
            writeError = "\(error)"
            return false
        }
        accumulator.reset()
        while Int(time(nil)) >= nextTick { nextTick += settings.intervalSeconds }
        if settings.singleShot { return false }
        if let exitTime, Int(time(nil)) >= exitTime { return false }
        return true
    }
}
