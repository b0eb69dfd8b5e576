import DSP
import ECG
import Signals
import Terminal
import ViewModels
import ThreadKit

/// One live ECG stream on screen: its feed (source → pipeline), the monitor
/// model and view, and the measured figures of its status line. The full-screen
/// `ECGViewer` and the pane beside the spectrum (`ECGSidePane`) both run one.
///
/// Per frame: `update(now:)` drains the source, `render(in:into:)` draws, and
/// `presented(at:)` — after the terminal write — records the sample-to-screen
/// latency: from the moment the newest drawn sample was read from the source
/// to the end of the write of the frame that shows it.
public final class ECGLiveMonitor {
    /// how often the status line's measured figures are refreshed [s]
    static let statusPeriod = 0.5
    /// a source silent this long is said to be stalled on the status line, for as long as it lasts [s]
    static let stallSeconds = 2.0

    public private(set) var model: ECGMonitorModel
    public let feed: ECGFeed
    private let view: ECGMonitorView
    private var latency = ECGLatencyMeter()
    /// every frame's latency of the run, for the closing line
    public private(set) var runLatency = LatencyHistogram()
    private var frameRate = RateMeter()
    private var status: ECGMonitorStatus
    private var statusUpdatedAt = -Double.infinity
    /// when the newest sample of the frame being drawn was read [s, monotonic]
    private var pendingArrival: Double?
    private var message: String?
    /// when samples last arrived [the update clock's s]; nil before the first update
    private var lastDataAt: Double?

    /// what samples' arrival is timed on (tests hand in a `ManualClock`)
    private let clock: any MonotonicClock

    /// - Parameter showsKeys: draw the key help line (false in a pane)
    public init(feed: ECGFeed, model: ECGMonitorModel, showsKeys: Bool = true, clock: any MonotonicClock = SystemClock()) {
        self.clock = clock
        view = ECGMonitorView(showsKeys: showsKeys)
        self.feed = feed
        self.model = model
        status = ECGMonitorStatus(sourceName: feed.sourceName)
    }

    /// Drains the source into the model. Source errors are thrown (the
    /// caller ends the view with them).
    public func update(now: Double) throws {
        if let arrival = try feed.drain(into: &model, clock: { clock.now }) {
            // frames drawn late: the oldest sample not yet on screen counts
            pendingArrival = min(pendingArrival ?? arrival, arrival)
            lastDataAt = now
        } else if lastDataAt == nil {
            lastDataAt = now
        }
        status.ended = feed.ended
        frameRate.record(at: now)
        if now - statusUpdatedAt >= Self.statusPeriod {
            statusUpdatedAt = now
            status.heartRateBPM = feed.heartRateBPM
            status.rhythm = feed.status
            status.latencyP99Seconds = latency.quantile(0.99)
            status.framesPerSecond = frameRate.rate(at: now)
            let skipped = feed.skippedCount
            // a live source that went quiet says so for the whole silence (not after it ended)
            let silent = status.ended ? 0 : now - (lastDataAt ?? now)
            let stall = silent >= Self.stallSeconds ? "no data from \(feed.sourceName) for \(Int(silent)) s" : nil
            let parts = [message, stall, feed.linkNote, skipped > 0 ? "\(skipped) skipped" : nil].compactMap { $0 }
            status.message = parts.isEmpty ? nil : parts.joined(separator: " │ ")
        }
    }

    public func render(in rect: Rect, into buffer: inout Buffer) {
        view.render(model: model, status: status, in: rect, into: &buffer)
    }

    /// The frame is on the terminal: records the latency of its newest sample.
    public func presented(at now: Double) {
        guard let arrival = pendingArrival else { return }
        latency.record(seconds: now - arrival)
        runLatency.record(seconds: now - arrival)
        pendingArrival = nil
    }

    /// Forces a full redraw (after a resize).
    public func invalidate() { view.invalidate() }

    /// Applies a user intent to the model and the feed.
    /// - Returns: the refresh rate to switch to, or `.quit`; nil otherwise
    public func apply(_ intent: ECGIntent) -> ECGEffect? {
        let effect = model.apply(intent)
        statusUpdatedAt = -Double.infinity
        switch effect {
        case .setSampleRate(let hz):
            do {
                try feed.setSampleRate(hz)
                model.strip.changeSampleRate(hz)
                latency.reset()
                runLatency = LatencyHistogram()
                message = nil
            } catch {
                message = "\(error)"
            }
            return nil
        case .setSourcePaused(let paused):
            feed.setPaused(paused)
            return nil
        case .setPlaybackSpeed(let speed):
            message = feed.setPlaybackSpeed(speed) ? nil : "the speed is set by \(feed.sourceName); only records replay"
            return nil
        case .quit, .setRefreshRate, nil:
            return effect
        }
    }

    /// the status line's figures as last refreshed
    public var shownStatus: ECGMonitorStatus { status }
}
