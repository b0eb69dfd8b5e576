import Capture
import DSP
import Devices
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// `tscope sweep` on a HackRF: hackrf_sweep's per-block work (count sweeps,
/// FFT, write its text or binary lines) on a configured driver, until the
/// sweeps are done, the device fails or stalls for a second (as hackrf_sweep:
/// "couldn't transfer any data for one second"), or a stop signal arrives.
/// The per-block work runs on the USB thread as hackrf_sweep's callback
/// does: its output is every block in order, none dropped.
public final class HackRFSweepRun: Sendable {
    public enum Outcome: Sendable {
        case finished
        case interrupted
        case failed(String)

        public var errorMessage: String? {
            if case .failed(let message) = self { return message }
            return nil
        }
    }

    /// What one run did: for hackrf_sweep's closing line.
    public struct Summary: Sendable {
        public var sweeps: Int
        public var seconds: Double
        public var badBlocks: Int

        /// "Total sweeps: 12 in 1.23456 seconds (9.72 sweeps/second)[, 2 bad blocks skipped]"
        public var line: String {
            let rate = seconds > 0 ? Double(sweeps) / seconds : 0
            var text = "Total sweeps: \(sweeps) in \(String(format: "%.5f", seconds)) seconds"
                + " (\(String(format: "%.2f", rate)) sweeps/second)"
            if badBlocks > 0 { text += ", \(badBlocks) bad blocks skipped" }
            return text
        }
    }

    private struct State {
        let fft: SweepFFT
        let writer: HackRFSweepWriter
        var counter: HackRFSweepCounter
    }

    private let state: Guarded<State>
    private let latch = CompletionLatch<Outcome>()

    /// - Parameter conversion: a converter in front of the HackRF: lines are written at real frequencies
    public init(plan: HackRFSweepPlan, sink: sending OutputSink, layout: HackRFSweepWriter.Layout, sweepLimit: Int?,
                detector: SpectrumDetector = .sample, conversion: FrequencyConversion? = nil) {
        let writer = HackRFSweepWriter(sink: sink, layout: layout, fftSize: plan.fftSize)
        writer.conversion = conversion
        // `sample` is hackrf_sweep's FFT of the block's last N samples, byte for byte
        state = Guarded(State(fft: SweepFFT(fftSize: plan.fftSize, detector: detector,
                                          maxSamples: HackRFProtocol.samplesAfterHeader),
                            writer: writer,
                            counter: HackRFSweepCounter(firstStartHz: UInt64(plan.ranges[0].startMHz) * 1_000_000,
                                                        sweepLimit: sweepLimit)))
    }

    /// hackrf_sweep's whole run: opens the chosen HackRF, configures it, and
    /// sweeps into `outputPath` (nil or "-": stdout), created only once the
    /// device answers, so a run that cannot start leaves no file.
    public static func run(selection: DeviceSelection, plan: HackRFSweepPlan, gains: HackRFGains, ampEnabled: Bool,
                           antennaPower: Bool, outputPath: String?, layout: HackRFSweepWriter.Layout, sweepLimit: Int?,
                           detector: SpectrumDetector) throws -> Summary {
        let opened = try selection.openHackRF()
        defer { opened.transport.close() }
        let driver = try HackRFSweepDriver(transport: opened.transport)
        try driver.configure(plan: plan, gains: gains, ampEnabled: ampEnabled, antennaPower: antennaPower)
        return try run(driver: driver, plan: plan, sink: try SweepOutput.open(outputPath), layout: layout,
                       sweepLimit: sweepLimit, detector: detector, conversion: selection.conversion)
    }

