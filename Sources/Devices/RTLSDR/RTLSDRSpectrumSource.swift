import Analyzers
import DSP
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// Why the live RTL-SDR pipeline could not (re)start.
public enum RTLSDRSourceError: Error, Equatable, Sendable, CustomStringConvertible {
    case plan(RTLSDRPlanError)
    case usb(USBError)
    /// `--mode realtime` on a band wider than one tuning covers [Hz]
    case realtimeBandTooWide(widthHz: Double)

    public var description: String {
        switch self {
        case .plan(let e): return e.description
        case .usb(let e): return e.description
        case .realtimeBandTooWide(let width):
            return AnalyzerKind.rtlsdr.realtimeProblem(widthHz: width) ?? "--mode realtime: band too wide"
        }
    }
}

/// The live RTL-SDR for the viewer. A band of at most 2 MHz is watched in
/// real time (`--mode auto`, the default, or `realtime`): one tuning at
/// 2.4 MS/s, every sample through overlapped FFTs (`RealtimeStream`). A
/// wider band, or `--mode sweep`, hops as rtl_power does (`RTLSDRHopper`),
/// one whole-band frame per pass to `onFrame` on the hop thread. The view's bin width is rtl_power's
/// maximum bin size; edges are cropped so the dongle's filter roll-off never
/// shows.
public final class RTLSDRSpectrumSource: SpectrumSource, Sendable {
    public struct Settings: Sendable {
        public var gain: RTLSDRGain
        /// fraction of each hop's bins dropped at the edges
        public var crop: Double
        public var window: SpectralWindow
        /// `peak`: each bin's largest FFT power over a pass (nothing seen is
        /// lost); `sample`, `average`, `rms`: the mean, as rtl_power
        public var detector: SpectrumDetector
        /// the crystal's error corrected for [ppm] (rtl_sdr's -p)
        public var frequencyCorrectionPPM: Int
        /// the bias tee (RTL-SDR Blog V3/V4: GPIO 0), powered while the source runs
        public var biasTee: Bool
        /// real time for a band one tuning covers, or hopping
        public var mode: AnalysisMode
        /// in real time, frames also carry every other detector's levels
        /// (`SpectrumFrame.everyDetector`); hops carry their own detector's only
        public var keepsEveryDetector = false

        public init(gain: RTLSDRGain = .automatic, crop: Double = 0.25, window: SpectralWindow = .blackmanHarris,
                    detector: SpectrumDetector = .peak, frequencyCorrectionPPM: Int = 0, biasTee: Bool = false,
                    mode: AnalysisMode = .auto) {
            self.mode = mode
            self.frequencyCorrectionPPM = frequencyCorrectionPPM
            self.biasTee = biasTee
            self.gain = gain
            self.crop = crop
            self.window = window
            self.detector = detector
        }
    }

    public let device: RTLSDRDevice
    public let settings: Settings
    /// the plan being hopped, after `start`/`retune`
    public var plan: RTLSDRHopPlan? { running.withLock { $0.plan } }
    /// the running plan and its hopper (start and stop come from one thread at a time)
    private let running = Guarded<(plan: RTLSDRHopPlan?, hopper: RTLSDRHopper?)>((nil, nil))

    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (RTLSDRHopError?) -> Void
    private let frames = Atomic<Int>(0)
    private let badBlocks = Atomic<Int>(0)
    /// the real-time path (one tuning)
    private let stream = RealtimeStream(chunkBytes: RTLSDRStreaming.transferSize, capacity: 192)

    /// - Parameters:
    ///   - onFrame: called on the hop thread with each completed pass
    ///   - onEnd: called when hopping ends by itself (stall, unplug)
    public init(device: RTLSDRDevice, settings: Settings = Settings(),
                onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                onEnd: @escaping @Sendable (RTLSDRHopError?) -> Void = { _ in }) throws(USBError) {
        self.device = device
        self.settings = settings
        self.onFrame = onFrame
        self.onEnd = onEnd
        try device.setGain(settings.gain)
        if settings.frequencyCorrectionPPM != 0 { try device.setFrequencyCorrection(ppm: settings.frequencyCorrectionPPM) }
        if settings.biasTee { try device.setBiasTee(true) }
    }

    /// Bands the R820T/R828D hop plans can cover [Hz]. The tuner's lowest RF is
    /// its lowest LO (VCO 1.77 GHz / 64) less the 3.57 MHz IF, 24.09 MHz, but a
    /// hop is centred up to half its sample rate above a band's start, so 27 MHz
    /// is the lowest start every plan tunes (24.5–25.5 MHz asks for a 23 MHz
    /// hop); the top is the R820T datasheet's 1766 MHz. Written once:
    /// `tscope devices`, option checks and the live source all read it.
    public static let hardwareTunableRange = FrequencyRange(lowerHz: 27e6, upperHz: 1_766e6)!

    public var tunableRange: FrequencyRange { Self.hardwareTunableRange }

