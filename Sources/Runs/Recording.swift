import Analyzers
import Capture
import DSP
import Devices
import Foundation
import PostgresStore
import Signals
import ThreadKit
import USBDriver

/// What `tscope record` asked for, parsed and checked.
public struct RecordingRequest: Sendable {
    public var selection: DeviceSelection
    public var band: FrequencyRange
    /// the band as typed, for messages and the SigMF description
    public var bandText: String
    public var binWidthHz: Double
    /// frames stored per second, each the per-bin peak since the last; 0 = every sweep
    public var frameRate: Double
    public var label: String?
    public var operatorName: String?
    public var durationSeconds: Double?
    public var output: RecordingSession.Plan.Output
    /// the HackRF's gains and amplifier, from the selection's settings
    public var gains: HackRFGains { selection.settings.hackRFGains }
    public var ampEnabled: Bool { selection.settings.amplifier ?? false }
    public var detector: SpectrumDetector
    public var metadata: CaptureMetadata

    /// `outputPath` is a directory (the file named from label, operator and
    /// start) when it exists as one or ends with "/", created if missing;
    /// else the file to write.
    public init(selection: DeviceSelection, band: FrequencyRange, bandText: String, binWidthHz: Double,
                frameRate: Double, label: String?, operatorName: String?, durationSeconds: Double?,
                outputPath: String, detector: SpectrumDetector) throws {
        self.selection = selection
        self.band = band
        self.bandText = bandText
        self.binWidthHz = binWidthHz
        self.frameRate = frameRate
        self.label = label
        self.operatorName = operatorName
        self.durationSeconds = durationSeconds
        self.detector = detector
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: outputPath, isDirectory: &isDirectory)
        if SensorLink.isDatabaseURL(outputPath) {
            #if SensorLink
            output = .database(PostgresCaptureStore.database(try PostgresLocation(url: outputPath)))
            #else
            throw SensorLink.missing("recording into PostgreSQL")
            #endif
        } else if (exists && isDirectory.boolValue) || outputPath.hasSuffix("/") {
            do {
                try FileManager.default.createDirectory(atPath: outputPath, withIntermediateDirectories: true)
            } catch {
                throw CommandError("cannot create the output directory \(outputPath): \(error.localizedDescription)")
            }
            output = .directory(outputPath)
        } else {
            output = .file(outputPath)
        }
        metadata = CaptureMetadata(format: "tscope")
        metadata.serial = selection.serial
        let gains = selection.settings.hackRFGains
        metadata.gains = "lna=\(gains.lnaDB) vga=\(gains.vgaDB) amp=\((selection.settings.amplifier ?? false) ? 1 : 0)"
        metadata.writerVersion = TscopeVersion.number
        metadata.utcOffsetSeconds = TimeZone.current.secondsFromGMT()
    }

    /// The band, when the chosen analyzer tunes all of it.
    func band(within limits: FrequencyRange) throws -> FrequencyRange {
        guard band.lowerHz >= limits.lowerHz, band.upperHz <= limits.upperHz else {
            throw CommandError("--band \(bandText): " + BandLimits.outside(limits))
        }
        return band
    }

    /// The SigMF base path (without .sigmf-data/-meta) for a raw recording.
    func rawBasePath(startedAt: Double) throws -> String {
        let name = CaptureFileName.make(operatorName: operatorName, label: label, startedAt: startedAt,
                                        extension: "sigmf-data")
        switch output {
        case .directory(let directory):
            return String(CaptureFileName.unused(name, in: directory).dropLast(".sigmf-data".count))
        case .file(let file):
            return file.hasSuffix(".sigmf-data") || file.hasSuffix(".sigmf-meta")
                ? String(file.dropLast(".sigmf-data".count)) : file
        case .database(let database):
            throw CommandError("--raw writes SigMF files, not to \(database.name): give a file or a directory for --output")
        }
    }
}

/// How a band outside an analyzer's range is told.
public enum BandLimits {
    /// "outside the analyzer's 27–1766 MHz"
    public static func outside(_ limits: FrequencyRange) -> String {
        "outside the analyzer's \(FrequencyFormat.trimmed(limits.lowerHz / 1e6, maxFractionDigits: 3))–"
            + "\(FrequencyFormat.trimmed(limits.upperHz / 1e6, maxFractionDigits: 3)) MHz"
    }
}

/// Waits for the end of a recording: the duration, SIGINT/SIGTERM/SIGHUP, or
/// a failure; shows a countdown on stderr when it is a terminal.
public final class RecordingWait: Sendable {
    public enum End: Sendable { case duration, signal, failure(String) }

    private let latch = CompletionLatch<End>()
    /// what `started` is read on, and the countdown's elapsed time
    public let monotonicClock: any MonotonicClock