    /// The ranges (`-f`, whole MHz) to sweep for real ones behind a converter:
    /// whole MHz again, so the offset must be whole MHz too.
    public static func tunedRanges(_ real: [SweepRangeMHz], conversion: FrequencyConversion?) throws -> [SweepRangeMHz] {
        guard let conversion, !conversion.isIdentity else { return real }
        guard conversion.offsetHz.truncatingRemainder(dividingBy: 1e6) == 0 else {
            throw UsageError("--frequency-offset \(conversion): hackrf_sweep's -f takes whole MHz, so must the offset")
        }
        return try real.map { range in
            guard let band = FrequencyRange(lowerHz: Double(range.startMHz) * 1e6, upperHz: Double(range.stopMHz) * 1e6),
                  let tuned = conversion.tuned(band) else {
                throw UsageError("-f \(range.startMHz):\(range.stopMHz) with --frequency-offset \(conversion) "
                    + "would tune below 0 MHz")
            }
            return SweepRangeMHz(startMHz: Int(tuned.lowerHz / 1e6), stopMHz: Int(tuned.upperHz / 1e6))
        }
    }

    /// Runs on `driver` (configured) until the outcome; the output is flushed
    /// and hackrf_sweep's summary returned, or the failure thrown.
    public static func run(driver: HackRFSweepDriver, plan: HackRFSweepPlan, sink: sending OutputSink,
                           layout: HackRFSweepWriter.Layout, sweepLimit: Int?, detector: SpectrumDetector,
                           conversion: FrequencyConversion? = nil,
                           clock: any MonotonicClock = SystemClock()) throws -> Summary {
        let run = HackRFSweepRun(plan: plan, sink: sink, layout: layout, sweepLimit: sweepLimit, detector: detector,
                                 conversion: conversion)
        let started = clock.now
        try driver.start(onBlock: { frequency, block in run.handle(frequencyHz: frequency, block: block) },
                         onEnd: { error in run.end(error) })
        let outcome = run.waitUntilDone()
        driver.stop()
        let flushError = run.finish()
        let summary = Summary(sweeps: run.completedSweeps, seconds: clock.now - started,
                              badBlocks: driver.badBlockCount)
        FileHandle.standardError.write(Data((summary.line + "\n").utf8))
        if let message = flushError ?? outcome.errorMessage { throw CommandError(message) }
        return summary
    }

    public var completedSweeps: Int { state.withLock { $0.counter.completedSweeps } }

    /// One block from the USB thread.
    public func handle(frequencyHz: UInt64, block: UnsafeRawBufferPointer) {
        latch.noteActivity()
        guard latch.outcome == nil else { return }
        // The transfer's bytes enter the lock as an address: the closure runs
        // within this call, while libusb's buffer is valid, and keeps nothing.
        let address = UInt(bitPattern: block.baseAddress), byteCount = block.count
        let failure: String? = state.withLock { state in
            let block = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: byteCount)
            switch state.counter.decide(frequencyHz: frequencyHz) {
            case .skip: return nil
            case .finished:
                latch.complete(.finished)
                return nil
            case .process: break
            }
            state.fft.process(block)
            var now = timeval()
            gettimeofday(&now, nil)
            do {
                try state.writer.writeBlock(frequencyHz: frequencyHz, seconds: now.tv_sec, microseconds: Int(now.tv_usec),
                                            lower: state.fft.lowerQuarter, upper: state.fft.upperQuarter)
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure { latch.complete(.failed(failure)) }
    }

    /// The stream ended (an error, or stopped).
    public func end(_ error: USBError?) {
        latch.complete(error.map { .failed("\($0)") } ?? .interrupted)
    }

    /// Blocks until the outcome.
    public func waitUntilDone() -> Outcome {
        latch.wait(onSignal: .interrupted,
                   stall: .init(after: 1, .failed("couldn't transfer any data for one second")))
    }

    /// Flushes buffered output; returns an error message if that failed.
    public func finish() -> String? {
        state.withLock { state in
            do {
                try state.writer.flush()
                return nil
            } catch {
                return "\(error)"
            }
        }
    }
}

/// Where sweep lines go: a file (created, or truncated, when the sweep
/// starts) or stdout.
public enum SweepOutput {
    public static func open(_ path: String?) throws -> OutputSink {
        guard let path, path != "-" else { return OutputSink(fd: STDOUT_FILENO, name: "stdout") }
        return try OutputSink.file(path: path)
    }
}
