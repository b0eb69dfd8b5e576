import ECG
import Terminal
import Testing
import ViewModels
@testable import Views

@Suite struct ECGReferenceBeatMarkTests {
    @Test func marksSitAboveTheReferenceBeatsOfTheCurrentSweep() throws {
        // 250 Hz, 5 s strip (1250 positions), 6.4 s held: the sweep shows 1.4 s … 6.4 s
        var strip = stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 6.4) { _, _ in 0 }
        let beats = [100, 500, 1000, 1500]           // 0.4 s (overwritten), 2 s, 4 s, 6 s
        strip.referenceBeats = beats
        var buffer = Buffer(width: 80, height: 12)
        ECGStripView().render(model: strip, leads: 0..<1, in: buffer.area, into: &buffer)
        let top = (0..<80).filter { buffer.cell(x: $0, y: 0)?.scalar == "▾" }
        // columns follow the sweep position: trace starts after the calibration pulse
        let traceX = try #require((0..<80).first { buffer.cell(x: $0, y: 0)?.scalar == "I" })
        let traceWidth = 80 - traceX
        let end = try #require(strip.endIndex)
        let shown = beats.filter { $0 >= end - strip.sweepLength + strip.gapLength && $0 < end }
        #expect(shown == [500, 1000, 1500])
        #expect(top == shown.map { traceX + ($0 % strip.sweepLength) * traceWidth / strip.sweepLength }.sorted())
    }

    @Test func annotationsAreWrittenWhereTheyAreInTheCurrentSweep() throws {
        // as above: the sweep shows 1.4 s … 6.4 s of a 5 s strip at 250 Hz
        var strip = stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 6.4) { _, _ in 0 }
        strip.annotations = [ECGStripAnnotation(sample: 200, text: "gone"), ECGStripAnnotation(sample: 750, text: "Lights off"),
                             ECGStripAnnotation(sample: 1400, text: "Arousal with a very long description")]
        var buffer = Buffer(width: 80, height: 12)
        ECGStripView().render(model: strip, leads: 0..<1, in: buffer.area, into: &buffer)
        let top = String((0..<80).map { Character(buffer.cell(x: $0, y: 0)?.scalar ?? " ") })
        let traceX = try #require((0..<80).first { buffer.cell(x: $0, y: 0)?.scalar == "I" })
        let column = { (sample: Int) in traceX + (sample % strip.sweepLength) * (80 - traceX) / strip.sweepLength }
        #expect(!top.contains("gone"), "overwritten by this sweep: \(top)")
        #expect(Array(top)[column(750)...].starts(with: "◆Lights off"), "\(top)")
        // cut at 16 cells
        #expect(Array(top)[column(1400)...].starts(with: "◆Arousal with a "), "\(top)")
        #expect(!top.contains("very long"), "\(top)")
    }

    @Test func noReferenceBeatsNoMarks() {
        let strip = stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 6.4) { _, _ in 0 }
        var buffer = Buffer(width: 80, height: 12)
        ECGStripView().render(model: strip, leads: 0..<1, in: buffer.area, into: &buffer)
        #expect(!buffer.description.contains("▾"))
    }
}

/// A pane that fills its rect with one letter and counts its calls.
private final class LetterPane: SidePane {
    var updates = 0, presentations = 0
    func layout(_ screen: Rect) -> (main: Rect, pane: Rect) {
        (Rect(x: 0, y: 0, width: screen.width, height: screen.height - 3),
         Rect(x: 0, y: screen.height - 3, width: screen.width, height: 3))
    }
    func update(now: Double) { updates += 1 }
    func render(in rect: Rect, into buffer: inout Buffer) { buffer.fill(rect, with: Cell("E")) }
    func presented(at now: Double) { presentations += 1 }
}

@Suite struct SidePaneTests {
    @Test func theHostComposesTheAnalyzerAtTheOriginAndThePaneBesideIt() {
        let pane = LetterPane()
        var host = SidePaneHost(pane: pane)
        let main = host.resize(width: 10, height: 8)
        #expect(main == Rect(x: 0, y: 0, width: 10, height: 5))
        var analyzer = Buffer(width: main.width, height: main.height)
        analyzer.fill(analyzer.area, with: Cell("S"))
        host.update(now: 1)
        let screen = host.compose(analyzer)
        host.presented(at: 1)
        #expect(screen.lines == Array(repeating: "SSSSSSSSSS", count: 5) + Array(repeating: "EEEEEEEEEE", count: 3))
        #expect(pane.updates == 1 && pane.presentations == 1)
    }

    @Test func withoutAPaneTheAnalyzerHasTheWholeScreen() {
        var host = SidePaneHost(pane: nil)
        #expect(host.resize(width: 10, height: 8) == Rect(x: 0, y: 0, width: 10, height: 8))
        var analyzer = Buffer(width: 10, height: 8)
        analyzer.fill(analyzer.area, with: Cell("S"))
        #expect(host.compose(analyzer).lines == analyzer.lines)
    }

    @Test func theECGPaneGoesBelowOnAnOrdinaryTerminalAndRightOnAWideOne() {
        let record = ECGRecord(name: "r", sampleRate: 250, leadNames: ["II"], samples: [[Float](repeating: 0, count: 10)])
        let feed = ECGFeed(source: RecordSource(record: record), sourceName: "r")
        let pane = ECGSidePane(monitor: ECGLiveMonitor(feed: feed, model: ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 5)),
                                                       showsKeys: false))
        let tall = pane.layout(Rect(x: 0, y: 0, width: 160, height: 48))
        #expect(tall.main == Rect(x: 0, y: 0, width: 160, height: 29))
        #expect(tall.pane == Rect(x: 0, y: 29, width: 160, height: 19))
        let wide = pane.layout(Rect(x: 0, y: 0, width: 240, height: 50))
        #expect(wide.main == Rect(x: 0, y: 0, width: 144, height: 50))
        #expect(wide.pane == Rect(x: 144, y: 0, width: 96, height: 50))
        // the pane draws the ECG status line in its rect and nothing outside it
        var buffer = Buffer(width: 160, height: 48)
        pane.update(now: 0)
        pane.render(in: tall.pane, into: &buffer)
        #expect(buffer.lines[29].contains("250 Hz"))
        #expect(buffer.lines[0..<29].allSatisfy { $0.allSatisfy { $0 == " " } })
        #expect(!buffer.lines.joined().contains("space pause"))
    }
}
