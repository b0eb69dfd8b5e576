import DSP
import Signals

/// What the viewer must do after an intent beyond redrawing.
public enum AnalyzerEffect: Sendable, Equatable {
    case none
    case quit
    /// fit the dB window to the shown frame (needs the frame)
    case autoscale
    /// paused: keep showing the current frame
    case paused
    /// resumed at now: forget what piled up while paused
    case resumed
    /// the replay must do this (the viewer owns the playback)
    case replay(ReplayIntent)
    /// start or stop a recording (the viewer owns the recorder)
    case toggleRecording
    /// the trace mode changed: the frames' source must apply it
    case traceChanged(TraceMode)
    /// a marker key: needs the shown trace's peaks
    case marker(MarkerIntent)
    /// s: store the shown trace as the reference (needs the frame)
    case storeReference
    /// S: the reference is gone
    case referenceDropped
    /// e, or ACPR's channel set in the drawer: measure the shown trace again (needs the frame)
    case measurementChanged
}

/// The whole analyzer screen as one state machine: the current view, the
/// views' models, the drawer and the key help. Intents from keys and
/// gestures change it; the viewer reads `tuning` to reconfigure the device.
public final class AnalyzerModel {
    /// frequency slider and band fields move in multiples of this [Hz]
    public static let frequencyStepHz = 10_000.0
    /// display spans the drawer accepts [dB]
    public static let displaySpanLimits = 1.0...200.0

    public private(set) var mode: AnalyzerMode
    public var plot: SpectrumPlotModel
    public let waterfall: WaterfallModel
    public var meter: PowerMeterModel
    /// the persistence (density) view's histogram; its geometry is set by the view as it draws
    public let persistence: PersistenceModel
    /// the occupancy view's counts per device bin since the band was tuned
    public let occupancy = OccupancyTraceModel()
    /// the zero-span view's settings and newest trace
    public let zeroSpan = ZeroSpanModel()
    public private(set) var drawer = DrawerModel()
    public private(set) var showsHelp = false
    /// a one-line complaint about the last drawer entry, shown in the drawer
    public private(set) var notice: String?
    /// set by the viewer while a file is replayed; nil for a live analyzer
    public var replay: ReplayState?
    /// continuous auto levels: the dB window follows every drawn frame
    public private(set) var autoLevels = false
    /// how the waterfall combines bins into columns and frames into rows
    public private(set) var waterfallDetector: ColumnDetector = .peak
    /// what the plot's trace shows (t cycles; --trace sets the first)
    public private(set) var traceMode: TraceMode = .live
    /// the plot's markers (m, n, N, M, x)
    public var markers = MarkerSet()
    /// the measurement e shows in the plot (harmonics, TOI, ACPR, noise marker) and its reading
    public private(set) var measurement = BenchMeasurementModel()
    /// events of watch's --above/--mask/--over-baseline condition
    public var events = EventLog()
    /// a stored reference trace (s stores the shown one, --reference loads one), drawn dimmed
    public var reference: [LevelPoint]? { referenceTrace?.points }
    /// the reference and its resampling onto the last bins it was used on
    public private(set) var referenceTrace: ReferenceTrace?
    /// live − reference for the waterfall and the persistence, reused frame to frame
    private var waterfallScratch = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
    /// show live − reference [dB] in the plot and the waterfall (--subtract-reference)
    public private(set) var subtractsReference = false
    /// the band plan drawn under the frequency axis and named beside markers (--band-plan); nil: none
    public private(set) var bandPlan: BandPlan?
    /// faint lines at the band plan's allocation edges across the plot (b, --band-plan-grid)
    public private(set) var showsChannelGrid = false

    /// the --mask limit line in the levels' unit (converted from its file's), drawn over the plot; nil: none
    public private(set) var limitLine: [LevelPoint]?

    /// Sets (or, with nil, clears) the limit line drawn over the plot.
    public func setLimitLine(_ points: [LevelPoint]?) { limitLine = points.flatMap { $0.isEmpty ? nil : $0 } }

    /// Sets (or, with nil, clears) the band plan; the grid shows only with a plan.
    public func setBandPlan(_ plan: BandPlan?, grid: Bool = false) {
        bandPlan = plan
        showsChannelGrid = grid && plan != nil
    }