    /// the real-time sample rate: the highest the RTL2832U delivers without dropping samples on
    /// most hosts (rtl_sdr's and SDR#'s usual 2.4 MS/s) [S/s]
    public static let realtimeSampleRateHz: UInt32 = 2_400_000
    /// the widest band watched in real time: the middle 5/6 of 2.4 MS/s, clear of the
    /// IF filter's and the resampler's roll-off at the edges [Hz]
    public static let realtimeBandwidthHz = 2e6

    public var dwellTiming: DwellTiming? { stream.analysis.map { .realtime($0) } }

    public var counters: SpectrumSourceCounters {
        SpectrumSourceCounters(frames: frames.load(ordering: .relaxed) + stream.frameCount,
                               badBlocks: badBlocks.load(ordering: .relaxed), droppedBlocks: 0,
                               droppedSamples: stream.droppedSamples)
    }

    public func start(band: FrequencyRange, binWidthHz: Double) throws(RTLSDRSourceError) {
        if settings.mode.watchesInRealTime(widthHz: band.spanHz, realtimeLimitHz: Self.realtimeBandwidthHz) {
            guard band.spanHz <= Self.realtimeBandwidthHz * (1 + 1e-9) else { throw .realtimeBandTooWide(widthHz: band.spanHz) }
            try startRealtime(band: band, binWidthHz: binWidthHz)
            return
        }
        let plan: RTLSDRHopPlan
        do {
            plan = try RTLSDRHopPlan(lowerHz: Int(band.lowerHz.rounded()), upperHz: Int(band.upperHz.rounded()),
                                     maxBinHz: max(1, Int(binWidthHz.rounded(.down))), crop: settings.crop)
        } catch { throw .plan(error) }
        try start(plan: plan)
    }

    /// Starts hopping an explicit plan.
    public func start(plan: RTLSDRHopPlan) throws(RTLSDRSourceError) {
        stop()
        let hopper = RTLSDRHopper(device: device, plan: plan, window: settings.window, detector: settings.detector)
        let onEnd = self.onEnd
        do {
            try hopper.start(onPass: { [self] accumulator in
                emit(accumulator)
                return true
            }, onEnd: { error in if error != nil { onEnd(error) } })
        } catch { throw .usb(error) }
        running.withLock { $0 = (plan, hopper) }
    }

    /// Streams one tuning (offset from the band, or from its centre: `RealtimeBandPlan.tunedCentre`), every
    /// sample transformed.
    private func startRealtime(band: FrequencyRange, binWidthHz: Double) throws(RTLSDRSourceError) {
        stop()
        let rate: Double
        do {
            rate = try device.setSampleRate(Self.realtimeSampleRateHz)
        } catch { throw .usb(error) }
        let centre = RealtimeBandPlan.tunedCentre(for: band, sampleRateHz: rate, lowestHz: Self.hardwareTunableRange.lowerHz)
        do {
            try device.setCenterFrequency(UInt32(centre))
            try device.resetBuffer()
        } catch { throw .usb(error) }
        let plan = RealtimeBandPlan(band: band, centreHz: centre, sampleRateHz: rate, binWidthHz: binWidthHz)
        guard stream.start(plan: plan, detector: settings.detector, keepingEveryDetector: settings.keepsEveryDetector,
                           format: .uint8, onFrame: onFrame) else {
            throw .usb(.io(operation: "RTL-SDR DSP thread", detail: "no thread could be started"))
        }
        let stream = self.stream
        let onEnd = self.onEnd
        do {
            try device.startStreaming(onData: { data in stream.push(data) },
                                      onEnd: { error in if let error { onEnd(.usb(error)) } })
        } catch {
            stream.stop()
            throw .usb(error)
        }
    }

    /// One frame per pass: every hop's mean power since the last frame. The
    /// bins are a new array each pass (a few a second): the frame keeps them.
    private func emit(_ accumulator: RTLSDRHopAccumulator) {
        var frameBins = [Float](repeating: .nan, count: accumulator.frameBinCount)
        frameBins.withUnsafeMutableBufferPointer { accumulator.fillFrame($0) }
        accumulator.reset()
        frames.add(1, ordering: .relaxed)
        // frame bin k is centred on lowerHz + k·width (RTLSDRHopAccumulator's offsets), so its lower edge is half a bin below
        onFrame(SpectrumFrame(startHz: Double(accumulator.plan.lowerHz) - accumulator.plan.binWidthHz / 2,
                              binWidthHz: accumulator.plan.binWidthHz,
                              timestamp: unixTimeNow(), powerDB: frameBins,
                              noiseBandwidthHz: accumulator.plan.binWidthHz * accumulator.noiseBandwidthInBins,
                              windowing: accumulator.windowing))
    }

    public func retune(to band: FrequencyRange, binWidthHz: Double) throws(RTLSDRSourceError) {
        try start(band: band, binWidthHz: binWidthHz)
    }

    public func stop() {
        if stream.isRunning {
            device.stopStreaming()
            stream.stop()
        }
        running.withLock { $0.hopper.take() }?.stop()
    }
}
