import ArgumentParser
import Capture
import Devices
import Foundation
import Runs
import Signals
import ThreadKit
import USBDriver

/// Headless recording into the capture store (or raw I/Q as SigMF).
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record the spectrum into a capture file (SQLite), or raw I/Q as SigMF with --raw.",
        discussion: """
            The file name is built from operator, label and UTC start, e.g. bench2_fm-survey_20261121T101500Z.tscope, \
            in --output DIR (default: the current directory), unless --output names a file (later recordings are \
            appended to it as new sessions). Frames are committed twice a second: a crash loses under a second. \
            Ctrl-C or SIGTERM stop early and keep everything recorded. A write error (disk full) ends the \
            recording at once, keeping what was stored, exit 1. At the end the requested and achieved frame rates, \
            the dropped and bad blocks are printed and stored.
            """
    )

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var detectorOption: DetectorOption

    @Option(name: [.customShort("f"), .long], help: "Band to record, start:stop in MHz.", transform: Band.init(parsing:))
    var band: Band = try! Band(parsing: "88:108")

    @Option(name: [.customShort("w"), .customLong("bin-width")], help: "Bin width in Hz (the device may round it).")
    var binWidth: Double = 100_000

    @Option(name: .customLong("frame-rate"),
            help: "Frames per second to store, each the per-bin peak of the sweeps since the last; 0: every sweep.")
    var frameRate: Double = 10

    @Option(help: "Label for the file name and metadata, e.g. fm-survey.")
    var label: String?

    @Option(name: .customLong("operator"), help: "Operator or bench name for the file name and metadata.")
    var operatorName: String?

    @Option(help: "Stop after this long: seconds, or with a unit: 90s, 5m, 1h.", transform: TimeSpan.init(parsing:))
    var duration: TimeSpan?

    @Option(name: [.customShort("o"), .long], help: "Directory for a new file, or a file path.")
    var output: String = "."

    @Flag(help: "Record raw I/Q as SigMF (.sigmf-data + .sigmf-meta) instead of spectra: ci8 from a HackRF (each sweep block), cu8 from an RTL-SDR (tuned to the band centre at 2.4 MS/s).")
    var raw = false

    @Option(name: .customShort("l", allowingJoined: true), help: "LNA (IF) gain, 0–40 dB in 8 dB steps.")
    var lnaGain: Int = 16

    @Option(name: .customShort("g", allowingJoined: true), help: "VGA (baseband) gain, 0–62 dB in 2 dB steps.")
    var vgaGain: Int = 20

    @Option(name: .customShort("a", allowingJoined: true), help: "RF amplifier: 1 on, 0 off.")
    var amp: UInt32 = 0

    func validate() throws {
        guard binWidth.isFinite, binWidth > 0 else { throw ValidationError("--bin-width must be a positive number of Hz") }
        guard frameRate.isFinite, frameRate >= 0 else { throw ValidationError("--frame-rate must be 0 or more") }
        guard amp <= 1 else { throw ValidationError("-a (amp) shall be 0 or 1") }
    }

    /// `.directory` if `--output` is an existing directory or ends with "/", else `.file`.
    func outputTarget() -> RecordingSession.Plan.Output {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
        return (exists && isDirectory.boolValue) || output.hasSuffix("/") ? .directory(output) : .file(output)
    }

    func run() throws {
        let gains: HackRFGains
        gains = try HackRFGains(lnaDB: lnaGain, vgaDB: vgaGain)
        if case .directory(let directory) = outputTarget() {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw CommandError("cannot create the output directory \(directory): \(error.localizedDescription)")
            }
        }
        var metadata = CaptureMetadata(format: "tscope")
        metadata.serial = deviceOptions.serial
        metadata.gains = "lna=\(gains.lnaDB) vga=\(gains.vgaDB) amp=\(amp)"
        metadata.writerVersion = TscopeVersion.number
        metadata.utcOffsetSeconds = TimeZone.current.secondsFromGMT()
        if raw && deviceOptions.device.isRTLSDR {
            try RawRTLSDRRecording(command: self, metadata: metadata).run()
        } else if raw {
            let opened: OpenedDevice
            opened = try deviceOptions.open()
            defer { opened.transport.close() }
            metadata.device = opened.isDemo ? "\(opened.name) (demo)" : opened.name
            metadata.serial = opened.transport.deviceInfo.serialNumber
            try RawRecording(command: self, opened: opened, gains: gains, metadata: metadata).run()
        } else {
            try SpectrumRecording(command: self, gains: gains, metadata: metadata).run()
        }
    }
}

