import DSP
import Devices
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// What `tscope zerospan` was asked.
public struct ZeroSpanRequest: Sendable {
    public var selection: DeviceSelection
    /// [Hz]
    public var frequencyHz: Double
    public var rbwHz: Double
    /// [s]
    public var sweepSeconds: Double
    public var trigger: ZeroSpanTrigger?
    /// share of the trace before the trigger [%]
    public var preTriggerPercent: Double
    /// traces, then exit; nil: until Ctrl-C
    public var count: Int?
    public var json: Bool

    public init(selection: DeviceSelection, frequencyHz: Double, rbwHz: Double, sweepSeconds: Double,
                trigger: ZeroSpanTrigger?, preTriggerPercent: Double, count: Int?, json: Bool) {
        self.selection = selection
        self.frequencyHz = frequencyHz
        self.rbwHz = rbwHz
        self.sweepSeconds = sweepSeconds
        self.trigger = trigger
        self.preTriggerPercent = preTriggerPercent
        self.count = count
        self.json = json
    }
}

/// `tscope zerospan`: power against time at one frequency, from a radio's
/// I/Q (HackRF receive mode, an RTL-SDR at one tuning). USB thread → bounded
/// drop-oldest ring of transfers (each stamped with its first sample's
/// index) → DSP thread: `ZeroSpanDetector` → `ZeroSpanTraceBuilder` →
/// `PulseMeasurement` → one line per trace. A lost transfer is counted and
/// the trace in progress is abandoned, so no trace straddles a gap.
public enum ZeroSpanRun {
    /// the sample rate a family streams for an RBW, or nil when it has no zero span here
    static func sampleRate(kind: AnalyzerKind, rbwHz: Double) -> Double? {
        switch kind.id {
        case AnalyzerKind.hackrf.id:
            // the lowest GSG advises (8 MS/s) while the RBW fits, else the highest
            return rbwHz <= Double(HackRFReceiveMode.lowestSampleRateHz) * ZeroSpanPlan.widestRBWShare
                ? Double(HackRFReceiveMode.lowestSampleRateHz) : Double(HackRFReceiveMode.highestSampleRateHz)
        case AnalyzerKind.rtlsdr.id:
            return Double(RawRTLSDRRecording.sampleRate)
        default:
            return nil
        }
    }

    public static func run(_ request: ZeroSpanRequest) throws {
        let selection = request.selection
        if selection.isRemote { throw CommandError("zerospan drives the analyzer itself; --remote is not taken") }
        let analyzer = try selection.selectAnalyzer()
        if analyzer.kind.id == AnalyzerKind.tinysa.id {
            try runTinySA(request, analyzer: analyzer)
            return
        }
        let (radio, plan) = try openRadio(analyzer: analyzer, selection: selection, frequencyHz: request.frequencyHz,
                                          rbwHz: request.rbwHz, sweepSeconds: request.sweepSeconds, fitting: false)
        defer { radio.close() }
        let (unit, offsetDB) = levelScale(analyzer: analyzer, selection: selection, plan: plan)
        let output = ZeroSpanOutput(request: request, plan: plan, unit: unit, device: analyzer.name)
        let pipeline = ZeroSpanPipeline(plan: plan, format: radio.format, offsetDB: offsetDB,
                                        trigger: request.trigger, preTriggerPercent: request.preTriggerPercent,
                                        count: request.count) { levels, number, firstSample, preTriggerPoints, dropped in
            output.trace(Array(levels), number: number, firstSample: firstSample,
                         preTriggerPoints: preTriggerPoints, droppedSamples: dropped)
        }
        try pipeline.run(radio: radio)
    }

