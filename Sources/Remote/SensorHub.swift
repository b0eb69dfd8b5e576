#if SensorLink
import Analyzers
import DSP
import Signals
import ThreadKit

/// The sensor side of `tscope serve`: the viewers connected now, which of
/// them holds retune control, and what the analyzer sweeps. The analyzer's
/// thread `publish`es frames; each viewer's feed cuts its own share.
///
/// Control: a viewer asking for it gets it when nobody holds it, keeps it
/// until it lets go or hangs up, and its band retunes the analyzer; the
/// others follow (they see the analyzer's new band, cut to theirs where the
/// two overlap).
public final class SensorHub: Sendable {
    /// The analyzer as the viewers see it.
    public struct Analyzer: Sendable {
        public var name: String
        public var kind: String
        public var serial: String?
        public var unit: PowerUnit
        public var isDemo: Bool
        public var tunableRange: FrequencyRange
        public var stallSeconds: Double
        /// its settings and calibration as the status line shows them
        public var settings: String
        /// the same as `meter --json` fields (`,"key":value` each)
        public var settingsJSON: String
        /// the detector that makes its frames' levels (the others ride along where it keeps them all)
        public var detector: SpectrumDetector
        /// tscope makes its levels from samples (`AnalyzerKind.detectsFromSamples`): a detector means something
        public var detectsFromSamples: Bool

        public init(name: String, kind: String, serial: String?, unit: PowerUnit, isDemo: Bool,
                    tunableRange: FrequencyRange, stallSeconds: Double, settings: String = "",
                    settingsJSON: String = "", detector: SpectrumDetector = .peak, detectsFromSamples: Bool = true) {
            self.detectsFromSamples = detectsFromSamples
            self.settings = settings
            self.settingsJSON = settingsJSON
            self.detector = detector
            self.name = name
            self.kind = kind
            self.serial = serial
            self.unit = unit
            self.isDemo = isDemo
            self.tunableRange = tunableRange
            self.stallSeconds = stallSeconds
        }
    }

    /// Retunes the analyzer to a band with a bin width [Hz] (USB work: called outside the hub's lock).
    public typealias Retune = @Sendable (FrequencyRange, Double) throws -> Void
    /// Changes the analyzer's settings ("lna-gain" → "24", as the command line
    /// names them) and returns it as it runs now (its settings line, the
    /// same as `meter --json` fields, and its unit);
    /// throws a message in words for a value it refuses.
    public typealias ChangeSettings = @Sendable ([String: String]) throws
        -> (settings: String, settingsJSON: String, unit: PowerUnit)

    private struct State {
        var feeds: [Int: ViewerFeed] = [:]
        var nextID = 1
        var controller: Int?
        var sweep: FrequencyRange
        var binWidthHz: Double
        var sequence: UInt64 = 0
        var outage: String?
        var closed = false
        var viewersServed = 0
        /// the analyzer's settings line (and as JSON fields) and level unit, as they are now
        var settings: String
        var settingsJSON: String
        var unit: PowerUnit
        /// each detector's dwell and revisit in the running plan, as last told (`updateTiming`)
        var timing: [SpectrumDetector: DwellTiming] = [:]
    }

    private let analyzer: Analyzer
    private let retune: Retune
    private let changeSettings: ChangeSettings?
    private let state: Guarded<State>
    /// one retune at a time, in the order viewers asked
    private let retuning = Guarded(())

    /// - Parameter changeSettings: how a viewer holding control changes the analyzer's settings; nil: it cannot
    public init(analyzer: Analyzer, sweep: FrequencyRange, binWidthHz: Double, retune: @escaping Retune,
                changeSettings: ChangeSettings? = nil) {
        self.analyzer = analyzer
        self.retune = retune
        self.changeSettings = changeSettings
        state = Guarded(State(sweep: sweep, binWidthHz: binWidthHz, settings: analyzer.settings,
                               settingsJSON: analyzer.settingsJSON, unit: analyzer.unit))
    }

    /// viewers connected now, and all that ever connected
    public var viewers: (now: Int, served: Int) { state.withLock { ($0.feeds.count, $0.viewersServed) } }

