import Capture
import DSP
import Devices
import Foundation
import Synchronization
import Signals
import ThreadKit
import USBDriver

/// rtl_power's number suffixes (osmocom/rtl-sdr src/convenience/convenience.c,
/// atofs/atoft/atofp): k/M/G for frequencies, s/m/h for times, % for crop.
public enum RTLPowerNumber {
    public static func frequency(_ text: String) -> Double? {
        scaled(text, suffixes: ["k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9])
    }

    public static func seconds(_ text: String) -> Double? {
        scaled(text, suffixes: ["s": 1, "S": 1, "m": 60, "M": 60, "h": 3600, "H": 3600])
    }

    public static func fraction(_ text: String) -> Double? { scaled(text, suffixes: ["%": 0.01]) }

    private static func scaled(_ text: String, suffixes: [Character: Double]) -> Double? {
        guard let last = text.last else { return nil }
        if let factor = suffixes[last] { return Double(text.dropLast()).map { $0 * factor } }
        return Double(text)
    }
}

/// The parsed and checked rtl_power command line.
public struct RTLPowerSettings: Sendable {
    public var plan: RTLSDRHopPlan
    public var window: SpectralWindow
    public var gain: RTLSDRGain
    /// seconds between reports (at least 1)
    public var intervalSeconds: Int
    /// stop after this many seconds; nil = never
    public var exitSeconds: Int?
    public var singleShot: Bool
    public var outputPath: String?
    /// a converter in front of the dongle (`--frequency-offset`): the plan is
    /// in tuned frequencies, the rows are written at real ones
    public var conversion: FrequencyConversion?

    public init(plan: RTLSDRHopPlan, window: SpectralWindow, gain: RTLSDRGain, intervalSeconds: Int, exitSeconds: Int?,
                singleShot: Bool, outputPath: String?) {
        self.plan = plan
        self.window = window
        self.gain = gain
        self.intervalSeconds = intervalSeconds
        self.exitSeconds = exitSeconds
        self.singleShot = singleShot
        self.outputPath = outputPath
    }
}

/// rtl_power's command line as `sweep --device rtlsdr` takes it, before it is read.
public struct RTLPowerCommandLine: Sendable {
    /// -f low:high:bin
    public var ranges: [String]
    /// -w window, -g gain [dB], -i interval, -e exit timer, -c crop
    public var window: String?
    public var gain: String?
    public var interval: String?
    public var exitTimer: String?
    public var crop: String?
    /// -1
    public var singleShot: Bool
    /// -r FILE, or the trailing file name rtl_power takes
    public var outputPath: String?
    public var filename: String?

    public init(ranges: [String], window: String?, gain: String?, interval: String?, exitTimer: String?, crop: String?,
                singleShot: Bool, outputPath: String?, filename: String?) {
        self.ranges = ranges
        self.window = window
        self.gain = gain
        self.interval = interval
        self.exitTimer = exitTimer
        self.crop = crop
        self.singleShot = singleShot
        self.outputPath = outputPath
        self.filename = filename
    }
}

extension RTLPowerSettings {
    /// Reads rtl_power's command line; a value in the wrong form is a `UsageError` naming it.
    /// - Parameter conversion: a converter in front of the dongle: `-f` is in real frequencies
    public init(_ line: RTLPowerCommandLine, conversion: FrequencyConversion? = nil) throws {
        guard line.ranges.count == 1 else {
            throw UsageError("RTL-SDR: give exactly one -f low:high:bin, e.g. -f 88M:108M:125k")
        }
        let text = line.ranges[0]
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let low = RTLPowerNumber.frequency(parts[0]), let high = RTLPowerNumber.frequency(parts[1]),
              let bin = RTLPowerNumber.frequency(parts[2]) else {
            throw UsageError("-f \(text): expected low:high:bin in Hz with k/M/G suffixes, e.g. -f 88M:108M:125k")
        }
        var crop = 0.0
        if let cropText = line.crop {
            guard let value = RTLPowerNumber.fraction(cropText) else {
                throw UsageError("-c \(cropText): expected a percentage (20%) or a fraction (0.2)")
            }
            crop = value
        }
        var (tunedLow, tunedHigh) = (low, high)
        if let conversion, !conversion.isIdentity {
            guard let real = FrequencyRange(lowerHz: low, upperHz: high), let tuned = conversion.tuned(real) else {
                throw UsageError("-f \(text) with --frequency-offset \(conversion) would tune below 0 Hz")
            }
            (tunedLow, tunedHigh) = (tuned.lowerHz, tuned.upperHz)
        }
        let plan: RTLSDRHopPlan
        do {
            plan = try RTLSDRHopPlan(lowerHz: Int(tunedLow), upperHz: Int(tunedHigh), maxBinHz: Int(bin), crop: crop)
        } catch {
            throw UsageError("-f \(text): \(error)")
        }
        var window = SpectralWindow.rectangle  // rtl_power's default
        if let windowText = line.window {
            guard let chosen = SpectralWindow(rawValue: windowText) else {
                let names = SpectralWindow.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError("-w \(windowText): expected a window: \(names)")
            }
            window = chosen
        }
        var gain = RTLSDRGain.automatic
        if let gainText = line.gain {
            guard let dB = Double(gainText), dB.isFinite else {
                throw UsageError("-g \(gainText): expected the tuner gain in dB, e.g. -g 29.7")
            }
            gain = .nearest(dB: dB)
        }
        let interval = try line.interval.map { text -> Double in
            guard let value = RTLPowerNumber.seconds(text), value.isFinite else {
                throw UsageError("-i \(text): expected seconds, or a number with s/m/h, e.g. -i 10 or -i 5m")
            }
            return value
        } ?? 10
        var exitSeconds = try line.exitTimer.map { text -> Int in
            guard let value = RTLPowerNumber.seconds(text), value.isFinite, value >= 0 else {
                throw UsageError("-e \(text): expected seconds, or a number with s/m/h, e.g. -e 1h")
            }
            return Int(value.rounded())
        }
        if exitSeconds == 0 { exitSeconds = nil }
        if line.outputPath != nil && line.filename != nil {
            throw UsageError("give the output file once: as -r FILE or as the last argument")
        }
        self.init(plan: plan, window: window, gain: gain, intervalSeconds: max(1, Int(interval.rounded())),
                  exitSeconds: exitSeconds, singleShot: line.singleShot, outputPath: line.filename ?? line.outputPath)
        self.conversion = conversion.flatMap { $0.isIdentity ? nil : $0 }
    }
}

/// rtl_power's main loop: hop the plan continuously; when an interval has
/// passed, print one line per hop (all stamped with the same second), reset
/// the integration, and stop after one report with -1 or when -e expires.
public final class RTLPowerSweep {
    let settings: RTLPowerSettings
    let selection: DeviceSelection

    public init(settings: RTLPowerSettings, selection: DeviceSelection) {
        self.settings = settings
        self.selection = selection
    }

    public func run() throws {
        let plan = settings.plan
        report(plan)
        let opened: OpenedRTLSDR
        opened = try selection.openRTLSDR()
        try opened.device.setGain(settings.gain)
        defer {
            opened.device.powerDown()
            opened.device.transport.close()
        }
        // created once the dongle answers: a run that cannot start leaves no file
        let reporter = RTLPowerReporter(settings: settings, writer: RTLPowerCSVWriter(sink: try SweepOutput.open(settings.outputPath)),
                                        start: Int(time(nil)))
        let hopper = RTLSDRHopper(device: opened.device, plan: plan, window: settings.window)
        // the hop thread ends the run (its error, or nil once the reporter stops it)
        let ended = CompletionLatch<RTLSDRHopError?>()
        try hopper.start(onPass: { accumulator in reporter.pass(accumulator) },
                         onEnd: { error in ended.complete(error) })
        // a stop signal finishes the pass and its report first, as rtl_power's first Ctrl-C
        let signals = SignalWatch { reporter.requestStop() }
        let error = ended.wait()
        signals.cancel()
        hopper.stop()
        var failure = reporter.finish()
        if let error { failure = failure ?? error.description }
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

/// Decides after each pass whether a report is due and writes it; `pass`
/// runs on the hop thread, `requestStop` on a signal's.
final class RTLPowerReporter: Sendable {
    private struct State {
        var writer: RTLPowerCSVWriter
        /// the next report's time [Unix s]
        var nextTick: Int
        var writeError: String?
    }

    private let settings: RTLPowerSettings
    private let exitTime: Int?
    private let state: Guarded<State>
    private let stopRequested = Atomic<Bool>(false)

    init(settings: RTLPowerSettings, writer: sending RTLPowerCSVWriter, start: Int) {
        self.settings = settings
        exitTime = settings.exitSeconds.map { start + $0 }
        state = Guarded(State(writer: writer, nextTick: start + settings.intervalSeconds))
    }

    /// Flushes what is buffered; the first write error, if any.
    func finish() -> String? {
        state.withLock { state in
            do { try state.writer.flush() } catch { state.writeError = state.writeError ?? "\(error)" }
            return state.writeError
        }
    }

    /// SIGINT/SIGTERM: finish this pass, then stop (rtl_power's first Ctrl-C).
    func requestStop() { stopRequested.store(true, ordering: .relaxed) }

    /// Returns false to stop hopping.
    func pass(_ accumulator: RTLSDRHopAccumulator) -> Bool {
        if stopRequested.load(ordering: .relaxed) { return false }
        let now = Int(time(nil))
        let interval = settings.intervalSeconds
        guard state.withLock({ now >= $0.nextTick }) else { return true }
        // the rows copied out of the hop thread's accumulator (once per interval), then written under the lock
        let plan = accumulator.plan
        var rows = (0..<plan.hopCount).map { hop in
            (low: plan.hopCenterHz(hop) - plan.printedHalfWidthHz, high: plan.hopCenterHz(hop) + plan.printedHalfWidthHz,
             samples: accumulator.samples(hop: hop), values: Array(accumulator.hopDecibels(hop)))
        }
        if let conversion = settings.conversion {
            // at real frequencies; an inverting converter mirrors each hop and their order
            rows = rows.map { row in
                let a = Int(conversion.realHz(tunedHz: Double(row.low)).rounded())
                let b = Int(conversion.realHz(tunedHz: Double(row.high)).rounded())
                return (min(a, b), max(a, b), row.samples, conversion.inverted ? row.values.reversed() : row.values)
            }
            if conversion.inverted { rows.reverse() }
        }
        let reported = state.withLock { state -> Bool in
            do {
                for row in rows {
                    try row.values.withUnsafeBufferPointer { values in
                        try state.writer.writeHop(seconds: now, lowHz: row.low, highHz: row.high, stepHz: plan.binWidthHz,
                                                  samples: row.samples, values: values)
                    }
                }
                try state.writer.flush()
            } catch {
                state.writeError = "\(error)"
                return false
            }
            while Int(time(nil)) >= state.nextTick { state.nextTick += interval }
            return true
        }
        guard reported else { return false }
        accumulator.reset()
        if settings.singleShot { return false }
        if let exitTime, Int(time(nil)) >= exitTime { return false }
        return true
    }
}