    public init(clock: any MonotonicClock = SystemClock()) { monotonicClock = clock }

    /// Records the first failure and ends the wait (any thread).
    public func fail(_ message: String) { latch.complete(.failure(message)) }

    /// - Parameters:
    ///   - duration: [s], nil = until a signal
    ///   - started: when the recording began [s, `monotonicClock`]
    ///   - status: text after the elapsed time on the countdown line
    public func wait(duration: Double?, started: Double, status: () -> String) -> End {
        let countdown = isatty(STDERR_FILENO) == 1
        defer { if countdown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) } }
        let remaining = duration.map { max(0, $0 - (monotonicClock.now - started)) }
        return latch.wait(onSignal: .signal, duration: remaining.map { .init(after: $0, .duration) }, tickSeconds: 0.25) {
            guard countdown else { return }
            let elapsed = monotonicClock.now - started
            var line = "\r\u{1B}[K● REC \(Self.clock(elapsed, roundingUp: false))"
            if let duration {
                line += " / \(Self.clock(duration, roundingUp: true)), "
                    + "\(Self.clock(duration - elapsed, roundingUp: true)) left"
            }
            FileHandle.standardError.write(Data((line + "  " + status()).utf8))
        }
    }

    /// `m:ss` or `h:mm:ss`; elapsed time rounds down, time left up (a countdown never shows 0:00 early)
    public static func clock(_ seconds: Double, roundingUp: Bool) -> String {
        let total = max(0, Int(seconds.rounded(roundingUp ? .up : .down)))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}

/// `tscope record`: live spectra into the capture store, from any analyzer;
/// a device lost mid-run is reconnected for `--reconnect-timeout` and the
/// outage is marked in the capture.
public struct SpectrumRecording {
    let request: RecordingRequest

    public init(request: RecordingRequest) { self.request = request }