    /// Sets (or, with nil, clears) the reference trace.
    public func setReference(_ points: [LevelPoint]?, subtract: Bool = false) {
        referenceTrace = points.flatMap { $0.isEmpty ? nil : ReferenceTrace(points: $0) }
        subtractsReference = subtract && referenceTrace != nil
    }

    /// The reference on `frame`'s bins; nil without one.
    public func reference(on frame: SpectrumFrame) -> SpectrumFrame? {
        referenceTrace?.resampled(to: frame)
    }

    /// Takes one delivery of spectrum into the views' models. Every source
    /// feeds the model through here alone — the live viewer (a local
    /// analyzer or a remote sensor, whose frames reach the same mailbox) once
    /// per drawn frame, and a replay's pump once per frame it plays or reads
    /// again — so every view is fed the same way whatever the source.
    ///
    /// The waterfall always takes the frame (a frozen plot can still scroll
    /// back through what arrived); while the plot is frozen the persistence
    /// and the meter do not, so the frozen picture stays put. With live −
    /// reference shown, the history views take that, made in a scratch frame
    /// (no allocation per frame).
    public func ingest(_ delivery: FrameDelivery) {
        if let frame = delivery.frame { waterfall.add(shown(frame)) }
        guard !plot.isPaused else { return }
        if let frame = delivery.frame, delivery.feedsPersistence {
            persistence.add(shown(frame))
            occupancy.add(frame)
        }
        guard let reading = delivery.bandPower else { return }
        if let trace = delivery.trace {
            // as a bench analyzer's channel power: the meter measures the held or averaged trace
            if let traced = BandPower.decibels(in: meterBand, of: trace) { meter.record(traced, at: reading.time) }
        } else {
            meter.record(reading.decibels, at: reading.time)
        }
    }

    /// `frame`, or live − reference in the scratch frame when that is shown.
    private func shown(_ frame: SpectrumFrame) -> SpectrumFrame {
        guard subtractsReference, referenceTrace != nil else { return frame }
        waterfallScratch.startHz = frame.startHz
        waterfallScratch.binWidthHz = frame.binWidthHz
        waterfallScratch.timestamp = frame.timestamp
        waterfallScratch.noiseBandwidthHz = frame.noiseBandwidthHz
        waterfallScratch.windowing = frame.windowing
        if waterfallScratch.powerDB.count == frame.powerDB.count {
            for i in frame.powerDB.indices { waterfallScratch.powerDB[i] = frame.powerDB[i] }
        } else {
            waterfallScratch.powerDB = frame.powerDB
        }
        referenceTrace?.subtract(from: &waterfallScratch)
        return waterfallScratch
    }

    /// With --subtract-reference (or after s with it on): live − reference
    /// in `frame` [dB], for the plot and the waterfall alike.
    public func subtractReferenceIfShown(from frame: inout SpectrumFrame) {
        guard subtractsReference else { return }
        referenceTrace?.subtract(from: &frame)
    }

    /// Sets the trace mode (e.g. from --trace); the viewer hands it to its frames' source.
    public func setTraceMode(_ mode: TraceMode) { traceMode = mode }
    /// the replay's "go to" text being typed; nil when not typing
    public private(set) var timeEntry: String?
    /// a one-line complaint about the last typed time, for the status line
    public private(set) var timeEntryNotice: String?

    public init(plot: SpectrumPlotModel, waterfall: WaterfallModel = WaterfallModel(),
                meter: PowerMeterModel = PowerMeterModel(), persistence: PersistenceModel = PersistenceModel(),
                mode: AnalyzerMode = .plot) {
        self.plot = plot
        self.waterfall = waterfall
        self.meter = meter
        self.persistence = persistence
        self.mode = mode
    }

    /// the plot is frozen, or the replay is paused
    public var isPaused: Bool { plot.isPaused || replay?.isPaused == true }

