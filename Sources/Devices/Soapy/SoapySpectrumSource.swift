import Analyzers
import CSoapySDR
import DSP
import Foundation
import Signals
import Synchronization
import ThreadKit

/// A SoapySDR device as a `SpectrumSource`. A band within its real-time
/// bandwidth streams one tuning (offset past DC where the band allows,
/// `RealtimeBandPlan.tunedCentre`) into the same overlapped-FFT path as the
/// native radios (`RealtimeStream`). A wider band is hopped as soapy_power
/// does: per hop the stream is stopped, retuned and restarted, the first
/// `settleSeconds` of samples are discarded, and whole FFTs over at least
/// `dwellSeconds` make its part of the frame. Each hop keeps 0.4 × the
/// sample rate on one side of DC (the hop tuned 0.05 × fs below it), so no
/// bin in the band is the DC bin and none sits near the anti-alias filter's
/// edge; a frame is delivered when every hop has been measured.
public final class SoapySpectrumSource: SpectrumSource {
    /// samples discarded after each retune: PLL lock and the driver's buffers [s]
    public static let settleSeconds = 0.005
    /// the least time each hop is measured for [s]
    public static let dwellSeconds = 0.01
    /// how long one read waits before checking for a stop [µs]
    static let readTimeoutMicroseconds = 100_000

    private let device: SoapyDevice
    private let description: SoapyDeviceDescription
    private let detector: SpectrumDetector
    private let mode: AnalysisMode
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (any Error) -> Void
    private let stream: SoapyDevice.Stream
    private let format: RealtimeSpectrum.SampleFormat
    private let realtime: RealtimeStream
    private let reader = Guarded<WorkerThread?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let hopFrames = Atomic<Int>(0)
    private let overflows = Atomic<Int>(0)
    private let timing = Guarded<DwellTiming?>(nil)

    /// Applies `settings` (gains, antenna; the defaults where none are given) and sets up the stream.
    public init(device: SoapyDevice, description: SoapyDeviceDescription, settings: AnalyzerSettings,
                detector: SpectrumDetector, mode: AnalysisMode,
                onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                onEnd: @escaping @Sendable (any Error) -> Void) throws {
        self.device = device
        self.description = description
        self.detector = detector
        self.mode = mode
        self.onFrame = onFrame
        self.onEnd = onEnd
        (stream, format) = try device.setUpReceive(description: description, settings: settings)
        requestedRate = settings.sampleRateHz
        // about 1.3 s of samples at 20 MS/s, in the device's own transfer size
        let chunkBytes = stream.mtu * format.bytesPerSample
        realtime = RealtimeStream(chunkBytes: chunkBytes, capacity: max(64, Int(26e6 / Double(stream.mtu))),
                                  bytesPerSample: format.bytesPerSample)
    }

    private let requestedRate: Double?

    private let released = Atomic<Bool>(false)

    /// Stops, closes the stream and releases the device (once): what the reconnect supervisor's close does.
    public func release() {
        stop()
        guard !released.exchange(true, ordering: .relaxed) else { return }
        device.close(stream)
        device.close()
    }

    deinit { release() }

    public var tunableRange: FrequencyRange { description.tunableRange }

    public var counters: SpectrumSourceCounters {
        SpectrumSourceCounters(frames: realtime.frameCount + hopFrames.load(ordering: .relaxed), badBlocks: 0,
                               droppedBlocks: overflows.load(ordering: .relaxed), droppedSamples: realtime.droppedSamples)
    }

    public var dwellTiming: DwellTiming? {
        if let analysis = realtime.analysis { return .realtime(analysis) }
        return timing.withLock { $0 }
    }

    public func start(band: FrequencyRange, binWidthHz: Double) throws {
        stop()
        let limit = description.realtimeBandwidthHz
        if mode.watchesInRealTime(widthHz: band.spanHz, realtimeLimitHz: limit) {
            if let problem = AnalyzerKind.soapy(description).realtimeProblem(widthHz: band.spanHz) {
                throw SoapyError(problem)
            }
            try startRealtime(band: band, binWidthHz: binWidthHz)
        } else {
            try startHopping(band: band, binWidthHz: binWidthHz)
        }
    }

    public func retune(to band: FrequencyRange, binWidthHz: Double) throws {
        try start(band: band, binWidthHz: binWidthHz)
    }

