import Signals

/// One delivery of spectrum to the analyzer, what `AnalyzerModel.ingest(_:)`
/// takes from every source: the live viewer fills it from its mailbox each
/// drawn frame; a replay's pump fills it with each frame it plays (or reads
/// again after a jump) and the viewer then adds the meter's reading.
public struct FrameDelivery {
    /// The frame for the views that keep a history (waterfall, persistence):
    /// live, the peak hold of every sweep since the last drawn frame; replay,
    /// one frame as played. nil when the frames went there already (a
    /// replay's pump delivered each before the viewer draws the latest).
    public var frame: SpectrumFrame?
    /// The persistence takes `frame` too. A replay's refill reads the
    /// waterfall's whole period again, but the persistence only the frames
    /// of its last few persistence times (older ones weigh under 5 %).
    public var feedsPersistence: Bool
    /// The plot's held or averaged trace when the trace is not live: the
    /// meter then measures it, as a bench analyzer's channel power does.
    public var trace: SpectrumFrame?
    /// The meter's reading: the band power of every sweep since the last
    /// delivery, averaged in linear power [dB], at `time` [s, the feed's
    /// timeline]; nil for none (nothing swept, or the pump's frames).
    public var bandPower: (decibels: Double, time: Double)?

    public init(frame: SpectrumFrame?, feedsPersistence: Bool = true, trace: SpectrumFrame? = nil,
                bandPower: (decibels: Double, time: Double)? = nil) {
        self.frame = frame
        self.feedsPersistence = feedsPersistence
        self.trace = trace
        self.bandPower = bandPower
    }
}