    /// The band and bin width the device should deliver: the visible band,
    /// except in the meter with a band of its own, which is then what is swept.
    public var tuning: TuningRequest {
        var visible = plot.tuning
        if mode.measuresZeroSpan {
            // a bench analyzer's zero span: the centre frequency of the span on screen
            visible.zeroSpan = zeroSpan.settings(frequencyHz: visible.band.centerHz)
            return visible
        }
        guard mode.tunesToMeterBand, let band = meter.band else { return visible }
        let clamped = FrequencyRange(lowerHz: max(band.lowerHz, plot.deviceLimits.lowerHz),
                                     upperHz: min(band.upperHz, plot.deviceLimits.upperHz)) ?? visible.band
        return TuningRequest(band: clamped, binWidthHz: clamped.spanHz / Double(plot.pixelColumns))
    }

    /// The band the meter measures now.
    public var meterBand: FrequencyRange { meter.measuredBand(visible: plot.visibleBand) }

    /// spans the drawer's slider covers, smallest first [Hz]
    static let sliderSpans: [Double] = [1e6, 2e6, 5e6, 10e6, 20e6, 50e6, 100e6, 200e6, 500e6, 1e9, 2e9, 5e9]

    /// The band the drawer's slider covers: the smallest span from
    /// `sliderSpans` at least four times the visible span, on a grid of a
    /// tenth of it around the band, inside the device. The thumbs then sit
    /// apart for any span, and the range stays put while the band moves a
    /// little (as it does under a dragged thumb).
    public var sliderRange: FrequencyRange {
        let limits = plot.deviceLimits
        let band = plot.visibleBand
        let wanted = Self.sliderSpans.first { $0 >= 4 * band.spanHz } ?? limits.spanHz
        let span = min(wanted, limits.spanHz)
        let grid = span / 10
        let lower = ((band.centerHz - span / 2) / grid).rounded() * grid
        let clamped = min(max(lower, limits.lowerHz), limits.upperHz - span)
        return FrequencyRange(lowerHz: clamped, upperHz: clamped + span) ?? limits
    }

    /// The drawer's fields in the current view: the view's, and ACPR's channel while it is measured in the plot.
    public var drawerFields: [DrawerField] {
        guard mode.hasMarkers, measurement.kind == .acpr else { return mode.drawerFields }
        return mode.drawerFields + [.channelWidth, .channelSpacing]
    }

    /// Measures the shown trace `frame` (the viewer calls this once per drawn frame, and after a key):
    /// the measurement e chose, on the visible band, at the selected marker where it takes one.
    public func measure(_ frame: SpectrumFrame) {
        guard mode.hasMarkers, measurement.kind != nil else { return }
        measurement.measure(frame, visible: plot.visibleBand, markerHz: markers.selectedHz)
    }

    /// The value a drawer field shows, in its unit (MHz, dB, s; the persistence time may be ∞).
    public func value(of field: DrawerField) -> Double {
        switch field {
        case .rangeStart: return plot.visibleBand.lowerHz / 1e6
        case .rangeStop: return plot.visibleBand.upperHz / 1e6
        case .displaySpan: return plot.displaySpanDB
        case .period: return waterfall.periodSeconds
        case .persistence: return persistence.persistenceSeconds
        case .channelWidth: return measurement.channelWidthHz(span: plot.visibleBand) / 1e3
        case .channelSpacing: return measurement.channelSpacingHz(span: plot.visibleBand) / 1e3
        case .zeroSpanRBW: return zeroSpan.rbwHz / 1e3
        case .zeroSpanSweep: return zeroSpan.sweepSeconds * 1e3
        case .triggerLevel: return zeroSpan.trigger?.levelDB ?? .nan
        case .triggerEdge:
            switch zeroSpan.trigger?.slope {
            case .rising?: return 1
            case .falling?: return -1
            case nil: return 0
            }
        case .bandStart: return meterBand.lowerHz / 1e6
        case .bandStop: return meterBand.upperHz / 1e6
        case .autoLevels: return autoLevels ? 1 : 0
        case .detector: return waterfallDetector == .peak ? 1 : 0
        case .trace:
            switch traceMode {
            case .live: return 0
            case .max: return 1
            case .min: return 2
            case .average(let count): return Double(count)
            }
        }
    }

    // MARK: intents