/// Waits for the end of a recording: the duration, SIGINT/SIGTERM/SIGHUP, or
/// a failure; shows a countdown on stderr when it is a terminal.
final class RecordingWait: @unchecked Sendable {
    enum End { case duration, signal, failure(String) }

    private let wake = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stopRequested = false
    private var failureMessage: String?

    /// Records the first failure and wakes the wait (any thread).
    func fail(_ message: String) {
        lock.withLock { if failureMessage == nil { failureMessage = message } }
        wake.signal()
    }

    /// - Parameters:
    ///   - duration: [s], nil = until a signal
    ///   - status: text after the elapsed time on the countdown line
    func wait(duration: Double?, started: Double, status: () -> String) -> End {
        let signals = SignalWatch(signals: [SIGINT, SIGTERM, SIGHUP]) { [self] in
            lock.withLock { stopRequested = true }
            wake.signal()
        }
        defer { signals.cancel() }
        let countdown = isatty(STDERR_FILENO) == 1
        defer { if countdown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) } }
        while true {
            if let message = lock.withLock({ failureMessage }) { return .failure(message) }
            if lock.withLock({ stopRequested }) { return .signal }
            let elapsed = monotonicSeconds() - started
            if let duration, elapsed >= duration { return .duration }
            if countdown {
                var line = "\r\u{1B}[K● REC \(Self.clock(elapsed, roundingUp: false))"
                if let duration {
                    line += " / \(Self.clock(duration, roundingUp: true)), "
                        + "\(Self.clock(duration - elapsed, roundingUp: true)) left"
                }
                FileHandle.standardError.write(Data((line + "  " + status()).utf8))
            }
            let step = duration.map { min(0.25, max(0.001, $0 - elapsed)) } ?? 0.25
            _ = wake.wait(timeout: .now() + step)
        }
    }

    /// `m:ss` or `h:mm:ss`; elapsed time rounds down, time left up (a countdown never shows 0:00 early)
    static func clock(_ seconds: Double, roundingUp: Bool) -> String {
        let total = max(0, Int(seconds.rounded(roundingUp ? .up : .down)))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}

/// `tscope record`: live spectra into the capture store, from any analyzer;
/// a device lost mid-run is reconnected for `--reconnect-timeout` and the
/// outage is marked in the capture.
struct SpectrumRecording {
    let command: RecordCommand
    let gains: HackRFGains
    let metadata: CaptureMetadata

    func run() throws {
        let recorder = RecordingSession()
        let waiter = RecordingWait()
        let source: ReconnectingSpectrumSource
        let band: FrequencyRange
        var metadata = metadata
        let analyzer: SelectedAnalyzer
        (source, analyzer) = try command.deviceOptions.spectrumSource(
            headless: true,
            hackRF: .init(gains: gains, ampEnabled: command.amp == 1,
                          detector: command.detectorOption.chosen(default: .peak)),
            onFrame: { recorder.post($0) },
            onGap: { gap in recorder.markGap(from: gap.fromTimestamp, to: gap.toTimestamp, reason: gap.reason) },
            onGiveUp: { waiter.fail($0) })
        band = try command.band.within(analyzer.kind.tunableRange, option: "--band")
        metadata.device = analyzer.isDemo ? "\(analyzer.name) (demo)" : analyzer.name
        metadata.serial = analyzer.serial ?? metadata.serial
        if analyzer.kind != .hackrf { metadata.gains = nil }
        try source.start(band: band, binWidthHz: command.binWidth)
        defer { source.stop() }
        let duration = command.duration?.seconds
        let plan = RecordingSession.Plan(
            output: command.outputTarget(), label: command.label, operatorName: command.operatorName,
            duration: duration, requestedFrameRate: command.frameRate > 0 ? command.frameRate : nil,
            band: band, binWidthHz: command.binWidth, metadata: metadata)
        let path: String
        let started = monotonicSeconds()
        // a write error (disk full…) ends the wait at once
        let counters = source.counters
        path = try recorder.start(plan, deviceDroppedBlocks: counters.droppedBlocks,
                                  deviceBadBlocks: counters.badBlocks, onFailure: { waiter.fail("\($0)") })
        FileHandle.standardError.write(Data("recording \(path)\n".utf8))
        let end = waiter.wait(duration: duration, started: started) {
            let counters = source.counters
            let state = source.statusLine.map { ", \($0)" } ?? ""
            return "\(counters.frames) sweeps, \(counters.droppedBlocks) dropped blocks, \(counters.badBlocks) bad blocks"
                + state
        }
        source.stop()
        let summary: RecordingSession.Summary?
        do {
            let counters = source.counters
            summary = try recorder.stop(deviceDroppedBlocks: counters.droppedBlocks, deviceBadBlocks: counters.badBlocks)
        } catch {
            throw CommandError("\(error); what was committed before is kept in \(path)")
        }
        if let summary {
            report(summary)
            if let failure = summary.failure {
                throw CommandError("\(failure); recording ended, \(summary.frames) frames stored in \(path)")
            }
        }
        if case .failure(let message) = end {
            throw CommandError("\(message); everything recorded before is kept in \(path)")
        }
    }