    public func run() throws {
        // the supervisor's clock times the recording too
        let recorder = RecordingSession(clock: request.selection.clock)
        let waiter = RecordingWait(clock: request.selection.clock)
        let source: ReconnectingSpectrumSource
        let band: FrequencyRange
        var metadata = request.metadata
        let analyzer: SelectedAnalyzer
        (source, analyzer) = try request.selection.spectrumSource(
            headless: true,
            detector: request.detector,
            onFrame: { recorder.post($0) },
            onGap: { gap in recorder.markGap(from: gap.fromTimestamp, to: gap.toTimestamp, reason: gap.reason) },
            onGiveUp: { waiter.fail($0) })
        band = try request.band(within: analyzer.tunableRange)
        metadata.device = analyzer.isDemo ? "\(analyzer.name) (demo)" : analyzer.name
        metadata.serial = analyzer.serial ?? metadata.serial
        let unit = analyzer.tune(to: band)
        metadata.gains = analyzer.recordedSettings(unit: unit)
        metadata.conversion = analyzer.conversion
        try source.start(band: band, binWidthHz: request.binWidthHz)
        defer { source.stop() }
        let duration = request.durationSeconds
        let plan = RecordingSession.Plan(
            output: request.output, label: request.label, operatorName: request.operatorName,
            duration: duration, requestedFrameRate: request.frameRate > 0 ? request.frameRate : nil,
            band: band, binWidthHz: request.binWidthHz, metadata: metadata)
        let path: String
        let started = waiter.monotonicClock.now
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
extension RawRecording {
    /// `tscope record --raw`: the analyzer's own I/Q as SigMF, in its family's way — an RTL-SDR's
    /// u8 stream at the band centre, a HackRF's i8 sweep blocks.
    public static func run(_ request: RecordingRequest) throws {
        if request.selection.device.kind == .rtlsdr {
            try RawRTLSDRRecording(request: request).run()
        } else {
            try RawRecording(request: request).run()
        }
    }
}

public struct RawRecording {
    let request: RecordingRequest

    public init(request: RecordingRequest) { self.request = request }

    public func run() throws {
        let opened = try request.selection.openHackRF()
        defer { opened.transport.close() }
        var metadata = request.metadata
        metadata.device = opened.isDemo ? "\(opened.name) (demo)" : opened.name
        metadata.serial = opened.transport.deviceInfo.serialNumber
        let band = request.band
        let plan: HackRFSweepPlan
        let driver: HackRFSweepDriver
        plan = try HackRFSweepPlan(band: band, binWidthHz: request.binWidthHz)
        driver = try HackRFSweepDriver(transport: opened.transport)
        try driver.configure(plan: plan, gains: request.gains, ampEnabled: request.ampEnabled,
                             antennaPower: request.selection.settings.antennaPower ?? false)
        let basePath = try request.rawBasePath(startedAt: unixTimeNow())
        let writer: SigMFWriter
        writer = try SigMFWriter(
            basePath: basePath, datatype: .ci8, sampleRate: Double(HackRFSweepPlan.sampleRateHz),
            hardware: metadata.device,
            description: "HackRF sweep \(request.bandText) MHz, \(metadata.gains ?? ""): each 16384-byte block's "
                + "samples after its 10-byte header, one capture segment per tuning")
        let queue = RawBlockQueue(blockSize: HackRFProtocol.blockSize, capacity: 256)
        let waiter = RecordingWait()
        // each block's samples follow its header; the radio is tuned offsetHz above the block's frequency
        let writerThread = try RawSigMFWriterThread(queue: queue, writer: writer, headerBytes: HackRFProtocol.headerSize,
                                                frequencyOffsetHz: Double(HackRFSweepPlan.offsetHz), waiter: waiter)
        try writerThread.record(duration: request.durationSeconds, waiter: waiter,
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
public struct RawRTLSDRRecording {
    let request: RecordingRequest
    /// sample rate [samples/s]: rtl_power's widest clean rate
    static let sampleRate: UInt32 = 2_400_000

    public init(request: RecordingRequest) { self.request = request }

    public func run() throws {
        let band = request.band
        let opened = try request.selection.openRTLSDR()
        let device = opened.device
        defer { device.powerDown() }
        // the settings given, in the order the live source sets them (correction before the rate: the IF follows it)
        let settings = request.selection.settings
        if let problem = settings.problem(for: .rtlsdr) { throw UsageError(problem) }
        try device.setGain(settings.tunerGain ?? .automatic)
        if let ppm = settings.frequencyCorrectionPPM, ppm != 0 { try device.setFrequencyCorrection(ppm: ppm) }
        if let biasTee = settings.biasTee { try device.setBiasTee(biasTee) }
        let rate: Double
        rate = try device.setSampleRate(Self.sampleRate)
        try device.setCenterFrequency(UInt32(band.centerHz.rounded()))
        try device.resetBuffer()
        let described = settings.summary(for: .rtlsdr)
        let basePath = try request.rawBasePath(startedAt: unixTimeNow())
        let writer: SigMFWriter
        writer = try SigMFWriter(basePath: basePath, datatype: .cu8, sampleRate: rate,
                                 hardware: opened.isDemo ? "\(opened.name) (demo)" : opened.name,
                                 description: "RTL-SDR at \(band.centerHz / 1e6) MHz, \(described), interleaved u8 I/Q")
        // the stream's chunks packed into whole transfers: a paced transport hands out small ones
        let queue = RawBlockQueue(blockSize: RTLSDRStreaming.transferSize, capacity: 256, coalesce: true)
        let waiter = RecordingWait()
        let writerThread = try RawSigMFWriterThread(queue: queue, writer: writer, headerBytes: 0, frequencyOffsetHz: 0,
                                                waiter: waiter)
        let center = UInt64(band.centerHz.rounded())
        try writerThread.record(duration: request.durationSeconds, waiter: waiter,
                                start: {
                                    try device.startStreaming(
                                        onData: { queue.push(frequencyHz: center, timestamp: unixTimeNow(), block: $0) },
                                        onEnd: { error in if let error { waiter.fail("\(error)") } })
                                },
                                stop: { device.stopStreaming() },
                                status: { "\(writer.sampleCount) samples, \(queue.dropped) dropped" })
    }
}

/// The writer thread of a raw recording: appends each queued block's samples
/// (after `headerBytes`) to the SigMF file at the block's frequency +
/// `frequencyOffsetHz`. A write error ends the recording through `waiter`;
/// what was written before is kept.
final class RawSigMFWriterThread {
    private let queue: RawBlockQueue
    private let writer: SigMFWriter
    private let thread: WorkerThread

    init(queue: RawBlockQueue, writer: SigMFWriter, headerBytes: Int, frequencyOffsetHz: Double,
         waiter: RecordingWait) throws {
        self.queue = queue
        self.writer = writer
        guard let thread = WorkerThread({
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: queue.blockSize, alignment: 16)
            defer { block.deallocate() }
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
        }) else { throw CommandError("cannot start the SigMF writer thread") }
        self.thread = thread
    }

    /// Stops taking blocks and waits for the queued ones to be written.
    private func finish() {
        queue.close()
        thread.join()
    }

    /// Starts the device (`start`, whose blocks go into the queue), records
    /// for `duration` [s] or until a signal or failure, stops it (`stop`) and
    /// closes the files; `status` is the countdown line's text.
    func record(duration: Double?, waiter: RecordingWait, start: () throws -> Void, stop: () -> Void,
                status: () -> String) throws {
        let started = waiter.monotonicClock.now
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
        try close(end: end, elapsed: waiter.monotonicClock.now - started)
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

