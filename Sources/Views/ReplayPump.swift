import DSP
import Signals
import ViewModels

/// How the viewer feeds a replay into its models: every frame played goes
/// through `AnalyzerModel.ingest(_:)` into the waterfall's history and the
/// persistence (none lost to peak hold at ×64) and into the mailbox for the
/// plot and meter (the viewer's own delivery, as live); after a jump the
/// history is read again from the file for the visible period, and the
/// persistence from the frames of its persistence time.
enum ReplayPump {
    /// Plays the frames the playhead reached by `wallClock` [s, monotonic].
    static func advance(_ replay: ReplayControl, model: AnalyzerModel, mailbox: FrameMailbox,
                        at wallClock: Double) throws {
        defer { model.replay = replay.state(at: wallClock) }
        measure(model, mailbox)
        try replay.advance(to: wallClock) { frame in
            model.ingest(FrameDelivery(frame: frame))
            mailbox.post(frame)
        }
    }

    /// Carries out a replay intent, refilling after a jump.
    static func perform(_ intent: ReplayIntent, on replay: ReplayControl, model: AnalyzerModel,
                        mailbox: FrameMailbox, at wallClock: Double) throws {
        defer { model.replay = replay.state(at: wallClock) }
        if try replay.perform(intent, at: wallClock) {
            try refill(replay, model: model, mailbox: mailbox, at: wallClock)
        }
    }

    /// After a jump: the waterfall's period before the playhead read again
    /// (so even a paused seek shows the picture of that time), the view back
    /// at the playhead, the plot on the last frame before it, the meter
    /// started afresh (its smoothing runs forward in time).
    static func refill(_ replay: ReplayControl, model: AnalyzerModel, mailbox: FrameMailbox,
                       at wallClock: Double) throws {
        model.waterfall.history.clear()
        model.persistence.reset()
        model.waterfall.scrollToNow()
        model.meter = PowerMeterModel(band: model.meter.band)
        mailbox.clear()
        measure(model, mailbox)
        // the persistence sees the frames of its last few persistence times (older ones weigh
        // less than e⁻³ = 5 %); frames before that are not read for it
        let playhead = replay.playhead(at: wallClock)
        let persistenceSpan = min(model.waterfall.periodSeconds, 3 * model.persistence.persistenceSeconds)
        try replay.refill(seconds: model.waterfall.periodSeconds, at: wallClock) { frame in
            model.ingest(FrameDelivery(frame: frame, feedsPersistence: frame.timestamp >= playhead - persistenceSpan))
            // only the newest: the plot shows the frame at the playhead, not a peak over the period
            mailbox.clear()
            mailbox.post(frame)
        }
    }

    /// Sets the band the mailbox averages before frames are posted: a frame
    /// posted while none is set is not measured (the first frame of a replay
    /// would give the meter no reading).
    private static func measure(_ model: AnalyzerModel, _ mailbox: FrameMailbox) {
        mailbox.measuredBand = model.meter.measuredBand(visible: model.plot.visibleBand)
    }
}