    /// Applies an intent at `now` [s on the feed's timeline].
    @discardableResult
    public func apply(_ intent: AnalyzerIntent, now: Double) -> AnalyzerEffect {
        switch intent {
        case .plot(.quit): return .quit
        case .plot(.autoscale) where mode.measuresZeroSpan:
            autoscaleZeroSpan()
        case .plot(.togglePause) where replay != nil:
            // in a replay, pausing stops the playhead (the waterfall stops too);
            // resuming shows now, as live
            if replay?.isPaused == true { waterfall.scrollToNow() }
            return .replay(.togglePause)
        case .plot(.togglePause):
            plot.togglePause()
            guard !plot.isPaused else { return .paused }
            // resume jumps to now in every view: the waterfall back to live too
            waterfall.scrollToNow()
            return .resumed
        case .plot(let other):
            // a level set by hand ends auto mode, and zero span's fitting of its first traces
            if other == .increaseDisplayGain || other == .decreaseDisplayGain {
                autoLevels = false
                zeroSpan.tracesToFit = 0
            }
            plot.apply(other)
        case .zoom(let factor, let anchor): plot.zoom(by: factor, around: anchor)
        case .shiftLevels(let decibels):
            autoLevels = false
            zeroSpan.tracesToFit = 0
            plot.shiftLevels(byDB: decibels)
        case .show(let wanted): switchMode(to: wanted)
        case .nextMode: switchMode(to: mode.next)
        case .scrollTime(let seconds): waterfall.scroll(bySeconds: seconds, now: now)
        case .scrollToNow: waterfall.scrollToNow()
        case .stepPeriod(let steps): waterfall.stepPeriod(by: steps)
        case .stepPersistence(let steps): persistence.stepPersistence(by: steps)
        case .stepZeroSpanSweep(let steps): zeroSpan.stepSweep(by: steps)
        case .stepZeroSpanRBW(let steps): if mode.measuresZeroSpan { zeroSpan.stepRBW(by: steps) }
        case .toggleZeroSpanTrigger:
            zeroSpan.toggleTrigger(bottomDB: plot.bottomLevelDB, topDB: plot.referenceLevelDB)
        case .resetMeter: meter.resetExtremes()
        case .toggleDrawer:
            drawer.toggle()
            drawer.keepFocus(among: drawerFields)
            notice = nil
        case .toggleHelp: showsHelp.toggle()
        case .drawer(let key): return applyDrawer(key)
        case .setThumb(let field, let hz): setThumb(field, hz: hz)
        case .replay(let replayIntent):
            guard replay != nil else { return .none }
            timeEntryNotice = nil
            return .replay(replayIntent)
        case .timeEntry(let key): return applyTimeEntry(key)
        case .toggleRecording: return .toggleRecording
        case .cycleTrace:
            traceMode = traceMode.next
            return .traceChanged(traceMode)
        case .marker(let intent):
            return mode.hasMarkers ? .marker(intent) : .none
        case .toggleChannelGrid: showsChannelGrid = !showsChannelGrid && bandPlan != nil
        case .cycleMeasurement:
            // the measurements read the plot's trace: from another view, e shows the plot
            if !mode.hasMarkers { switchMode(to: .plot) }
            measurement.cycle()
            drawer.keepFocus(among: drawerFields)
            return .measurementChanged
        case .storeReference: return .storeReference
        case .clearReference:
            setReference(nil)
            return .referenceDropped
        }
        return .none
    }

    /// Takes the zero-span trace the analyzer sent last, unless the view is
    /// held (space); the first after entering the view fits the dB window.
    /// Returns whether a trace came.
    @discardableResult
    public func takeZeroSpan(from mailbox: ZeroSpanMailbox) -> Bool {
        guard !plot.isPaused, zeroSpan.take(from: mailbox) else { return false }
        if zeroSpan.tracesToFit > 0 {
            let first = zeroSpan.tracesToFit == ZeroSpanModel.fittedTraces
            if autoscaleZeroSpan(tolerance: !first) || !first { zeroSpan.tracesToFit -= 1 }
        }
        return true
    }

    /// `a` in zero span, and the first traces after entering it: the dB window around the trace
    /// (`SpectrumPlotModel.zeroSpanWindow`: a flat trace in the middle). False without a trace to fit.
    @discardableResult
    private func autoscaleZeroSpan(tolerance: Bool = false) -> Bool {
        guard let train = zeroSpan.train, let peak = zeroSpan.levels.lazy.filter({ $0.isFinite }).max(),
              let window = SpectrumPlotModel.zeroSpanWindow(floorDB: train.floorDB, peakDB: Double(peak)) else { return false }
        plot.show(window: window, tolerance: tolerance)
        return true
    }

