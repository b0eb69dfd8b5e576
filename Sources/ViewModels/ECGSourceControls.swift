import ECG

/// What the ECG viewer needs from beat detection, the smallest seam the QRS
/// detector, heart-rate and rhythm stages (module ECG) have to fill.
public protocol ECGRhythmMonitor: AnyObject {
    /// Takes the samples just read (every lead, mV, `chunk.count` per lead, at
    /// `sampleRate` Hz) and appends the events that began in them to `events`.
    func process(_ chunk: ECGChunk, sampleRate: Double, events: inout [RhythmEvent])
    /// smoothed heart rate [beats/min]; nil until enough beats were seen
    var heartRateBPM: Double? { get }
    /// the rhythm now
    var status: RhythmStatus { get }
}

/// A source whose sample rate can change while it runs (the synthetic
/// generator): the viewer's rate keys call this.
public protocol ECGSampleRateControl: AnyObject {
    /// Delivers `hz` samples per second per lead from the next read on.
    func setSampleRate(_ hz: Double) throws
}

/// A source that can stop and resume where it stopped (a record replayed at
/// real rate); the viewer's pause key calls this.
public protocol ECGPausable: AnyObject {
    func setPaused(_ paused: Bool)
}
