import Capture
import DSP
import Devices
import Foundation
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
        let opened: DeviceSelection.OpenedRTLSDR
        opened = try selection.openRTLSDR()
        try opened.device.setGain(settings.gain)
        defer {
            opened.device.powerDown()
            opened.device.transport.close()
        }
        // created once the dongle answers: a run that cannot start leaves no file
        let writer = RTLPowerCSVWriter(sink: try SweepOutput.open(settings.outputPath))
        let reporter = RTLPowerReporter(settings: settings, writer: writer, start: Int(time(nil)))
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
        var failure = reporter.writeError
        do { try writer.flush() } catch { failure = failure ?? "\(error)" }
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
