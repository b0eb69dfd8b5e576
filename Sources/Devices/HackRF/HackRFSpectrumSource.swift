import Analyzers
import DSP
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// Why the live HackRF pipeline could not (re)start.
public enum HackRFSourceError: Error, Equatable, Sendable, CustomStringConvertible {
    case plan(HackRFPlanError)
    case usb(USBError)
    /// `--mode realtime` on a band wider than the radio streams at once [Hz]
    case realtimeBandTooWide(widthHz: Double)

    public var description: String {
        switch self {
        case .plan(let e): return e.description
        case .usb(let e): return e.description
        case .realtimeBandTooWide(let width):
            return "--mode realtime: the band is \(FrequencyFormat.label(width)) wide; a HackRF One streams at most "
                + "\(FrequencyFormat.label(HackRFReceiveMode.widestBandHz)) at once (narrow the band, or --mode sweep)"
        }
    }
}

/// The live HackRF pipeline for the viewer. A band of at most 20 MHz is
/// watched in real time (`--mode auto`, the default, or `realtime`): plain
/// receive mode at one tuning, every sample through overlapped FFTs
/// (`RealtimeStream`). A wider band, or `--mode sweep`, is swept as
/// hackrf_sweep does: driver → bounded block ring → DSP thread (SweepFFT,
/// frame assembly) → `onFrame`.
///
/// The USB thread only copies good blocks into the ring (dropping the oldest
/// when the DSP thread falls behind); the DSP thread computes each block's
/// spectrum and hands completed sweeps to `onFrame` on that thread.
public final class HackRFSpectrumSource: SpectrumSource, Sendable {
    public struct Settings: Sendable {
        public var gains: HackRFGains
        public var ampEnabled: Bool
        public var antennaPower: Bool
        /// how each block's samples become one level per bin: `peak` (the
        /// default: a burst anywhere in the dwell shows), `average`/`rms`
        /// (Welch over the dwell: a steadier trace, power reads as power),
        /// `cisprAverage` (the mean envelope voltage over the dwell) or
        /// `sample` (hackrf_sweep's numbers)
        public var detector: SpectrumDetector
        /// blocks the ring holds between USB and DSP threads
        public var ringCapacity: Int
        /// real time for a band the radio streams at once, or sweeping
        public var mode: AnalysisMode
        /// every frame also carries each other detector's levels over the
        /// same samples (`SpectrumFrame.everyDetector`: a sensor whose viewers
        /// ask for different detectors); the dwell is then always whole
        public var keepsEveryDetector: Bool

        public init(gains: HackRFGains = .sweepDefaults, ampEnabled: Bool = false, antennaPower: Bool = false,
                    detector: SpectrumDetector = .peak, ringCapacity: Int = 256, mode: AnalysisMode = .auto,
                    keepsEveryDetector: Bool = false) {
            self.keepsEveryDetector = keepsEveryDetector
            self.gains = gains
            self.ampEnabled = ampEnabled
            self.antennaPower = antennaPower
            self.detector = detector
            self.ringCapacity = ringCapacity
            self.mode = mode
        }
    }

    /// bad blocks: a bad header or an unplanned frequency; dropped: the DSP
    /// thread fell behind
    public typealias Counters = SpectrumSourceCounters

    public let driver: HackRFSweepDriver
    public let settings: Settings
    /// the band being swept, after `start`/`retune`
    public var plan: HackRFSweepPlan? { running.withLock { $0.plan } }
    /// the plan and the DSP thread of the running sweep (start and stop come from one thread at a time)
    private let running = Guarded<(plan: HackRFSweepPlan?, dsp: WorkerThread?)>((nil, nil))

    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (USBError?) -> Void
    private let ring: BlockRing
    private let frames = Atomic<Int>(0)
    /// the real-time path (receive mode)
    private let stream = RealtimeStream(chunkBytes: HackRFProtocol.transferSize, capacity: 96)

