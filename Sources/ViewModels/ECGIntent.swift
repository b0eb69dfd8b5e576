/// What the user asked the ECG viewer to do, independent of the key that asked.
public enum ECGIntent: Sendable, Equatable {
    case togglePause
    /// next longer (+1) / shorter (−1) strip
    case stepStripLength(Int)
    /// next higher (+1) / lower (−1) gain
    case stepGain(Int)
    /// strip ↔ 12-lead printout
    case toggleLayout
    /// strip layout: show the next lead(s) of the source
    case nextLeads
    case toggleEventList
    /// the heart-rate trend over the strips ↔ the strips
    case toggleTrend
    /// in the event list: older (+1) / newer (−1)
    case moveEventSelection(Int)
    case deleteSelectedEvent
    case closeEventList
    /// the synthetic source's sample rate: next higher (+1) / lower (−1)
    case stepSampleRate(Int)
    /// the view's refresh rate: next higher (+1) / lower (−1)
    case stepRefreshRate(Int)
    /// a replayed record's speed: next faster (+1) / slower (−1)
    case stepPlaybackSpeed(Int)
    /// `?`: the key help over the strips, or away
    case toggleHelp
    case quit
}

/// What an intent asks of the viewer beyond the model.
public enum ECGEffect: Sendable, Equatable {
    case quit
    /// ask the source for this sample rate [Hz]
    case setSampleRate(Double)
    /// pause (true) or resume the source, if it can
    case setSourcePaused(Bool)
    /// draw at most this many frames per second
    case setRefreshRate(Double)
    /// replay the record at this multiple of real time
    case setPlaybackSpeed(Double)
}