    private func report(_ summary: RecordingSession.Summary) {
        let requested = summary.requestedFrameRate.map { String(format: "%.2f/s", $0) } ?? "every sweep"
        let line = "\(summary.path): \(summary.frames) frames in \(String(format: "%.2f", summary.elapsed)) s; "
            + "frame rate requested \(requested), achieved \(String(format: "%.2f/s", summary.achievedFrameRate)); "
            + "dropped blocks \(summary.droppedBlocks), bad blocks \(summary.badBlocks), "
            + "dropped frames \(summary.droppedFrames)"
        FileHandle.standardError.write(Data((line + "\n").utf8))
        print(summary.path)
    }
}

/// `tscope record --raw`: each good 16384-byte HackRF sweep block's samples
/// into a SigMF recording, one capture segment per tuning.
struct RawRecording {
    let command: RecordCommand
    let opened: OpenedDevice
    let gains: HackRFGains
    let metadata: CaptureMetadata

    func run() throws {
        let band = command.band.range
        let plan: HackRFSweepPlan
        let driver: HackRFSweepDriver
        plan = try HackRFSweepPlan(band: band, binWidthHz: command.binWidth)
        driver = try HackRFSweepDriver(transport: opened.transport)
        try driver.configure(plan: plan, gains: gains, ampEnabled: command.amp == 1)
        let basePath = command.rawBasePath(startedAt: unixTimeNow())
        let writer: SigMFWriter
        writer = try SigMFWriter(
            basePath: basePath, datatype: .ci8, sampleRate: Double(HackRFSweepPlan.sampleRateHz),
            hardware: metadata.device,
            description: "HackRF sweep \(command.band) MHz, \(metadata.gains ?? ""): each 16384-byte block's "
                + "samples after its 10-byte header, one capture segment per tuning")
        let queue = RawBlockQueue(blockSize: HackRFProtocol.blockSize, capacity: 256)
        let waiter = RecordingWait()
        // each block's samples follow its header; the radio is tuned offsetHz above the block's frequency
        let writerThread = RawSigMFWriterThread(queue: queue, writer: writer, headerBytes: HackRFProtocol.headerSize,
                                                frequencyOffsetHz: Double(HackRFSweepPlan.offsetHz), waiter: waiter)
        try writerThread.record(duration: command.duration?.seconds, waiter: waiter,
                                start: {
                                    try driver.start(onBlock: { frequency, block in
                                                         queue.push(frequencyHz: frequency, timestamp: unixTimeNow(),
                                                                    block: block)
                                                     },
                                                     onEnd: { error in if let error { waiter.fail("\(error)") } })
                                },
                                stop: { driver.stop() },
                                status: { "\(driver.goodBlockCount) blocks, \(queue.dropped) dropped" })
    }
}

/// `tscope record --raw --device rtlsdr|demo-rtlsdr`: the dongle tuned to
/// the band's centre at 2.4 MS/s, its u8 I/Q as SigMF cu8 (one segment).
struct RawRTLSDRRecording {
    let command: RecordCommand
    let metadata: CaptureMetadata
    /// sample rate [samples/s]: rtl_power's widest clean rate
    static let sampleRate: UInt32 = 2_400_000