    /// - Parameters:
    ///   - onFrame: called on the DSP thread with each completed sweep
    ///   - onEnd: called when the stream ends by itself (e.g. unplugged)
    public init(transport: USBTransport, settings: Settings = Settings(),
                onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                onEnd: @escaping @Sendable (USBError?) -> Void = { _ in }) throws(USBError) {
        driver = try HackRFSweepDriver(transport: transport)
        self.settings = settings
        self.onFrame = onFrame
        self.onEnd = onEnd
        ring = BlockRing(capacity: max(1, settings.ringCapacity))
    }

    /// the running plan's dwell per frequency (by the detector) and sweep time
    public var dwellTiming: DwellTiming? { dwellTiming(by: settings.detector) }

    /// The dwell `detector` watches each frequency for, in the running plan:
    /// what a viewer asking for another detector than the source's is told.
    public func dwellTiming(by detector: SpectrumDetector) -> DwellTiming? {
        if let analysis = stream.analysis { return .realtime(analysis) }
        return plan.map { DwellTiming.hackRFSweep(fftSize: $0.fftSize, detector: detector,
                                           steps: $0.stepFrequenciesHz.count,
                                           usableSamples: HackRFProtocol.samplesAfterHeader) }
    }

    /// hackrf_sweep's tuning range [Hz]
    public var tunableRange: FrequencyRange { HackRFProtocol.tunableRange }

    public var counters: Counters {
        Counters(frames: frames.load(ordering: .relaxed) + stream.frameCount, badBlocks: driver.badBlockCount,
                 droppedBlocks: ring.droppedCount, droppedSamples: stream.droppedSamples)
    }

    /// Starts sweeping `band` with bins about `binWidthHz` wide.
    public func start(band: FrequencyRange, binWidthHz: Double) throws(HackRFSourceError) {
        if settings.mode.watchesInRealTime(widthHz: band.spanHz, realtimeLimitHz: HackRFReceiveMode.widestBandHz) {
            guard band.spanHz <= HackRFReceiveMode.widestBandHz * (1 + 1e-9) else {
                throw .realtimeBandTooWide(widthHz: band.spanHz)
            }
            try startRealtime(HackRFReceiveMode.plan(band: band, binWidthHz: binWidthHz))
            return
        }
        let plan: HackRFSweepPlan
        do { plan = try HackRFSweepPlan(band: band, binWidthHz: binWidthHz) } catch { throw .plan(error) }
        try start(plan: plan)
    }

    /// Starts sweeping with an explicit plan (its first range is assembled).
    public func start(plan: HackRFSweepPlan) throws(HackRFSourceError) {
        stop()
        do {
            try driver.configure(plan: plan, gains: settings.gains, ampEnabled: settings.ampEnabled,
                                 antennaPower: settings.antennaPower)
        } catch { throw .usb(error) }
        ring.reset()
        let detector = settings.detector
        let everyDetector = settings.keepsEveryDetector
        // the FFT and the assembler belong to the DSP thread alone: made there, never shared
        guard let thread = WorkerThread({ [self] in
            let fft = SweepFFT(fftSize: plan.fftSize, detector: detector, maxSamples: HackRFProtocol.samplesAfterHeader,
                               keepingEveryDetector: everyDetector)
            if everyDetector {
                runEveryDetectorDSP(fft: fft, plan: plan)
            } else {
                runDSP(fft: fft, assembler: SweepFrameAssembler(plan: plan))
            }
        }) else {
            throw .usb(.io(operation: "HackRF DSP thread", detail: "no thread could be started"))
        }
        running.withLock { $0 = (plan, thread) }
        let ring = self.ring
        let onEnd = self.onEnd
        do {
            try driver.start(onBlock: { frequency, block in ring.push(frequencyHz: frequency, block: block) },
                             onEnd: { error in if error != nil { onEnd(error) } })
        } catch {
            stopDSP()
            throw .usb(error)
        }
    }