    /// the analyzer and its current sweep, as `Describe` answers
    var description: Tscope_Remote_V1_SensorDescription {
        state.withLock { describe(sweep: $0.sweep, binWidthHz: $0.binWidthHz, in: $0) }
    }

    private func describe(sweep: FrequencyRange, binWidthHz: Double, in state: State) -> Tscope_Remote_V1_SensorDescription {
        var message = Tscope_Remote_V1_SensorDescription()
        message.deviceName = analyzer.name
        message.deviceKind = analyzer.kind
        message.serial = analyzer.serial ?? ""
        message.unit = state.unit.rawValue
        message.settings = state.settings
        message.settingsJson = state.settingsJSON
        message.demo = analyzer.isDemo
        message.tunableLowHz = analyzer.tunableRange.lowerHz
        message.tunableHighHz = analyzer.tunableRange.upperHz
        message.sweepLowHz = sweep.lowerHz
        message.sweepHighHz = sweep.upperHz
        message.binWidthHz = binWidthHz
        message.stallSeconds = analyzer.stallSeconds
        return message
    }

    /// The viewer's settings request, when it holds control: applied, and
    /// every viewer told the analyzer's new description; the viewer told in
    /// words what became of it either way.
    private func changeSettings(_ changes: [String: String], from feed: ViewerFeed, mayChange: Bool) {
        guard !changes.isEmpty else { return }
        guard mayChange else {
            let holder = state.withLock { state in state.controller.flatMap { state.feeds[$0]?.peer } } ?? "another viewer"
            feed.send(notice: "settings not changed: \(holder) holds control")
            return
        }
        guard let changeSettings else {
            feed.send(notice: "settings not changed: this sensor does not take them")
            return
        }
        do {
            let now = try retuning.withLock { _ in try changeSettings(changes) }
            let (feeds, described) = state.withLock { state -> ([ViewerFeed], Tscope_Remote_V1_SensorDescription) in
                state.settings = now.settings
                state.settingsJSON = now.settingsJSON
                state.unit = now.unit
                return (Array(state.feeds.values), describe(sweep: state.sweep, binWidthHz: state.binWidthHz, in: state))
            }
            for viewer in feeds { viewer.send(sensor: described) }
            feed.send(notice: "settings: \(now.settings.isEmpty ? "the analyzer's own" : now.settings)")
        } catch {
            feed.send(notice: "settings not changed: \(error)")
        }
    }

    /// Every analyzer frame, on the analyzer's thread.
    public func publish(_ frame: SpectrumFrame, counters: SpectrumSourceCounters) {
        guard let range = frame.range else { return }
        let (feeds, sequence, changed) = state.withLock { state -> ([ViewerFeed], UInt64, Tscope_Remote_V1_SensorDescription?) in
            state.sequence += 1
            state.outage = nil
            var changed: Tscope_Remote_V1_SensorDescription?
            if state.sweep != range || abs(state.binWidthHz - frame.binWidthHz) > 1e-9 * frame.binWidthHz {
                state.sweep = range
                state.binWidthHz = frame.binWidthHz
                changed = describe(sweep: range, binWidthHz: frame.binWidthHz, in: state)
            }
            return (Array(state.feeds.values), state.sequence, changed)
        }
        let (unit, timing) = state.withLock { ($0.unit, $0.timing) }
        let detection = SensorDetection(detector: analyzer.detector, fromSamples: analyzer.detectsFromSamples,
                                        timing: timing)
        let identity = FrameIdentity(deviceName: analyzer.name, serial: analyzer.serial ?? "", unit: unit,
                                     badBlocks: UInt64(max(0, counters.badBlocks)),
                                     droppedBlocks: UInt64(max(0, counters.droppedBlocks)))
        for feed in feeds {
            if let changed { feed.send(sensor: changed) }
            feed.offer(frame, identity: identity, sequence: sequence, detection: detection)
        }
    }

    /// Each detector's dwell and revisit in the running plan (the serving
    /// loop tells it a few times a second; a detector left out has none).
    public func updateTiming(_ timing: [SpectrumDetector: DwellTiming]) {
        state.withLock { $0.timing = timing }
    }

    /// The analyzer is lost (the text says why and what next); nil when it is back.
    public func publishOutage(_ text: String?) {
        let feeds = state.withLock { state -> [ViewerFeed] in
            guard state.outage != text else { return [] }
            state.outage = text
            return text == nil ? [] : Array(state.feeds.values)
        }
        if let text { for feed in feeds { feed.send(outage: text) } }
    }

    /// A viewer connected: it gets the description and the control state first.
    func join(peer: String, mayControl: Bool = true) -> ViewerFeed? {
        state.withLock { state -> ViewerFeed? in
            guard !state.closed else { return nil }
            // gRPC names peers "ipv4:10.0.0.7:51234"; the address is enough
            let address = peer.hasPrefix("ipv4:") || peer.hasPrefix("ipv6:") ? String(peer.dropFirst(5)) : peer
            let feed = ViewerFeed(id: state.nextID, peer: address, mayControl: mayControl)
            state.nextID += 1
            state.viewersServed += 1
            state.feeds[feed.id] = feed
            feed.send(sensor: describe(sweep: state.sweep, binWidthHz: state.binWidthHz, in: state))
            feed.send(control: controlState(for: feed.id, in: state))
            if let outage = state.outage { feed.send(outage: outage) }
            return feed
        }
    }

    /// what a watch-only viewer is told when it asks to retune or change settings
    static let watchOnlyNotice = "watch only: this viewer's token lets it watch, not retune or change the analyzer's "
        + "settings (the sensor's --control-token-file gives that right)"

    /// A viewer hung up: control, if it held it, is free again.
    func leave(_ feed: ViewerFeed) {
        feed.close()
        state.withLock { state in
            state.feeds[feed.id] = nil
            if state.controller == feed.id {
                state.controller = nil
                announceControl(in: state)
            }
        }
    }

    /// A viewer's request: its subscription, and a retune when it holds (or
    /// can take) control. Throws what the analyzer said to a retune.
    func apply(_ request: Tscope_Remote_V1_ViewRequest, from feed: ViewerFeed) throws {
        let subscription = ViewerSubscription(request)
        feed.subscribe(subscription)
        if !request.detector.isEmpty && subscription.detector == nil {
            feed.send(notice: "detector \(request.detector) unknown: "
                + SpectrumDetector.allCases.map(\.rawValue).joined(separator: ", ")
                + "; these frames are \(analyzer.detector.rawValue)")
        }
        if request.control && !feed.mayControl {
            // watch-only: it follows the sensor's band, and is told why its own request changes nothing
            feed.send(notice: Self.watchOnlyNotice)
            return
        }
        let mayRetune = state.withLock { state -> Bool in
            let before = state.controller
            if request.control {
                if state.controller == nil { state.controller = feed.id }
            } else if state.controller == feed.id {
                state.controller = nil
            }
            if state.controller != before { announceControl(in: state) }
            return state.controller == feed.id
        }
        changeSettings(request.settings, from: feed, mayChange: mayRetune)
        guard mayRetune, let band = subscription.band, let wanted = clamp(band) else { return }
        try retuning.withLock { _ in
            let binWidth = request.binWidthHz > 0 && request.binWidthHz.isFinite
                ? request.binWidthHz : state.withLock { $0.binWidthHz }
            try retune(wanted, binWidth)
        }
    }

    /// Stops every viewer's stream (the sensor is shutting down).
    public func close() {
        let feeds = state.withLock { state -> [ViewerFeed] in
            state.closed = true
            return Array(state.feeds.values)
        }
        for feed in feeds { feed.close() }
    }

    private func clamp(_ band: FrequencyRange) -> FrequencyRange? {
        FrequencyRange(lowerHz: max(band.lowerHz, analyzer.tunableRange.lowerHz),
                       upperHz: min(band.upperHz, analyzer.tunableRange.upperHz))
    }

    private func controlState(for id: Int, in state: State) -> Tscope_Remote_V1_ControlState {
        var control = Tscope_Remote_V1_ControlState()
        control.held = state.controller == id
        if let holder = state.controller, holder != id { control.holder = state.feeds[holder]?.peer ?? "another viewer" }
        return control
    }

    private func announceControl(in state: State) {
        for (id, feed) in state.feeds { feed.send(control: controlState(for: id, in: state)) }
    }
}
#endif
