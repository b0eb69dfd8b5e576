import Signals
import DSP

/// Facts the status line shows about the running device and pipeline.
public struct SpectrumStatus: Sendable, Equatable {
    /// "HackRF One 0000000000000000457863c8240e2f4f", "HackRF One (emulated)"
    public var deviceName: String
    /// true for the built-in demo device: the screen says DEMO
    public var isDemo: Bool
    /// bin width the device delivers [Hz]; 0 before the first frame
    public var binWidthHz: Double
    /// frames drawn per second, measured
    public var framesPerSecond: Double
    /// blocks dropped because the DSP fell behind
    public var droppedBlocks: Int
    /// blocks with a bad header, skipped
    public var badBlocks: Int
    /// samples of a real-time stream lost before they were transformed
    public var droppedSamples: Int
    /// a one-line problem to show (e.g. "device disconnected"), or nil
    public var message: String?
    /// what the feed adds to the status line, shown as a badge (e.g.
    /// "● REC 00:12", "REPLAY ×4"), or nil
    public var extra: String?
    /// what the levels are in: "dBm" for analyzers that report calibrated
    /// power (tinySA, RF Explorer), "dB" (relative to full scale) otherwise
    public var powerUnit: PowerUnit
    /// how long each frequency is watched per sweep and how often, where
    /// the source computes spectra from samples (the HackRF), else nil
    public var dwell: DwellTiming?
    /// the analyzer's settings and calibration in use ("LNA 16 dB, VGA 20 dB, amp off, antenna power off │ cal
    /// 2026-11-25"), or nil
    public var settings: String?

    public init(deviceName: String, isDemo: Bool, binWidthHz: Double = 0, framesPerSecond: Double = 0,
                droppedBlocks: Int = 0, badBlocks: Int = 0, message: String? = nil, extra: String? = nil,
                powerUnit: PowerUnit = .dB, dwell: DwellTiming? = nil, settings: String? = nil, droppedSamples: Int = 0) {
        self.settings = settings
        self.droppedSamples = droppedSamples
        self.deviceName = deviceName
        self.isDemo = isDemo
        self.binWidthHz = binWidthHz
        self.framesPerSecond = framesPerSecond
        self.droppedBlocks = droppedBlocks
        self.badBlocks = badBlocks
        self.message = message
        self.extra = extra
        self.powerUnit = powerUnit
        self.dwell = dwell
    }
}
