import ArgumentParser
import Capture
import DSP
import Devices
import Foundation
import Signals
import USBDriver

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
            _ = try RTLPowerSettings(sweep: self)
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
            try RTLPowerSweep(settings: try RTLPowerSettings(sweep: self), deviceOptions: deviceOptions).run()
            return
        }
        try rtlPower.rejectFilenameForHackRF()
        let plan: HackRFSweepPlan
        let gains: HackRFGains
        plan = try HackRFSweepPlan(ranges: try parsedRanges(), binWidthHz: Double(try binWidth))
        gains = try HackRFGains(lnaDB: lnaGain, vgaDB: try vgaGain)
        let opened: OpenedDevice
        let driver: HackRFSweepDriver
        opened = try deviceOptions.open()
        driver = try HackRFSweepDriver(transport: opened.transport)
        try driver.configure(plan: plan, gains: gains, ampEnabled: amp == 1, antennaPower: antennaPower == 1)
        defer { opened.transport.close() }
        // created once the device answers: a run that cannot start leaves no file; a started one keeps every line
        let sink = try SweepOutput.open(outputPath)

        let run = SweepRun(plan: plan, sink: sink, layout: binary ? .binary : .text,
                           sweepLimit: oneShot ? 1 : sweepCount.map(Int.init),
                           detector: detectorOption.chosen(default: .sample))
        let started = monotonicSeconds()
        try driver.start(onBlock: { frequency, block in run.handle(frequencyHz: frequency, block: block) },
                         onEnd: { error in run.end(error) })
        let outcome = run.waitUntilDone()
        driver.stop()
        let flushError = run.finish()
        let seconds = monotonicSeconds() - started
        let sweeps = run.completedSweeps
        let rate = seconds > 0 ? Double(sweeps) / seconds : 0
        var summary = "Total sweeps: \(sweeps) in \(String(format: "%.5f", seconds)) seconds"
            + " (\(String(format: "%.2f", rate)) sweeps/second)"
        if driver.badBlockCount > 0 { summary += ", \(driver.badBlockCount) bad blocks skipped" }
        FileHandle.standardError.write(Data((summary + "\n").utf8))
        if let message = flushError ?? outcome.errorMessage { throw CommandError(message) }
    }
}

/// hackrf_sweep's per-block work for one run: count sweeps, FFT, write.
/// `handle` runs on the USB thread; the command's thread waits.
final class SweepRun: @unchecked Sendable {
    enum Outcome {
        case finished
        case interrupted
        case failed(String)

        var errorMessage: String? {
            if case .failed(let message) = self { return message }
            return nil
        }
    }

    private let fft: SweepFFT
    private let writer: HackRFSweepWriter
    private var counter: HackRFSweepCounter
    private let lock = NSLock()
    private var outcome: Outcome?
    private let done = DispatchSemaphore(value: 0)
    /// blocks seen since the stall watchdog last looked
    private var recentBlocks = 0

    init(plan: HackRFSweepPlan, sink: OutputSink, layout: HackRFSweepWriter.Layout, sweepLimit: Int?,
         detector: SpectrumDetector = .sample) {
        // `sample` is hackrf_sweep's FFT of the block's last N samples, byte for byte
        fft = SweepFFT(fftSize: plan.fftSize, detector: detector, maxSamples: HackRFProtocol.samplesAfterHeader)
        writer = HackRFSweepWriter(sink: sink, layout: layout, fftSize: plan.fftSize)
        counter = HackRFSweepCounter(firstStartHz: UInt64(plan.ranges[0].startMHz) * 1_000_000, sweepLimit: sweepLimit)
    }

    var completedSweeps: Int { lock.withLock { counter.completedSweeps } }

    func handle(frequencyHz: UInt64, block: UnsafeRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        guard outcome == nil else { return }
        recentBlocks += 1
        switch counter.decide(frequencyHz: frequencyHz) {
        case .skip:
            return
        case .finished:
            conclude(.finished)
            return
        case .process:
            break
        }
        fft.process(block)
        var now = timeval()
        gettimeofday(&now, nil)
        do {
            try writer.writeBlock(frequencyHz: frequencyHz, seconds: now.tv_sec, microseconds: Int(now.tv_usec),
                                  lower: fft.lowerQuarter, upper: fft.upperQuarter)
        } catch {
            conclude(.failed("\(error)"))
        }
    }

    func end(_ error: USBError?) {
        lock.withLock {
            guard outcome == nil else { return }
            conclude(error.map { .failed("\($0)") } ?? .interrupted)
        }
    }

    /// Blocks until the sweeps are done, the device fails or stalls for a
    /// second (as hackrf_sweep: "couldn't transfer any data for one second"),
    /// or SIGINT/SIGTERM/SIGHUP arrives.
    func waitUntilDone() -> Outcome {
        let signals = SignalWatch(signals: [SIGINT, SIGTERM, SIGHUP]) { [self] in
            lock.withLock { if outcome == nil { conclude(.interrupted) } }
        }
        defer { signals.cancel() }
        while done.wait(timeout: .now() + 1) == .timedOut {
            let stalled = lock.withLock { () -> Bool in
                defer { recentBlocks = 0 }
                return recentBlocks == 0
            }
            if stalled {
                lock.withLock { if outcome == nil { conclude(.failed("couldn't transfer any data for one second")) } }
            }
        }
        return lock.withLock { outcome ?? .interrupted }
    }

    /// Flushes buffered output; returns an error message if that failed.
    func finish() -> String? {
        lock.withLock {
            do {
                try writer.flush()
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    /// Records the outcome once and wakes the waiting thread (lock held).
    private func conclude(_ result: Outcome) {
        outcome = result
        done.signal()
    }
}

/// Runs a handler when one of the given signals arrives, until cancelled;
/// the signals' default actions are restored on cancel.
final class SignalWatch {
    private var sources: [DispatchSourceSignal] = []
    private let numbers: [Int32]

    init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
        numbers = signals
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
        sources.removeAll()
        numbers.forEach { signal($0, SIG_DFL) }
    }
}

/// Where sweep lines go: a file (created, or truncated, when the sweep
/// starts) or stdout.
enum SweepOutput {
    static func open(_ path: String?) throws -> OutputSink {
        guard let path, path != "-" else { return OutputSink(fd: STDOUT_FILENO, name: "stdout") }
        return try OutputSink.file(path: path)
    }
}