    /// The longest "go to" text accepted: h:mm:ss.ss and a little more.
    static let timeEntryLimit = 16

    private func applyTimeEntry(_ key: TimeEntryIntent) -> AnalyzerEffect {
        guard replay != nil else { return .none }
        switch key {
        case .begin:
            timeEntry = ""
            timeEntryNotice = nil
        case .type(let character):
            guard var text = timeEntry, text.count < Self.timeEntryLimit else { return .none }
            text.append(character)
            timeEntry = text
        case .erase:
            guard var text = timeEntry, !text.isEmpty else { return .none }
            text.removeLast()
            timeEntry = text
        case .cancel:
            timeEntry = nil
        case .commit:
            guard let text = timeEntry else { return .none }
            timeEntry = nil
            guard let seconds = ReplayState.parseTime(text) else {
                timeEntryNotice = "go to \"\(text)\": expected seconds, m:ss or h:mm:ss"
                return .none
            }
            timeEntryNotice = nil
            return .replay(.seek(toOffset: seconds))
        }
        return .none
    }

    private func switchMode(to wanted: AnalyzerMode) {
        if wanted.measuresZeroSpan != mode.measuresZeroSpan { zeroSpan.forgetTrace() }
        mode = wanted
        drawer.keepFocus(among: drawerFields)
    }

    private func applyDrawer(_ key: DrawerIntent) -> AnalyzerEffect {
        switch key {
        case .focus(let steps): drawer.moveFocus(by: steps, among: drawerFields)
        case .select(let field): drawer.select(field)
        case .edit where drawer.focus.isChoice: return adjust(drawer.focus, steps: 1)
        case .edit: drawer.beginEdit()
        case .type(let character): drawer.type(character)
        case .erase: drawer.erase()
        case .cancel: drawer.cancel()
        case .adjust(let steps, let large): return adjust(drawer.focus, steps: steps * (large ? 10 : 1))
        case .commit where drawer.focus.isChoice: return adjust(drawer.focus, steps: 1)
        case .commit:
            let field = drawer.focus
            guard let value = drawer.takeTypedValue() else { return .none }
            notice = nil
            return set(field, to: value)
        }
        return .none
    }

    /// Sets a field from a typed value in its unit.
    private func set(_ field: DrawerField, to value: Double) -> AnalyzerEffect {
        switch field {
        case .rangeStart, .rangeStop: setThumb(field, hz: value * 1e6)
        case .displaySpan:
            guard Self.displaySpanLimits.contains(value) else {
                notice = "dB span: 1 to 200"
                return .none
            }
            autoLevels = false
            plot.setDisplaySpan(value)
        case .autoLevels, .detector, .trace: break
        case .period:
            let periods = WaterfallModel.periods
            let nearest = periods.indices.min { abs(periods[$0] - value) < abs(periods[$1] - value) } ?? 0
            waterfall.stepPeriod(by: nearest - waterfall.periodIndex)
        case .persistence: persistence.setPersistence(seconds: value)
        case .bandStart, .bandStop: setMeterEdge(field, hz: value * 1e6)
        case .channelWidth, .channelSpacing: return setChannel(field, hz: value * 1e3)
        case .zeroSpanRBW: notice = zeroSpan.setRBW(value * 1e3)
        case .zeroSpanSweep: notice = zeroSpan.setSweep(value * 1e-3)
        case .triggerLevel: notice = zeroSpan.setTriggerLevel(value)
        case .triggerEdge: break
        }
        return .none
    }

