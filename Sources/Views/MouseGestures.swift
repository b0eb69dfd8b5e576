import Signals
import Terminal
import ViewModels

/// What the mouse needs to know about the screen last drawn: where the data
/// is, what it shows, and where the drawer and its handle are.
public struct ScreenGeometry {
    var mode: AnalyzerMode = .plot
    /// braille trace, waterfall image or meter
    var data = Rect(x: 0, y: 0, width: 0, height: 0)
    var band = FrequencyRange(lowerHz: 0, upperHz: 1)!
    /// the frequency axis is logarithmic (`SpectrumPlotModel.frequencyScale`)
    var logFrequency = false
    /// plot, persistence: dB per cell row
    var decibelsPerCell = 1.0
    /// waterfall: seconds per cell row
    var secondsPerCell = 1.0
    /// waterfall: the period, for wheel steps [s]
    var periodSeconds = 30.0
    var drawer: DrawerLayout?
    /// the band the drawer slider covers (AnalyzerModel.sliderRange)
    var sliderRange = FrequencyRange(lowerHz: 0, upperHz: 1)!
    var handle: (x: Int, y: Int)?

    /// The frequency under column `x` of the data rect [Hz].
    func hz(atColumn x: Int) -> Double {
        FrequencyScale(band: band, logarithmic: logFrequency).centerHz(ofColumn: x - data.x, of: max(data.width, 1))
    }
}

/// Turns SGR mouse reports into intents, by what the view's axes mean
/// (AnalyzerMode's `hasFrequencyAxis`, `verticalAxis`, `clickPauses`).
/// Across frequency, horizontal drag pans and the wheel zooms around the
/// pointer; over levels (plot, persistence) vertical drag moves the dB window
/// and ctrl/shift+wheel changes gain; over time (waterfall) vertical drag and
/// the wheel scroll time, ctrl+wheel changes the period, shift+wheel zooms; a
/// click (press and release without moving) pauses or resumes where the view
/// says so; the handle opens and closes the drawer; in the drawer a click
/// picks a field and the slider's thumbs follow the pointer.
public struct MouseGestures {
    /// zoom per wheel notch (in; out is the inverse)
    static let wheelZoom = 0.8
    /// waterfall: wheel scrolls this fraction of the period per notch
    static let wheelTimeStep = 0.1

    private var pressed: (x: Int, y: Int)?
    private var last: (x: Int, y: Int) = (0, 0)
    private var moved = false
    private var pressedInData = false
    private var draggedThumb: DrawerField?

    public init() {}

    public mutating func intents(for event: MouseEvent, geometry: ScreenGeometry) -> [AnalyzerIntent] {
        let inData = geometry.data.contains(x: event.x, y: event.y)
        switch event.action {
        case .press(.left):
            pressed = (event.x, event.y)
            last = (event.x, event.y)
            moved = false
            pressedInData = inData
            draggedThumb = nil
            if let handle = geometry.handle, handle.x == event.x, abs(handle.y - event.y) <= 1 {
                pressed = nil
                return [.toggleDrawer]
            }
            if let drawer = geometry.drawer, drawer.rect.contains(x: event.x, y: event.y) {
                pressedInData = false
                return drawerPress(event, drawer: drawer, geometry: geometry)
            }
            return []
        case .drag(.left):
            guard pressed != nil else { return [] }
            let dx = event.x - last.x, dy = event.y - last.y
            last = (event.x, event.y)
            if dx != 0 || dy != 0 { moved = true }
            if let thumb = draggedThumb, let drawer = geometry.drawer,
               let hz = drawer.sliderHz(x: event.x, limits: geometry.sliderRange) {
                return [.setThumb(thumb, hz: hz)]
            }
            guard pressedInData else { return [] }
            var result: [AnalyzerIntent] = []
            if dx != 0, geometry.mode.hasFrequencyAxis, geometry.data.width > 0 {
                // grab and move: dragging right shows lower frequencies
                result.append(.plot(.pan(fractionOfSpan: -Double(dx) / Double(geometry.data.width))))
            }
            if dy != 0 {
                switch geometry.mode.verticalAxis {
                case .level: result.append(.shiftLevels(decibels: Double(dy) * geometry.decibelsPerCell))
                // dragging down pulls newer rows into view: towards now
                case .time: result.append(.scrollTime(seconds: -Double(dy) * geometry.secondsPerCell))
                case .none: break
                }
            }
            return result
        case .release(.left):
            defer {
                pressed = nil
                draggedThumb = nil
            }
            guard pressed != nil, !moved, pressedInData, inData, geometry.mode.clickPauses else { return [] }
            return [.plot(.togglePause)]
        case .scrollUp, .scrollDown:
            guard inData else { return [] }
            return wheel(up: event.action == .scrollUp, modifiers: event.modifiers, x: event.x, geometry: geometry)
        case .scrollLeft:
            return inData && geometry.mode.hasFrequencyAxis ? [.plot(.pan(fractionOfSpan: -0.1))] : []
        case .scrollRight:
            return inData && geometry.mode.hasFrequencyAxis ? [.plot(.pan(fractionOfSpan: 0.1))] : []
        default:
            return []
        }
    }

    private func wheel(up: Bool, modifiers: KeyModifiers, x: Int, geometry: ScreenGeometry) -> [AnalyzerIntent] {
        let zoom = AnalyzerIntent.zoom(factor: up ? Self.wheelZoom : 1 / Self.wheelZoom, anchorHz: geometry.hz(atColumn: x))
        let mode = geometry.mode
        switch mode.verticalAxis {
        case .time:
            if modifiers.contains(.ctrl) { return [.stepPeriod(up ? 1 : -1)] }
            if modifiers.contains(.shift) { return mode.hasFrequencyAxis ? [zoom] : [] }
            // wheel up goes back in time, like scrolling back in a terminal
            let step = Self.wheelTimeStep * geometry.periodSeconds
            return [.scrollTime(seconds: up ? step : -step)]
        case .level where modifiers.contains(.ctrl) || modifiers.contains(.shift):
            return [.plot(up ? .increaseDisplayGain : .decreaseDisplayGain)]
        case .level, .none:
            // without a frequency axis (the meter) there is nothing to zoom
            return mode.hasFrequencyAxis ? [zoom] : []
        }
    }

    private mutating func drawerPress(_ event: MouseEvent, drawer: DrawerLayout,
                                      geometry: ScreenGeometry) -> [AnalyzerIntent] {
        if let slider = drawer.slider, event.y == slider.y,
           let hz = drawer.sliderHz(x: event.x, limits: geometry.sliderRange) {
            // the nearer thumb follows the pointer
            let band = geometry.band
            let thumb: DrawerField = abs(hz - band.lowerHz) <= abs(hz - band.upperHz) ? .rangeStart : .rangeStop
            draggedThumb = thumb
            return [.drawer(.select(thumb)), .setThumb(thumb, hz: hz)]
        }
        if let field = drawer.field(atY: event.y) { return [.drawer(.select(field))] }
        return []
    }
}