    /// The radio streaming I/Q for a zero span, and the plan it measures by: a HackRF or an RTL-SDR
    /// driven natively, or a SoapySDR device at the rate its RBW wants (`zeroSpanRate`; the plan is made
    /// at the rate the device then reports). `fitting` (the view's steps) narrows an RBW wider than the
    /// rate takes to the widest, and lengthens a sweep too short for the trace's points to the shortest,
    /// rather than refuse them.
    static func openRadio(analyzer: SelectedAnalyzer, selection: DeviceSelection, frequencyHz: Double, rbwHz: Double,
                          sweepSeconds: Double, fitting: Bool) throws -> (ZeroSpanRadio, ZeroSpanPlan) {
        let device = "the \(analyzer.kind.model)"
        func plan(rate: Double) throws -> ZeroSpanPlan {
            var rbw = rbwHz, sweep = sweepSeconds
            if fitting {
                rbw = min(rbw, rate * ZeroSpanPlan.widestRBWShare)
                sweep = max(sweep, Double(ZeroSpanPlan.defaultPoints) / rate)
            }
            return try ZeroSpanPlan(frequencyHz: frequencyHz, rbwHz: rbw, sweepSeconds: sweep, sampleRateHz: rate,
                                    tunableRange: analyzer.tunableRange, device: device)
        }
        if let soapy = analyzer.soapyDevice {
            let rate = soapy.zeroSpanRate(rbwHz: rbwHz, sweepSeconds: sweepSeconds, points: ZeroSpanPlan.defaultPoints,
                                          requested: selection.settings.sampleRateHz)
            let receiver = try SoapyIQReceiver(description: soapy, settings: selection.settings, sampleRateHz: rate)
            do {
                let plan = try plan(rate: receiver.sampleRateHz)
                try receiver.tune(to: plan.tunedHz)
                return (ZeroSpanRadio.soapy(receiver), plan)
            } catch {
                receiver.close()
                throw error
            }
        }
        guard let rate = sampleRate(kind: analyzer.kind, rbwHz: rbwHz) else {
            throw CommandError(ZeroSpanError.notStreaming(device: analyzer.kind.model).description)
        }
        let plan = try plan(rate: rate)
        return (try ZeroSpanRadio.open(analyzer: analyzer, selection: selection, plan: plan), plan)
    }

    /// The unit of the levels and the offset that makes them so: a calibration applies where it covers
    /// the filter's band, as one offset at the frequency.
    static func levelScale(analyzer: SelectedAnalyzer, selection: DeviceSelection,
                           plan: ZeroSpanPlan) -> (unit: PowerUnit, offsetDB: Double) {
        var offsetDB = 0.0
        var unit = analyzer.kind.powerUnit
        if let calibration = analyzer.calibration,
           let band = FrequencyRange(lowerHz: plan.frequencyHz - plan.rbwHz / 2, upperHz: plan.frequencyHz + plan.rbwHz / 2) {
            unit = calibration.tune(to: band)
            if unit == .dBm {
                offsetDB = CalibrationCorrection(table: calibration.table,
                                                 gainDB: selection.settings.totalGainDB(for: analyzer.kind))
                    .offsetDB(atHz: plan.frequencyHz)
            }
        }
        return (unit, offsetDB)
    }
}

/// A radio streaming I/Q at one tuning for zero span.
struct ZeroSpanRadio: Sendable {
    /// samples the radio lost (a SoapySDR overflow), handed on so the trace in progress starts again
    typealias LossHandler = @Sendable (Int) -> Void
    /// the stream ended: nil when stopped, else what failed
    typealias EndHandler = @Sendable (String?) -> Void

    var format: RealtimeSpectrum.SampleFormat
    var start: @Sendable (@escaping BulkDataHandler, @escaping LossHandler, @escaping EndHandler) throws -> Void
    var stop: @Sendable () -> Void
    var close: @Sendable () -> Void

    /// A SoapySDR device's receiver, already set to its rate and tuning.
    static func soapy(_ receiver: SoapyIQReceiver) -> ZeroSpanRadio {
        ZeroSpanRadio(format: receiver.format,
                      start: { onData, onLoss, onEnd in
                          try receiver.start(onData: onData, onLoss: onLoss, onEnd: { onEnd($0.description) })
                      },
                      stop: { receiver.stop() }, close: { receiver.close() })
    }