    /// Nudges a field: frequencies by 1 % of the span in 10 kHz steps, the dB
    /// span by 1 dB, the period and the persistence time through their lists.
    @discardableResult
    private func adjust(_ field: DrawerField, steps: Int) -> AnalyzerEffect {
        switch field {
        case .rangeStart, .rangeStop:
            let step = Self.frequencyStep(span: plot.visibleBand.spanHz)
            setThumb(field, hz: value(of: field) * 1e6 + Double(steps) * step)
        case .displaySpan:
            let span = min(max(plot.displaySpanDB + Double(steps), Self.displaySpanLimits.lowerBound),
                           Self.displaySpanLimits.upperBound)
            autoLevels = false
            plot.setDisplaySpan(span)
        case .autoLevels:
            autoLevels.toggle()
            if autoLevels { return .autoscale }
        case .detector:
            waterfallDetector = waterfallDetector == .peak ? .mean : .peak
            waterfall.history.combineByMean = waterfallDetector == .mean
        case .period: waterfall.stepPeriod(by: steps)
        case .persistence: persistence.stepPersistence(by: steps)
        case .bandStart, .bandStop:
            let step = Self.frequencyStep(span: meterBand.spanHz)
            setMeterEdge(field, hz: value(of: field) * 1e6 + Double(steps) * step)
        case .trace:
            // forward through the modes as t does; backward the other way round
            traceMode = steps >= 0 ? traceMode.next : traceMode.previous
            return .traceChanged(traceMode)
        case .channelWidth, .channelSpacing:
            // through 1-2-5 steps of the value shown
            var hz = value(of: field) * 1e3
            for _ in 0..<abs(steps) { hz = BenchMeasurementModel.oneTwoFive(hz, up: steps > 0) }
            return setChannel(field, hz: hz)
        case .zeroSpanRBW: zeroSpan.stepRBW(by: steps)
        case .zeroSpanSweep: zeroSpan.stepSweep(by: steps)
        case .triggerLevel:
            // 1 dB a step from the level set, or from the middle of the dB window when free running
            let level = zeroSpan.trigger?.levelDB ?? ((plot.bottomLevelDB + plot.referenceLevelDB) / 2).rounded()
            notice = zeroSpan.setTriggerLevel(zeroSpan.trigger == nil ? level : level + Double(steps))
        case .triggerEdge:
            zeroSpan.cycleTriggerEdge(backward: steps < 0, bottomDB: plot.bottomLevelDB, topDB: plot.referenceLevelDB)
        }
        return .none
    }

    /// Sets ACPR's channel width or spacing [Hz]; a complaint in the drawer when out of the span.
    @discardableResult
    private func setChannel(_ field: DrawerField, hz: Double) -> AnalyzerEffect {
        guard hz.isFinite, hz >= 1, hz <= plot.visibleBand.spanHz else {
            notice = "channel: 1 Hz to the span"
            return .none
        }
        notice = nil
        measurement.setChannel(widthHz: field == .channelWidth ? hz : nil, spacingHz: field == .channelSpacing ? hz : nil)
        return .measurementChanged
    }

    /// 1 % of `span`, a whole number of 10 kHz steps (at least one) [Hz].
    static func frequencyStep(span: Double) -> Double {
        max(1, (span / 100 / frequencyStepHz).rounded()) * frequencyStepHz
    }

    static func snapped(_ hz: Double) -> Double { (hz / frequencyStepHz).rounded() * frequencyStepHz }

    /// Moves one edge of the visible band, keeping the other.
    private func setThumb(_ field: DrawerField, hz: Double) {
        guard hz.isFinite else { return }
        let edge = Self.snapped(hz)
        let band = plot.visibleBand
        let lower = field == .rangeStart ? edge : band.lowerHz
        let upper = field == .rangeStop ? edge : band.upperHz
        guard let wanted = FrequencyRange(lowerHz: lower, upperHz: upper) else {
            notice = "start must be below stop"
            return
        }
        notice = nil
        plot.setBand(wanted)
    }

    /// Moves one edge of the meter's band (which starts as the visible band).
    private func setMeterEdge(_ field: DrawerField, hz: Double) {
        guard hz.isFinite else { return }
        let edge = Self.snapped(hz)
        let band = meterBand
        let lower = field == .bandStart ? edge : band.lowerHz
        let upper = field == .bandStop ? edge : band.upperHz
        guard let wanted = FrequencyRange(lowerHz: lower, upperHz: upper) else {
            notice = "band start must be below stop"
            return
        }
        guard wanted.lowerHz >= plot.deviceLimits.lowerHz, wanted.upperHz <= plot.deviceLimits.upperHz else {
            notice = "band outside the device's \(plot.deviceLimits)"
            return
        }
        notice = nil
        meter.setBand(wanted)
    }
}