    public func stop() {
        stopping.store(true, ordering: .relaxed)
        let thread = reader.withLock { $0.take() }
        guard let thread else { return }
        thread.join()
        device.deactivate(stream)
        realtime.stop()
        timing.withLock { $0 = nil }
    }

    // MARK: real time

    private func startRealtime(band: FrequencyRange, binWidthHz: Double) throws {
        let rate = description.streamingRate(forWidth: band.spanHz, requested: requestedRate)
        try device.setSampleRate(rate)
        let actual = device.sampleRate > 0 ? device.sampleRate : rate
        let centre = RealtimeBandPlan.tunedCentre(for: band, sampleRateHz: actual, lowestHz: tunableRange.lowerHz)
        try device.setFrequency(centre)
        let plan = RealtimeBandPlan(band: band, centreHz: centre, sampleRateHz: actual, binWidthHz: binWidthHz)
        guard realtime.start(plan: plan, detector: detector, format: format, onFrame: onFrame) else {
            throw SoapyError("SoapySDR \(description.driver): no DSP thread could be started")
        }
        try activateQuietly()
        try launch { [self] buffer in
            while !stopping.load(ordering: .relaxed) {
                switch device.read(stream, into: buffer.baseAddress!, count: stream.mtu,
                                   timeoutMicroseconds: Self.readTimeoutMicroseconds) {
                case .samples(let count):
                    realtime.push(UnsafeRawBufferPointer(rebasing: buffer[0..<(count * format.bytesPerSample)]))
                case .overflow:
                    overflows.add(1, ordering: .relaxed)
                case .timeout:
                    continue
                case .failed(let said):
                    onEnd(SoapyError("SoapySDR \(description.driver): the stream failed: \(said)"))
                    return
                }
            }
        }
    }

    // MARK: hopping

    /// The hops over a band: bins of `binWidthHz` (the FFT's, fs / N), `binsPerHop` per hop, each hop's
    /// tuning and which FFT bins it keeps.
    public struct HopPlan: Sendable, Equatable {
        public let lowerHz: Double
        public let sampleRateHz: Double
        public let fftSize: Int
        public let binCount: Int
        public let binsPerHop: Int
        /// per hop: the tuned frequency [Hz] and the centred FFT bins kept
        public let hops: [Hop]

        public struct Hop: Sendable, Equatable {
            public let centreHz: Double
            public let firstBin: Int
            public let keptBins: Range<Int>
        }

        public var binWidthHz: Double { sampleRateHz / Double(fftSize) }

        public init(band: FrequencyRange, sampleRateHz: Double, binWidthHz: Double, lowestTunableHz: Double) {
            lowerHz = band.lowerHz
            self.sampleRateHz = sampleRateHz
            let n = RealtimeSpectrum.fftSize(sampleRateHz: sampleRateHz, binWidthHz: binWidthHz)
            fftSize = n
            let width = sampleRateHz / Double(n)
            binCount = max(1, Int((band.spanHz / width).rounded(.up)))
            binsPerHop = max(1, Int(0.4 * Double(n)))
            let clear = max(1, Int((0.05 * Double(n)).rounded()))
            var hops: [Hop] = []
            var first = 0
            while first < binCount {
                let count = min(binsPerHop, binCount - first)
                let subLower = band.lowerHz + Double(first) * width
                // the kept bins start `clear` bins above DC: tuned below the hop
                var offset = n / 2 + clear
                var centre = subLower + 0.5 * width + Double(n / 2 - offset) * width
                if centre < lowestTunableHz {
                    // near the bottom of the range: tuned above the hop, kept bins end `clear` bins below DC
                    offset = n / 2 - clear - count
                    centre = subLower + 0.5 * width + Double(n / 2 - offset) * width
                }
                hops.append(Hop(centreHz: centre, firstBin: first, keptBins: offset..<(offset + count)))
                first += count
            }
            self.hops = hops
        }
    }