    static func open(analyzer: SelectedAnalyzer, selection: DeviceSelection, plan: ZeroSpanPlan) throws -> ZeroSpanRadio {
        let kind = analyzer.kind
        let transport = try selection.transport(for: analyzer)
        let settings = selection.settings
        let tuned = plan.tunedHz.rounded()
        do {
            if kind.id == AnalyzerKind.rtlsdr.id {
                let device = try RTLSDRDevice.open(transport: transport)
                try device.setGain(settings.tunerGain ?? .automatic)
                if let ppm = settings.frequencyCorrectionPPM, ppm != 0 { try device.setFrequencyCorrection(ppm: ppm) }
                if let biasTee = settings.biasTee { try device.setBiasTee(biasTee) }
                _ = try device.setSampleRate(UInt32(plan.sampleRateHz))
                try device.setCenterFrequency(UInt32(tuned))
                try device.resetBuffer()
                return ZeroSpanRadio(format: .uint8,
                                     start: { onData, _, onEnd in
                                         try device.startStreaming(onData: onData, onEnd: { onEnd($0.map { "\($0)" }) })
                                     },
                                     stop: { device.stopStreaming() }, close: { device.powerDown() })
            }
            let driver = try HackRFSweepDriver(transport: transport)
            let rate = UInt32(plan.sampleRateHz)
            // libhackrf's automatic choice: the widest filter at or below 0.75 fs
            let filter = HackRFReceiveMode.basebandFilters.last { Double($0) <= 0.75 * plan.sampleRateHz }
                ?? HackRFReceiveMode.basebandFilters[0]
            try driver.configureReceive(sampleRateHz: rate, basebandFilterHz: filter, frequencyHz: UInt64(tuned),
                                        gains: settings.hackRFGains, ampEnabled: settings.amplifier ?? false,
                                        antennaPower: settings.antennaPower ?? false)
            return ZeroSpanRadio(format: .int8,
                                 start: { onData, _, onEnd in
                                     try driver.startReceive(onData: onData, onEnd: { onEnd($0.map { "\($0)" }) })
                                 },
                                 stop: { driver.stop() }, close: { transport.close() })
        } catch {
            transport.close()
            throw error
        }
    }
}

/// The DSP thread and what feeds it.
final class ZeroSpanPipeline: Sendable {
    private struct Chunk {
        var bytes: [UInt8]
        var count = 0
        var firstSample = 0
    }

    private enum End: Sendable { case done, signal, failure(String) }

    private let ring: DropOldestRing<Chunk>
    private let chunkBytes = 262_144
    private let stride: Int
    private let pushed = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let latch = CompletionLatch<End>()
    private let plan: ZeroSpanPlan
    private let format: RealtimeSpectrum.SampleFormat
    private let offsetDB: Double
    private let trigger: ZeroSpanTrigger?
    private let preTriggerPoints: Int
    private let count: Int?
    /// each finished trace: its levels, number (1 the first), first sample, points before the trigger and
    /// the samples dropped so far (on the DSP thread; the levels are valid during the call only)
    typealias TraceHandler = @Sendable (UnsafeBufferPointer<Float>, Int, Int, Int, Int) -> Void
    private let onTrace: TraceHandler
    private let thread = Guarded<WorkerThread?>(nil)

    init(plan: ZeroSpanPlan, format: RealtimeSpectrum.SampleFormat, offsetDB: Double, trigger: ZeroSpanTrigger?,
         preTriggerPercent: Double, count: Int?, onTrace: @escaping TraceHandler) {
        self.plan = plan
        self.format = format
        self.offsetDB = offsetDB
        self.trigger = trigger
        preTriggerPoints = Int((Double(plan.points) * preTriggerPercent / 100).rounded())
        self.count = count
        self.onTrace = onTrace
        stride = format.bytesPerSample
        // about a second of transfers at 20 MS/s
        ring = DropOldestRing(capacity: 160, onClose: .discard) { Chunk(bytes: []) }
    }

