import DSP
import Foundation
import Signals

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

extension SpectrumStatus {
    /// The warning for a frame whose points were each measured through a filter narrower than the step
    /// between them (a tinySA over a wide span: its auto RBW tops out at 850 kHz, 600 kHz on the basic,
    /// while 30 MHz–1 GHz over 450 points is 2.16 MHz a point): a tone between two points falls on the
    /// skirts of both filters and reads low, by up to 3 dB × (step ÷ RBW)² for a Gaussian filter; past
    /// 20 dB a real filter's skirt departs from the Gaussian, so the line says "20+".
    /// "RBW 850 kHz < 2.2 MHz step: tones between points read up to 19 dB low". Nil when the filter
    /// covers the step, and for spectra made by FFT (their windowing stated), whose bins always overlap.
    public static func pointStepWarning(_ frame: SpectrumFrame) -> String? {
        guard frame.windowing == nil, let noiseBandwidth = frame.noiseBandwidthHz, noiseBandwidth > 0,
              frame.binWidthHz > 0 else { return nil }
        let rbw = noiseBandwidth / ResolutionFilter.gaussianNoiseBandwidthRatio
        guard rbw < frame.binWidthHz * (1 - 1e-6) else { return nil }
        let ratio = frame.binWidthHz / rbw
        let lossDB = (10 * log10(2.0) * ratio * ratio).rounded()
        return "RBW \(FrequencyFormat.label(rbw)) < \(FrequencyFormat.label(frame.binWidthHz, maxFractionDigits: 1)) step: "
            + "tones between points read " + (lossDB > 20 ? "20+" : "up to \(Int(lossDB))") + " dB low"
    }
}
