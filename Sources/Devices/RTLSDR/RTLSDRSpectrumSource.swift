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

    public var description: String {
        switch self {
        case .plan(let e): return e.description
        case .usb(let e): return e.description
        }
    }
}

/// The live RTL-SDR for the viewer: hops across the requested band as
/// rtl_power does (`RTLSDRHopper`) and hands one whole-band frame per pass
/// to `onFrame` on the hop thread. The view's bin width is rtl_power's
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

        public init(gain: RTLSDRGain = .automatic, crop: Double = 0.25, window: SpectralWindow = .blackmanHarris,
                    detector: SpectrumDetector = .peak, frequencyCorrectionPPM: Int = 0, biasTee: Bool = false) {
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

    public var counters: SpectrumSourceCounters {
        SpectrumSourceCounters(frames: frames.load(ordering: .relaxed), badBlocks: badBlocks.load(ordering: .relaxed),
                               droppedBlocks: 0)
    }

    public func start(band: FrequencyRange, binWidthHz: Double) throws(RTLSDRSourceError) {
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
                              noiseBandwidthHz: accumulator.plan.binWidthHz * accumulator.noiseBandwidthInBins))
    }

    public func retune(to band: FrequencyRange, binWidthHz: Double) throws(RTLSDRSourceError) {
        try start(band: band, binWidthHz: binWidthHz)
    }

    public func stop() {
        running.withLock { $0.hopper.take() }?.stop()
    }
}
