import ECG

/// Everything the ECG viewer shows, as a pure state machine: the strip, the
/// layout, the event list and the refresh rate. Intents change it; effects
/// that reach outside (the source's rate, pause, quitting) are returned.
public struct ECGMonitorModel: Sendable {
    public enum Layout: Sendable, Equatable {
        /// the source's leads stacked, from `firstStripLead`
        case strip
        /// 3×4 printout with a lead II rhythm strip
        case twelveLead
    }

    /// refresh rates the refresh keys step through [frames/s]
    public static let refreshRates: [Double] = [5, 10, 15, 20, 25, 30, 60]
    /// sample rates the rate keys offer a synthetic source [Hz]
    public static let sampleRates: [Double] = [125, 250, 360, 500, 1000]
    /// replay speeds the speed keys step through [× real time]
    public static let playbackSpeeds: [Double] = [0.25, 0.5, 1, 2, 4, 8]

    public var strip: ECGStripModel
    public let twelveLead: ECGTwelveLeadLayout
    public private(set) var layout: Layout
    /// first source lead the strip layout shows
    public private(set) var firstStripLead = 0
    public var events = ECGEventListModel()
    /// heart rate per second against the reference or the target zone (key t)
    public var trend = ECGHeartRateTrend()
    public private(set) var showsTrend = false
    /// beats without a signal (a heart-rate strap): the trend is all there is to draw
    public private(set) var trendOnly = false
    /// frames drawn per second at most
    public private(set) var refreshRate: Double
    /// a replayed record's speed [× real time]
    public private(set) var playbackSpeed: Double = 1
    /// the key help is shown over the strips
    public private(set) var showsHelp = false

    public init(strip: ECGStripModel, refreshRate: Double = 30, layout: Layout? = nil) {
        self.strip = strip
        twelveLead = ECGTwelveLeadLayout(leadNames: strip.leadNames)
        self.layout = layout ?? (twelveLead.isUseful ? .twelveLead : .strip)
        self.refreshRate = ECGStripModel.step(Self.refreshRates, from: refreshRate, by: 0)
    }

    /// Shows the heart-rate trend for good: a source of beats alone has no strip.
    public mutating func showTrendOnly() {
        trendOnly = true
        showsTrend = true
    }

    /// Applies an intent; returns what the viewer must do beyond the model.
    public mutating func apply(_ intent: ECGIntent) -> ECGEffect? {
        switch intent {
        case .togglePause:
            strip.togglePause()
            return .setSourcePaused(strip.isPaused)
        case .stepStripLength(let steps):
            strip.stepStripLength(by: steps)
        case .stepGain(let steps):
            strip.stepGain(by: steps)
        case .toggleLayout:
            layout = layout == .strip ? .twelveLead : .strip
        case .nextLeads:
            firstStripLead = strip.leadCount > 0 ? (firstStripLead + 1) % strip.leadCount : 0
        case .toggleEventList:
            events.toggleOpen()
        case .toggleTrend:
            if !trendOnly { showsTrend.toggle() }
        case .moveEventSelection(let steps):
            events.moveSelection(by: steps)
        case .deleteSelectedEvent:
            events.deleteSelected()
        case .closeEventList:
            events.close()
        case .stepSampleRate(let steps):
            let rate = ECGStripModel.step(Self.sampleRates, from: strip.sampleRate, by: steps)
            return rate == strip.sampleRate ? nil : .setSampleRate(rate)
        case .stepRefreshRate(let steps):
            refreshRate = ECGStripModel.step(Self.refreshRates, from: refreshRate, by: steps)
            return .setRefreshRate(refreshRate)
        case .stepPlaybackSpeed(let steps):
            playbackSpeed = ECGStripModel.step(Self.playbackSpeeds, from: playbackSpeed, by: steps)
            return .setPlaybackSpeed(playbackSpeed)
        case .toggleHelp:
            showsHelp.toggle()
        case .quit:
            return .quit
        }
        return nil
    }

    /// The source leads the strip layout shows when `fitting` leads fit.
    public func stripLeads(fitting: Int) -> Range<Int> {
        let count = min(max(fitting, 1), strip.leadCount)
        let first = min(firstStripLead, max(0, strip.leadCount - count))
        return first..<(first + count)
    }
}
