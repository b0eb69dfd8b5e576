import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// Keys and SGR mouse reports, from byte literals, through the key map and
/// the gesture tracker to intents.
@Suite struct InteractionTests {
    func event(_ text: String) -> InputEvent? {
        guard case .event(let event, _) = InputParser.parse(Array(text.utf8)) else { return nil }
        return event
    }

    func key(_ text: String, _ model: AnalyzerModel) -> AnalyzerIntent? {
        event(text).flatMap { AnalyzerKeyMap.intent(for: $0, model: model) }
    }

    /// A model and the geometry of its screen drawn at 80×24.
    func drawn(_ mode: AnalyzerMode, drawer: Bool = false) -> (AnalyzerModel, ScreenGeometry) {
        let model = Scene.model(width: 80, height: 24, mode: mode)
        if drawer { model.apply(.toggleDrawer, now: Scene.now) }
        let screen = AnalyzerScreen()
        var buffer = Buffer(width: 80, height: 24)
        screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
        return (model, screen.geometry)
    }

    @Test func keysForViewsTimeAndDrawer() {
        let (model, _) = drawn(.waterfall)
        #expect(key("1", model) == .show(.plot))
        #expect(key("2", model) == .show(.waterfall))
        #expect(key("3", model) == .show(.meter))
        #expect(key("\t", model) == .nextMode)
        #expect(key("\u{1B}[5~", model) == .scrollTime(seconds: 15))   // PgUp: half the 30 s period back
        #expect(key("\u{1B}[6~", model) == .scrollTime(seconds: -15))
        #expect(key("\u{1B}[H", model) == .scrollToNow)                 // Home
        #expect(key("\u{1B}[F", model) == .scrollToNow)                 // End
        #expect(key("[", model) == .stepPeriod(-1))
        #expect(key("]", model) == .stepPeriod(1))
        #expect(key("d", model) == .toggleDrawer)
        #expect(key("?", model) == .toggleHelp)
        #expect(key("r", model) == .toggleRecording)
        #expect(key(" ", model) == .plot(.togglePause))
        #expect(key("q", model) == .plot(.quit))
        let (plot, _) = drawn(.plot)
        #expect(key("\u{1B}[5~", plot) == .shiftLevels(decibels: 10))  // PgUp in the plot: dB offset
    }

    @Test func drawerKeysEditWhileOpen() {
        let (model, _) = drawn(.plot, drawer: true)
        #expect(key("\u{1B}[A", model) == .drawer(.focus(-1)))
        #expect(key("\u{1B}[B", model) == .drawer(.focus(1)))
        #expect(key("\u{1B}[1;2C", model) == .drawer(.adjust(steps: 1, large: true)))  // shift+→
        // not typing: digits and - keep their meaning, Enter starts typing, Esc closes
        #expect(key("2", model) == .show(.waterfall))
        #expect(key("-", model) == .plot(.zoom(factor: 2)))
        #expect(key("\u{7F}", model) == nil)
        #expect(key("\r", model) == .drawer(.edit))
        // typing: digits, - and Backspace edit, Enter applies, q still quits
        model.apply(.drawer(.edit), now: Scene.now)
        #expect(key("7", model) == .drawer(.type("7")))
        #expect(key("-", model) == .drawer(.type("-")))
        #expect(key("\r", model) == .drawer(.commit))
        #expect(key("\u{7F}", model) == .drawer(.erase))
        #expect(key("q", model) == .plot(.quit))
        // one Esc drops the typed text and closes the drawer
        model.apply(.drawer(.type("7")), now: Scene.now)
        model.apply(.drawer(.cancel), now: Scene.now)
        #expect(!model.drawer.isOpen)
        #expect(model.drawer.editText == nil)
    }

    @Test func wheelZoomsAroundThePointerInThePlot() throws {
        let (_, geometry) = drawn(.plot)
        var gestures = MouseGestures()
        let x = geometry.data.x + geometry.data.width / 4
        let y = geometry.data.y + 2
        // ESC [ < 64 ; x ; y M: wheel up at 1-based (x+1, y+1)
        let wheel = try #require(event("\u{1B}[<64;\(x + 1);\(y + 1)M"))
        guard case .mouse(let mouse) = wheel else { Issue.record("not a mouse event"); return }
        let intents = gestures.intents(for: mouse, geometry: geometry)
        #expect(intents == [.zoom(factor: 0.8, anchorHz: geometry.hz(atColumn: x))])
        let anchor = geometry.hz(atColumn: x)
        #expect(anchor > 104e6 && anchor < 106e6)
        // ctrl+wheel (64 + 16) changes gain
        guard case .mouse(let ctrl)? = event("\u{1B}[<80;\(x + 1);\(y + 1)M") else { Issue.record("no event"); return }
        #expect(gestures.intents(for: ctrl, geometry: geometry) == [.plot(.increaseDisplayGain)])
    }