    /// the USB thread: copies each transfer in, never waits
    private func push(_ data: UnsafeRawBufferPointer) {
        let samples = data.count / stride
        guard samples > 0, let source = data.baseAddress else { return }
        let first = pushed.add(samples, ordering: .relaxed).oldValue
        let bytes = samples * stride
        let size = chunkBytes
        _ = ring.push { slot in
            if slot.bytes.count < bytes { slot.bytes = [UInt8](repeating: 0, count: max(size, bytes)) }
            slot.bytes.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: source, byteCount: bytes) }
            slot.count = bytes
            slot.firstSample = first
        }
    }

    private func process() {
        guard let filter = ZeroSpanRBWFilter(rbwHz: plan.rbwHz, sampleRateHz: plan.sampleRateHz) else { return }
        let detector = ZeroSpanDetector(filter: filter, format: format, samplesPerPoint: plan.samplesPerPoint)
        var builder = ZeroSpanTraceBuilder(points: plan.points, preTriggerPoints: preTriggerPoints, trigger: trigger)
        var working = [UInt8](repeating: 0, count: chunkBytes)
        var expected = 0
        let offset = offsetDB
        while true {
            var length = 0, first = 0
            guard ring.pop({ slot in
                swap(&slot.bytes, &working)
                length = slot.count
                first = slot.firstSample
            }) == .item else { return }
            latch.noteActivity()
            if first > expected {
                dropped.add(first - expected, ordering: .relaxed)
                detector.restart(at: first)
                builder.restart()
            }
            expected = first + length / stride
            var finished = false
            working.withUnsafeBytes { raw in
                detector.consume(UnsafeRawBufferPointer(rebasing: raw[0..<length])) { power, sample in
                    guard !finished else { return }
                    let level = Float(10 * log10(max(power, 1e-30)) + offset)
                    guard builder.add(level, firstSample: sample) else { return }
                    builder.levelsDB.withUnsafeBufferPointer { levels in
                        onTrace(levels, builder.traces, builder.firstSample, builder.preTriggerPoints,
                                dropped.load(ordering: .relaxed))
                    }
                    if let count, builder.traces >= count {
                        finished = true
                        latch.complete(.done)
                    }
                }
            }
            if finished { return }
        }
    }

    /// Starts the DSP thread and the radio's stream; returns at once (`stop` ends both).
    func start(radio: ZeroSpanRadio) throws {
        guard let worker = WorkerThread({ [self] in process() }) else {
            throw CommandError("zerospan: no DSP thread could be started")
        }
        thread.withLock { $0 = worker }
        let latch = self.latch
        do {
            try radio.start({ [self] data in push(data) }, { [self] lost in
                // the next block's first sample lies past the lost ones: the DSP thread counts them and starts again
                pushed.add(lost, ordering: .relaxed)
            }, { error in
                if let error { latch.complete(.failure(error)) }
            })
        } catch {
            stopDSP()
            throw error
        }
    }

    /// Stops the radio's stream, then the DSP thread. Safe to call twice.
    func stop(radio: ZeroSpanRadio) {
        radio.stop()
        stopDSP()
    }

    private func stopDSP() {
        ring.close()
        thread.withLock { $0.take() }?.join()
    }

    /// The headless run: until `count` traces, a signal, a failure or a 5 s stall.
    func run(radio: ZeroSpanRadio) throws {
        try start(radio: radio)
        let end = latch.wait(onSignal: .signal, stall: .init(after: 5, .failure("the analyzer sent nothing for 5 s")))
        stop(radio: radio)
        if case .failure(let message) = end { throw CommandError(message) }
    }

    /// a failure the stream reported (the live view's status line), nil while it runs
    var failure: String? {
        if case .failure(let message)? = latch.outcome { return message }
        return nil
    }
}