    func run() throws {
        let band = command.band.range
        let opened = try command.deviceOptions.openRTLSDR()
        let device = opened.device
        defer { device.powerDown() }
        let rate: Double
        rate = try device.setSampleRate(Self.sampleRate)
        try device.setCenterFrequency(UInt32(band.centerHz.rounded()))
        try device.resetBuffer()
        let basePath = command.rawBasePath(startedAt: unixTimeNow())
        let writer: SigMFWriter
        writer = try SigMFWriter(basePath: basePath, datatype: .cu8, sampleRate: rate,
                                 hardware: opened.isDemo ? "\(opened.name) (demo)" : opened.name,
                                 description: "RTL-SDR at \(band.centerHz / 1e6) MHz, interleaved u8 I/Q")
        // the stream's chunks packed into whole transfers: a paced transport hands out small ones
        let queue = RawBlockQueue(blockSize: RTLSDRStreaming.transferSize, capacity: 256, coalesce: true)
        let waiter = RecordingWait()
        let writerThread = RawSigMFWriterThread(queue: queue, writer: writer, headerBytes: 0, frequencyOffsetHz: 0,
                                                waiter: waiter)
        let center = UInt64(band.centerHz.rounded())
        try writerThread.record(duration: command.duration?.seconds, waiter: waiter,
                                start: {
                                    try device.startStreaming(
                                        onData: { queue.push(frequencyHz: center, timestamp: unixTimeNow(), block: $0) },
                                        onEnd: { error in if let error { waiter.fail("\(error)") } })
                                },
                                stop: { device.stopStreaming() },
                                status: { "\(writer.sampleCount) samples, \(queue.dropped) dropped" })
    }
}

extension RecordCommand {
    /// The SigMF base path (without .sigmf-data/-meta) for a raw recording.
    func rawBasePath(startedAt: Double) -> String {
        let name = CaptureFileName.make(operatorName: operatorName, label: label, startedAt: startedAt,
                                        extension: "sigmf-data")
        switch outputTarget() {
        case .directory(let directory):
            return String(CaptureFileName.unused(name, in: directory).dropLast(".sigmf-data".count))
        case .file(let file):
            return file.hasSuffix(".sigmf-data") || file.hasSuffix(".sigmf-meta")
                ? String(file.dropLast(".sigmf-data".count)) : file
        }
    }
}

/// The writer thread of a raw recording: appends each queued block's samples
/// (after `headerBytes`) to the SigMF file at the block's frequency +
/// `frequencyOffsetHz`. A write error ends the recording through `waiter`;
/// what was written before is kept.
final class RawSigMFWriterThread: @unchecked Sendable {
    private let queue: RawBlockQueue
    private let writer: SigMFWriter
    private let done = DispatchSemaphore(value: 0)

    init(queue: RawBlockQueue, writer: SigMFWriter, headerBytes: Int, frequencyOffsetHz: Double, waiter: RecordingWait) {
        self.queue = queue
        self.writer = writer
        let thread = Thread { [done] in
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: queue.blockSize, alignment: 16)
            defer {
                block.deallocate()
                done.signal()
            }
            var failed = false
            while let (frequency, time, length) = queue.pop(into: block) {
                guard !failed, length > headerBytes else { continue }
                let samples = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(block)[headerBytes..<length])
                do {
                    try writer.append(samples: samples, centerFrequencyHz: Double(frequency) + frequencyOffsetHz,
                                      timestamp: time)
                } catch {
                    failed = true
                    waiter.fail("\(error)")
                }
            }
        }
        thread.name = "tscope.sigmf.writer"
        thread.start()
    }

    /// Stops taking blocks and waits for the queued ones to be written.
    private func finish() {
        queue.close()
        done.wait()
    }

    /// Starts the device (`start`, whose blocks go into the queue), records
    /// for `duration` [s] or until a signal or failure, stops it (`stop`) and
    /// closes the files; `status` is the countdown line's text.
    func record(duration: Double?, waiter: RecordingWait, start: () throws -> Void, stop: () -> Void,
                status: () -> String) throws {
        let started = monotonicSeconds()
        do {
            try start()
        } catch {
            finish()
            writer.discardIfEmpty()
            throw error
        }
        FileHandle.standardError.write(Data("recording \(writer.dataPath)\n".utf8))
        let end = waiter.wait(duration: duration, started: started, status: status)
        stop()
        try close(end: end, elapsed: monotonicSeconds() - started)
    }

    /// Finishes, closes the SigMF files and reports; a failure that ended the
    /// recording becomes the command's error (everything before it kept).
    private func close(end: RecordingWait.End, elapsed: Double) throws {
        finish()
        // the meta file is complete at every moment: report and print it even when the data's flush fails
        var flushError: Error?
        do { try writer.finish() } catch { flushError = error }
        FileHandle.standardError.write(Data(("\(writer.metaPath): \(writer.sampleCount) samples in "
            + "\(writer.segmentCount) segments in \(String(format: "%.2f", elapsed)) s; "
            + "dropped blocks \(queue.dropped)\n").utf8))
        print(writer.metaPath)
        if case .failure(let message) = end {
            throw CommandError("\(message); recording ended, what was written is kept in \(writer.metaPath)")
        }
        if let flushError {
            throw CommandError("\(flushError); recording ended, what was written is kept in \(writer.metaPath)")
        }
    }
}