    private func startHopping(band: FrequencyRange, binWidthHz: Double) throws {
        let rate = requestedRate ?? description.hoppingRate
        try device.setSampleRate(rate)
        let actual = device.sampleRate > 0 ? device.sampleRate : rate
        let plan = HopPlan(band: band, sampleRateHz: actual, binWidthHz: binWidthHz, lowestTunableHz: tunableRange.lowerHz)
        let hop = plan.fftSize / 2
        let fftsPerHop = max(4, Int((Self.dwellSeconds * actual / Double(hop)).rounded(.up)))
        let settleSamples = max(stream.mtu, Int(Self.settleSeconds * actual))
        let dwell = Double(fftsPerHop * hop + plan.fftSize - hop) / actual
        // a revisit: every hop's settle and dwell (retuning's own time comes on top)
        let revisit = Double(plan.hops.count) * (dwell + Double(settleSamples) / actual)
        timing.withLock { $0 = DwellTiming(dwellSeconds: dwell, revisitSeconds: revisit) }
        let noiseBandwidthHz = plan.binWidthHz * SpectralWindow.hannMeanSquare(length: plan.fftSize)
        let windowing = FFTWindowing(.hann, length: plan.fftSize)
        let detector = self.detector, format = self.format
        let drainsOnReactivation = SoapyFamily.nativelyDriven[description.driver]?.soapy?.drainsOnReactivation ?? false
        try activateQuietly()
        try launch { [self] buffer in
            // made on this thread, never shared: one spectrum per hop (its kept bins), one frame buffer
            let spectra = plan.hops.map { hop in
                RealtimeSpectrum(fftSize: plan.fftSize, sampleRateHz: actual, detector: detector, format: format,
                                 keptBins: hop.keptBins, framesPerSecond: actual / Double(plan.fftSize / 2 * fftsPerHop))
            }
            var frame = [Float](repeating: .nan, count: plan.binCount)
            while !stopping.load(ordering: .relaxed) {
                for (index, hop) in plan.hops.enumerated() {
                    // samples queued before the retune are dropped: SoapyRTLSDR drains its queue when the active
                    // stream is activated again; other modules (SoapyHackRF ignores a second activation) restart it
                    if !drainsOnReactivation { device.deactivate(stream) }
                    do {
                        try device.setFrequency(hop.centreHz)
                        try device.activate(stream)
                    } catch {
                        onEnd(error)
                        return
                    }
                    var discard = settleSamples
                    var measured = false
                    spectra[index].restartWindows()
                    while !measured {
                        if stopping.load(ordering: .relaxed) { return }
                        switch device.read(stream, into: buffer.baseAddress!, count: stream.mtu,
                                           timeoutMicroseconds: Self.readTimeoutMicroseconds) {
                        case .samples(let count):
                            let skipped = min(discard, count)
                            discard -= skipped
                            guard skipped < count else { continue }
                            let bytes = UnsafeRawBufferPointer(rebasing: buffer[(skipped * format.bytesPerSample)..<(count * format.bytesPerSample)])
                            spectra[index].consume(bytes) { bins, _ in
                                guard !measured else { return }
                                for (k, level) in bins.enumerated() where hop.firstBin + k < frame.count {
                                    frame[hop.firstBin + k] = level
                                }
                                measured = true
                            }
                        case .overflow:
                            // samples lost while measuring (while settling they are dropped anyway)
                            if discard == 0 { overflows.add(1, ordering: .relaxed) }
                            // what follows is not contiguous with what came before
                            spectra[index].restartWindows()
                        case .timeout:
                            continue
                        case .failed(let said):
                            onEnd(SoapyError("SoapySDR \(description.driver): the stream failed: \(said)"))
                            return
                        }
                    }
                }
                hopFrames.add(1, ordering: .relaxed)
                onFrame(SpectrumFrame(startHz: plan.lowerHz, binWidthHz: plan.binWidthHz, timestamp: unixTimeNow(),
                                      powerDB: frame, noiseBandwidthHz: noiseBandwidthHz, windowing: windowing))
            }
        }
    }

    /// Starts the stream quietly (`SoapyDevice.activateQuietly`).
    private func activateQuietly() throws {
        try device.activateQuietly(stream, bytesPerSample: format.bytesPerSample,
                                   timeoutMicroseconds: Self.readTimeoutMicroseconds)
    }

    /// Starts the reader thread with a buffer of one MTU.
    private func launch(_ body: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Void) throws {
        stopping.store(false, ordering: .relaxed)
        let bytes = stream.mtu * format.bytesPerSample
        guard let thread = WorkerThread({
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 16)
            defer { buffer.deallocate() }
            body(buffer)
        }) else {
            device.deactivate(stream)
            throw SoapyError("SoapySDR \(description.driver): no reader thread could be started")
        }
        reader.withLock { $0 = thread }
    }
}

