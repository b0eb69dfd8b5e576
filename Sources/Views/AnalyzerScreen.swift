import DSP
import Signals
import Terminal
import ViewModels

/// Composes the analyzer screen: status line, the current view (plot,
/// waterfall, meter or persistence), the key help, the drawer and its handle, and the `?`
/// overlay. Remembers the geometry it drew for the mouse.
///
/// The screen is cleared and every part redrawn when the layout changes
/// (size, view, drawer, help); otherwise each part redraws only what changed,
/// so a steady stream of frames builds no strings and allocates nothing.
public final class AnalyzerScreen {
    static let helpStyle = CellStyle(foreground: .rgb(140, 140, 140))
    static let handleStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(150, 150, 150))
    static let promptStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(255, 214, 10), attributes: [.bold])
    static let promptNoticeStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(170, 30, 30))

    private let plotView = SpectrumPlotView()
    private let waterfallView = WaterfallView()
    private let meterView = PowerMeterView()
    private let persistenceView = PersistenceView()
    private let occupancyView = OccupancyView()
    private let zeroSpanView = ZeroSpanView()
    private let drawerView = DrawerView()
    private let statusLine = StatusLine()
    private let bandPlanRow = BandPlanRow()
    private var drawnKey: LayoutKey?
    /// the status line's view facts and what they were built for (built only when that changes)
    private var facts: (key: FactsKey, text: String?)?
    /// what the mouse needs, as last drawn
    public private(set) var geometry = ScreenGeometry()

    public init() {}

    /// Forces a full redraw on the next render.
    public func invalidate() { drawnKey = nil }

    /// The key help row for a view: the view keys, then the view's own (AnalyzerMode.helpKeys).
    static func helpText(_ mode: AnalyzerMode) -> String {
        "\(AnalyzerMode.digitKeys) view  \(mode.helpKeys)"
    }

    /// Draws everything for `model` at `now` [s, the feed's timeline].
    /// - Parameter reference: a stored trace to draw dimmed behind the plot's (on the frame's bins)
    public func render(model: AnalyzerModel, frame: SpectrumFrame?, reference: SpectrumFrame? = nil,
                       status: SpectrumStatus, now: Double, into buffer: inout Buffer) {
        let layout = ScreenLayout(width: buffer.width, height: buffer.height, drawerOpen: model.drawer.isOpen)
        let prompt = Self.prompt(model)
        let measuring = MeasurementOverlay.isShown(model)
        let markerPane = model.mode.hasMarkers && MarkerOverlay.wantsPane(model.markers, measuring: measuring, area: layout.main)
        // e's measurement on a narrow screen: a strip carved from the bottom of the view
        let (viewArea, strip) = MeasurementOverlay.stripSplit(layout.main, model: model, pane: markerPane)
        // the band plan's row under the frequency axis, carved from the bottom of the view
        let (main, planRow) = Self.bandPlanSplit(viewArea, model: model)
        let key = LayoutKey(layout: layout, mode: model.mode, help: model.showsHelp, prompt: prompt != nil,
                            markerPane: markerPane, bandPlanRow: planRow != nil, measurementStrip: strip != nil)
        if key != drawnKey {
            buffer.clear()
            plotView.invalidate()
            waterfallView.invalidate()
            persistenceView.invalidate()
            occupancyView.invalidate()
            zeroSpanView.invalidate()
            statusLine.invalidate()
            bandPlanRow.invalidate()
            _ = buffer.put(Self.helpText(model.mode), x: layout.help.x + 1, y: layout.help.y, style: Self.helpStyle)
            drawnKey = key
        }
        if let prompt {
            // the replay's "go to" line: a line of its own at the bottom, in every view
            let y = layout.help.isEmpty ? buffer.height - 1 : layout.help.y
            let style = model.timeEntry == nil ? Self.promptNoticeStyle : Self.promptStyle
            buffer.fill(Rect(x: 0, y: y, width: buffer.width, height: 1), with: Cell(" ", style: style))
            _ = buffer.put(prompt, x: 1, y: y, style: style)
        }
        statusLine.draw(.init(status: status, band: model.plot.visibleBand, paused: model.isPaused,
                              viewFacts: cachedViewFacts(model), row: layout.status,
                              factsReplaceSpan: model.mode.measuresZeroSpan), into: &buffer)
        let plot = model.plot
        let logFrequency = plot.frequencyScale.isLogarithmic
        var geometry = ScreenGeometry(mode: model.mode, band: plot.visibleBand, logFrequency: logFrequency,
                                      periodSeconds: model.waterfall.periodSeconds,
                                      sliderRange: model.sliderRange, handle: layout.handle)
        // the view dispatch: the one place a view draws itself (and, in `modeFacts`, states its
        // facts); everything else about a view is a property of the view list, AnalyzerMode
        switch model.mode {
        case .plot:
            let parts = markerPane ? MarkerOverlay.split(main) : (plot: main, pane: main)
            plotView.render(model: plot, frame: frame, reference: reference, unit: status.powerUnit,
                            limitLine: model.limitLine, in: parts.plot, into: &buffer)
            geometry.data = SpectrumPlotView.dataRect(in: parts.plot)
            if let planRow, let plan = model.bandPlan {
                bandPlanRow.draw(plan, band: plot.visibleBand, logFrequency: logFrequency, data: geometry.data,
                                 rows: planRow, into: &buffer)
                if model.showsChannelGrid { bandPlanRow.drawGrid(in: geometry.data, into: &buffer) }
            }
            MeasurementOverlay.drawMarks(model.measurement, frame: frame, plot: plot, data: geometry.data, into: &buffer)
            MarkerOverlay.draw(model.markers, frame: frame, plot: plot, unit: status.powerUnit, data: geometry.data,
                               pane: markerPane ? parts.pane : nil, bandPlan: model.bandPlan,
                               measurement: measuring ? model.measurement : nil, into: &buffer)
            if let strip { MeasurementOverlay.drawStrip(model.measurement, unit: status.powerUnit, in: strip, into: &buffer) }
            geometry.decibelsPerCell = plot.displaySpanDB / Double(max(geometry.data.height, 1))
        case .waterfall:
            waterfallView.render(model: model.waterfall, band: plot.visibleBand, logFrequency: logFrequency, bottomDB: plot.bottomLevelDB,
                                 topDB: plot.referenceLevelDB, now: now, detector: model.waterfallDetector,
                                 unit: status.powerUnit, eventTimes: model.events.startTimes, in: main,
                                 into: &buffer)
            geometry.data = WaterfallView.dataRect(in: main)
            drawBandPlan(model, data: geometry.data, row: planRow, into: &buffer)
            geometry.secondsPerCell = 2 * model.waterfall.secondsPerPixel(pixelRows: geometry.data.height * 2)
        case .meter:
            meterView.render(meter: model.meter, band: model.meterBand, unit: status.powerUnit,
                             trace: model.traceMode == .live ? nil : "\(model.traceMode)", in: layout.main, into: &buffer)
            geometry.data = PowerMeterView.dataRect(in: layout.main)
        case .persistence:
            persistenceView.render(persistence: model.persistence, plot: plot, unit: status.powerUnit, in: main,
                                   into: &buffer)
            geometry.data = PersistenceView.dataRect(in: main)
            drawBandPlan(model, data: geometry.data, row: planRow, into: &buffer)
            geometry.decibelsPerCell = plot.displaySpanDB / Double(max(geometry.data.height, 1))
        case .occupancy:
            occupancyView.render(occupancy: model.occupancy, band: plot.visibleBand, logFrequency: logFrequency, in: main,
                                 into: &buffer)
            geometry.data = OccupancyView.dataRect(in: main)
            drawBandPlan(model, data: geometry.data, row: planRow, into: &buffer)
        case .zerospan:
            zeroSpanView.render(zeroSpan: model.zeroSpan, plot: plot, unit: status.powerUnit, in: layout.main,
                                into: &buffer)
            geometry.data = ZeroSpanView.dataRect(in: layout.main)
            geometry.decibelsPerCell = plot.displaySpanDB / Double(max(geometry.data.height, 1))
        }
        if !layout.drawer.isEmpty {
            let drawerLayout = DrawerLayout(rect: layout.drawer, fields: model.drawerFields)
            drawerView.render(model: model, layout: drawerLayout, status: status, into: &buffer)
            geometry.drawer = drawerLayout
        }
        if let handle = layout.handle {
            buffer.set(x: handle.x, y: handle.y, Cell(model.drawer.isOpen ? "▶" : "◀", style: Self.handleStyle))
        }
        if model.showsHelp { HelpOverlay.draw(in: layout.main, into: &buffer) }
        self.geometry = geometry
    }

    /// The view's area and, with a band plan in a view with a frequency axis,
    /// the rows under that axis for the plan, one per lane (nil when there is
    /// no plan, or no room for the axes and the rows).
    static func bandPlanSplit(_ area: Rect, model: AnalyzerModel) -> (main: Rect, row: Rect?) {
        guard let plan = model.bandPlan, model.mode.hasFrequencyAxis else { return (area, nil) }
        let rows = plan.laneCount
        let above = Rect(x: area.x, y: area.y, width: area.width, height: area.height - rows)
        guard PlotLayout(area: above).showsAxes else { return (area, nil) }
        return (above, Rect(x: area.x, y: above.maxY, width: area.width, height: rows))
    }

    /// The band plan's row under a view drawn in `data` (the waterfall's and the persistence view's; no grid there).
    private func drawBandPlan(_ model: AnalyzerModel, data: Rect, row: Rect?, into buffer: inout Buffer) {
        guard let row, let plan = model.bandPlan else { return }
        bandPlanRow.draw(plan, band: model.plot.visibleBand, logFrequency: model.plot.frequencyScale.isLogarithmic,
                         data: data, rows: row, into: &buffer)
    }

    /// The replay's prompt line: the time being typed, or why the last one
    /// was refused; nil when neither.
    static func prompt(_ model: AnalyzerModel) -> String? {
        guard model.replay != nil else { return nil }
        if let entry = model.timeEntry {
            return "go to: \(entry)▏   seconds, m:ss or h:mm:ss · Enter goes · Esc cancels"
        }
        return model.timeEntryNotice
    }

    private func cachedViewFacts(_ model: AnalyzerModel) -> String? {
        let key = FactsKey(mode: model.mode, periodIndex: model.waterfall.periodIndex,
                           persistenceIndex: model.persistence.timeIndex,
                           offset: model.waterfall.offsetSeconds, meterBand: model.meterBand, trace: model.traceMode,
                           reference: model.reference == nil ? 0 : (model.subtractsReference ? 2 : 1),
                           events: model.events.summary, zeroSpan: Self.zeroSpanKey(model))
        if let facts, facts.key == key { return facts.text }
        let text = viewFacts(model)
        facts = (key, text)
        return text
    }

    /// What the status line says about the current view.
    private func viewFacts(_ model: AnalyzerModel) -> String? {
        let referenceNote = model.reference == nil ? nil : (model.subtractsReference ? "live − reference" : "reference")
        let facts = modeFacts(model, referenceNote: referenceNote)
        guard let events = model.events.summary else { return facts }
        return facts.map { $0 + " │ " + events } ?? events
    }

    /// The current view's own facts for the status line, beside its drawing in `render`.
    private func modeFacts(_ model: AnalyzerModel, referenceNote: String?) -> String? {
        switch model.mode {
        case .plot:
            let notes = [model.traceMode == .live ? nil : "trace \(model.traceMode)", referenceNote].compactMap { $0 }
            return notes.isEmpty ? nil : notes.joined(separator: " │ ")
        case .waterfall:
            let waterfall = model.waterfall
            let period = DrawerView.text(.period, model)
            let offset = waterfall.offsetSeconds
            let when = offset > 0 ? "period \(period) │ \(WaterfallView.label(secondsAgo: offset)) ago" : "period \(period) │ live"
            return model.subtractsReference ? when + " │ live − reference" : when
        case .meter:
            let trace = model.traceMode == .live ? "" : " │ trace \(model.traceMode)"
            // with a band plan, the allocation the measured band belongs to (as `meter --band-plan` prints it)
            let allocation = model.bandPlan?.label(for: model.meterBand).map { " in \($0)" } ?? ""
            return "meter band \(model.meterBand)" + allocation + trace
        case .persistence:
            let note = referenceNote == "live − reference" ? " │ live − reference" : ""
            return "persistence \(DrawerView.text(.persistence, model)) │ colour: % of time at each level" + note
        case .occupancy:
            return "occupancy since tuned │ threshold noise floor + "
                + "\(FrequencyFormat.trimmed(OccupancyTraceModel.marginDB, maxFractionDigits: 1)) dB"
        case .zerospan:
            return Self.zeroSpanFacts(model.zeroSpan, centreHz: model.plot.visibleBand.centerHz)
        }
    }

    /// "zero span at 1.03 GHz │ RBW 1 MHz │ sweep 10 ms │ trigger -40 dB ↑": what is measured, as the
    /// trace was made (the RBW the analyzer could do) or, before one came, as asked.
    static func zeroSpanFacts(_ zeroSpan: ZeroSpanModel, centreHz: Double) -> String {
        let info = zeroSpan.info
        let rbw = info?.rbwHz ?? zeroSpan.rbwHz
        let sweep = info.map { $0.sweepSeconds(points: max(zeroSpan.levels.count, 1)) } ?? zeroSpan.sweepSeconds
        let trigger = zeroSpan.trigger.map {
            "trigger \(FrequencyFormat.trimmed($0.levelDB, maxFractionDigits: 1)) dB \($0.slope == .rising ? "↑" : "↓")"
        } ?? "free run"
        return "zero span at \(FrequencyFormat.label(info?.frequencyHz ?? centreHz, maxFractionDigits: 6)) │ "
            + "RBW \(FrequencyFormat.label(rbw)) │ sweep \(TimeFormat.label(sweep)) │ \(trigger)"
    }

    /// what the zero-span facts depend on
    static func zeroSpanKey(_ model: AnalyzerModel) -> ZeroSpanFactsKey {
        let zeroSpan = model.zeroSpan
        return ZeroSpanFactsKey(rbwHz: zeroSpan.rbwHz, sweepSeconds: zeroSpan.sweepSeconds, trigger: zeroSpan.trigger,
                                rbwMeasuredHz: zeroSpan.info?.rbwHz, frequencyHz: zeroSpan.info?.frequencyHz,
                                pointSeconds: zeroSpan.info?.pointSeconds, points: zeroSpan.levels.count,
                                centreHz: model.plot.visibleBand.centerHz)
    }
}

private struct FactsKey: Equatable {
    var mode: AnalyzerMode
    var periodIndex: Int
    var persistenceIndex: Int
    var offset: Double
    var meterBand: FrequencyRange
    var trace: TraceMode
    /// 0 none, 1 shown, 2 subtracted
    var reference: Int
    var events: String?
    var zeroSpan: ZeroSpanFactsKey
}

struct ZeroSpanFactsKey: Equatable {
    var rbwHz: Double
    var sweepSeconds: Double
    var trigger: ZeroSpanTrigger?
    /// the trace's facts, less what changes every trace
    var rbwMeasuredHz: Double?
    var frequencyHz: Double?
    var pointSeconds: Double?
    var points: Int
    var centreHz: Double
}

private struct LayoutKey: Equatable {
    var layout: ScreenLayout
    var mode: AnalyzerMode
    var help: Bool
    var prompt: Bool
    /// the marker table has a pane beside the plot
    var markerPane: Bool
    /// a row under the frequency axis holds the band plan
    var bandPlanRow: Bool
    /// e's measurement has a strip under the plot
    var measurementStrip: Bool
}
