import DSP
import Signals

/// Counters every live analyzer reports on the status line.
public struct SpectrumSourceCounters: Sendable, Equatable {
    /// frames handed to `onFrame`
    public var frames: Int
    /// blocks/sweeps skipped as malformed (bad header, off-plan frequency, bad checksum)
    public var badBlocks: Int
    /// blocks dropped because a consumer fell behind
    public var droppedBlocks: Int
    /// samples of a real-time stream lost before they were transformed (a queue overrun, a gap in
    /// the device's stream): every one counted, never hidden
    public var droppedSamples: Int

    public init(frames: Int = 0, badBlocks: Int = 0, droppedBlocks: Int = 0, droppedSamples: Int = 0) {
        self.frames = frames
        self.badBlocks = badBlocks
        self.droppedBlocks = droppedBlocks
        self.droppedSamples = droppedSamples
    }
}

/// A running analyzer of any kind (HackRF, RTL-SDR, tinySA, RF Explorer) as
/// the views and headless commands see it: it is started and retuned to a
/// band with a bin width, and delivers whole-band `SpectrumFrame`s to the
/// `onFrame` closure it was created with, on a thread of its own.
public protocol SpectrumSource: AnyObject, Sendable {
    /// what the analyzer can tune [Hz]
    var tunableRange: FrequencyRange { get }
    var counters: SpectrumSourceCounters { get }
    /// how long each frequency is watched per sweep and how often it is
    /// revisited, where the source computes spectra from samples (nil where
    /// the device does it: tinySA, RF Explorer)
    var dwellTiming: DwellTiming? { get }
    /// the dwell and revisit another detector would have in the running
    /// plan (a sensor's viewer asking for it); the source's own where the
    /// detector does not change them
    func dwellTiming(by detector: SpectrumDetector) -> DwellTiming?
    /// Starts delivering frames of `band` with bins about `binWidthHz` wide
    /// (a device may round the bin width to what it can do).
    func start(band: FrequencyRange, binWidthHz: Double) throws
    /// Reconfigures for a new band (zoom and pan).
    func retune(to band: FrequencyRange, binWidthHz: Double) throws
    /// Stops delivering. Safe to call when stopped.
    func stop()
}

extension SpectrumSource {
    public var dwellTiming: DwellTiming? { nil }
    public func dwellTiming(by detector: SpectrumDetector) -> DwellTiming? { dwellTiming }
}