    @Test func dragPansAndMovesLevelsClickPauses() {
        let (_, geometry) = drawn(.plot)
        var gestures = MouseGestures()
        let x = geometry.data.x + 10, y = geometry.data.y + 5
        func send(_ text: String) -> [AnalyzerIntent] {
            guard case .mouse(let mouse)? = event(text) else { return [] }
            return gestures.intents(for: mouse, geometry: geometry)
        }
        #expect(send("\u{1B}[<0;\(x + 1);\(y + 1)M").isEmpty)
        // drag 4 cells right and 2 down (button 0 + motion 32)
        let dragged = send("\u{1B}[<32;\(x + 5);\(y + 3)M")
        #expect(dragged == [.plot(.pan(fractionOfSpan: -4 / Double(geometry.data.width))),
                            .shiftLevels(decibels: 2 * geometry.decibelsPerCell)])
        #expect(send("\u{1B}[<0;\(x + 5);\(y + 3)m").isEmpty)          // release after a drag: no pause
        #expect(send("\u{1B}[<0;\(x + 1);\(y + 1)M").isEmpty)
        #expect(send("\u{1B}[<0;\(x + 1);\(y + 1)m") == [.plot(.togglePause)])  // a click
    }

    @Test func waterfallWheelScrollsTimeCtrlWheelChangesPeriod() {
        let (_, geometry) = drawn(.waterfall)
        var gestures = MouseGestures()
        let x = geometry.data.x + 3, y = geometry.data.y + 3
        func send(_ text: String) -> [AnalyzerIntent] {
            guard case .mouse(let mouse)? = event(text) else { return [] }
            return gestures.intents(for: mouse, geometry: geometry)
        }
        #expect(send("\u{1B}[<64;\(x + 1);\(y + 1)M") == [.scrollTime(seconds: 3)])
        #expect(send("\u{1B}[<65;\(x + 1);\(y + 1)M") == [.scrollTime(seconds: -3)])
        #expect(send("\u{1B}[<80;\(x + 1);\(y + 1)M") == [.stepPeriod(1)])
        // drag up one cell: back in time by a cell's seconds
        _ = send("\u{1B}[<0;\(x + 1);\(y + 1)M")
        #expect(send("\u{1B}[<32;\(x + 1);\(y)M") == [.scrollTime(seconds: geometry.secondsPerCell)])
    }

    @Test func handleOpensTheDrawerAndTheSliderMovesAThumb() throws {
        let (model, closed) = drawn(.plot)
        let handle = try #require(closed.handle)
        var gestures = MouseGestures()
        guard case .mouse(let press)? = event("\u{1B}[<0;\(handle.x + 1);\(handle.y + 1)M") else {
            Issue.record("no event")
            return
        }
        #expect(gestures.intents(for: press, geometry: closed) == [.toggleDrawer])
        model.apply(.toggleDrawer, now: Scene.now)
        let screen = AnalyzerScreen()
        var buffer = Buffer(width: 80, height: 24)
        screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
        let drawer = try #require(screen.geometry.drawer)
        let slider = try #require(drawer.slider)
        let column = slider.x + slider.width / 2
        guard case .mouse(let onSlider)? = event("\u{1B}[<0;\(column + 1);\(slider.y + 1)M") else {
            Issue.record("no event")
            return
        }
        // the slider covers a few times the visible span, not the device's 0–6 GHz
        let range = model.sliderRange
        #expect(range.spanHz >= 4 * model.plot.visibleBand.spanHz)
        #expect(range.spanHz <= 10 * model.plot.visibleBand.spanHz)
        #expect(range.lowerHz <= model.plot.visibleBand.lowerHz && range.upperHz >= model.plot.visibleBand.upperHz)
        let start = try #require(drawer.sliderColumn(hz: model.plot.visibleBand.lowerHz, limits: range))
        let stop = try #require(drawer.sliderColumn(hz: model.plot.visibleBand.upperHz, limits: range))
        #expect(stop - start >= slider.width / 5)
        let intents = gestures.intents(for: onSlider, geometry: screen.geometry)
        let target = try #require(drawer.sliderHz(x: column, limits: range))
        let thumb: DrawerField = abs(target - model.plot.visibleBand.upperHz) < abs(target - model.plot.visibleBand.lowerHz)
            ? .rangeStop : .rangeStart
        #expect(intents.first == .drawer(.select(thumb)))
        for intent in intents { model.apply(intent, now: Scene.now) }
        let moved = thumb == .rangeStop ? model.plot.visibleBand.upperHz : model.plot.visibleBand.lowerHz
        #expect(abs(moved - target) < range.spanHz / Double(slider.width))
        #expect(model.plot.visibleBand.upperHz.truncatingRemainder(dividingBy: 10e3) == 0)
    }
}