    /// Streams one tuning in receive mode, every sample transformed.
    public func startRealtime(_ plan: RealtimeBandPlan) throws(HackRFSourceError) {
        stop()
        let rate = UInt32(plan.sampleRateHz.rounded())
        do {
            try driver.configureReceive(sampleRateHz: rate,
                                        basebandFilterHz: HackRFReceiveMode.basebandFilter(for: plan),
                                        frequencyHz: UInt64(max(0, plan.centreHz.rounded())), gains: settings.gains,
                                        ampEnabled: settings.ampEnabled, antennaPower: settings.antennaPower)
        } catch { throw .usb(error) }
        let onFrame = self.onFrame
        guard stream.start(plan: plan, detector: settings.detector, keepingEveryDetector: settings.keepsEveryDetector,
                           format: .int8, onFrame: onFrame) else {
            throw .usb(.io(operation: "HackRF DSP thread", detail: "no thread could be started"))
        }
        let stream = self.stream
        let onEnd = self.onEnd
        do {
            try driver.startReceive(onData: { data in stream.push(data) },
                                    onEnd: { error in if error != nil { onEnd(error) } })
        } catch {
            stream.stop()
            throw .usb(error)
        }
    }

    /// Stops, reconfigures for `band` and restarts (zoom and pan).
    public func retune(to band: FrequencyRange, binWidthHz: Double) throws(HackRFSourceError) {
        try start(band: band, binWidthHz: binWidthHz)
    }

    /// Stops the stream and the DSP thread. Safe to call when stopped.
    public func stop() {
        if stream.isRunning {
            driver.stop()
            stream.stop()
        }
        guard running.withLock({ $0.dsp != nil }) else { return }
        driver.stop()
        stopDSP()
    }

    private func stopDSP() {
        ring.close()
        running.withLock { $0.dsp.take() }?.join()
    }

    private func runDSP(fft: SweepFFT, assembler: SweepFrameAssembler) {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.blockSize, alignment: 16)
        defer { scratch.deallocate() }
        while let frequency = ring.pop(into: scratch) {
            fft.process(UnsafeRawBufferPointer(scratch))
            if let frame = assembler.add(frequencyHz: frequency, lowerQuarter: fft.lowerQuarter,
                                         upperQuarter: fft.upperQuarter, timestamp: unixTimeNow()) {
                frames.add(1, ordering: .relaxed)
                onFrame(frame)
            }
        }
    }

    /// `runDSP` with one assembler per detector plane, fed the same blocks in
    /// lockstep, so each sweep's frame carries all four (its `powerDB` the
    /// source's own detector's).
    private func runEveryDetectorDSP(fft: SweepFFT, plan: HackRFSweepPlan) {
        // one detector per plane, in plane order (rms shares average's)
        let detectors: [SpectrumDetector] = [.peak, .average, .sample, .cisprAverage]
        assert(detectors.enumerated().allSatisfy { $0.offset == $0.element.everyDetectorPlane })
        let assemblers = detectors.map { _ in SweepFrameAssembler(plan: plan) }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: HackRFProtocol.blockSize, alignment: 16)
        defer { scratch.deallocate() }
        var finished = [SpectrumFrame?](repeating: nil, count: detectors.count)
        while let frequency = ring.pop(into: scratch) {
            fft.process(UnsafeRawBufferPointer(scratch))
            let now = unixTimeNow()
            for (index, detector) in detectors.enumerated() {
                guard let quarters = fft.quarters(by: detector) else { return }
                finished[index] = assemblers[index].add(frequencyHz: frequency, lowerQuarter: quarters.lower,
                                                        upperQuarter: quarters.upper, timestamp: now)
            }
            guard let peak = finished[0], let average = finished[1], let sample = finished[2],
                  let cisprAverage = finished[3] else { continue }
            guard var frame = finished[settings.detector.everyDetectorPlane] else { continue }
            frame.everyDetector = DetectorLevels(peak: peak.powerDB, average: average.powerDB, sample: sample.powerDB,
                                                 cisprAverage: cisprAverage.powerDB)
            frames.add(1, ordering: .relaxed)
            onFrame(frame)
        }
    }
}
