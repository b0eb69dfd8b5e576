import DSP
import Foundation
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// Fixed scenes for the analyzer screen: the plot tests' frame (100–120 MHz,
/// carriers at 104 and 110 MHz) and a waterfall history of 40 s with a
/// carrier drifting up from 102 MHz and a one-frame burst at 115 MHz.
enum Scene {
    static let now = 1_000_040.0

    static func model(width: Int, height: Int, mode: AnalyzerMode) -> AnalyzerModel {
        let analyzer = AnalyzerModel(plot: fixedModel(width: width, height: height), mode: mode)
        let history = analyzer.waterfall
        for step in 0..<(40 * 10) {
            let time = now - 40 + Double(step) / 10
            var bins = [Float](repeating: -80, count: 2000)
            let drift = 200 + step / 2          // 102 MHz rising 50 kHz per second
            bins[drift] = -30
            bins[1000] = -20
            if step == 250 { bins[1500] = -10 }  // the burst: one frame at 15 s before now
            history.add(SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: time, powerDB: bins))
        }
        // the persistence: 100 frames at 30/s of a noisy floor, the two carriers, and a burst at 115 MHz in one
        let main = ScreenLayout(width: width, height: height, drawerOpen: false).main
        analyzer.persistence.configure(PersistenceView.geometry(in: main, plot: analyzer.plot))
        var random = SeededRandom(seed: 4)
        for step in 0..<100 {
            var bins = (0..<2000).map { _ in Float(-84 + 8 * Double.random(in: 0..<1, using: &random)) }
            bins[1000] = -20
            bins[400] = -50
            if step == 60 { bins[1500] = -35 }
            analyzer.persistence.add(SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: now - 100.0 / 30 + Double(step) / 30,
                                                   powerDB: bins))
            // the occupancy view counts the same sweeps: the carriers always, the burst once, 102 MHz in every other
            if step.isMultiple(of: 2) { bins[200] = -50 }
            analyzer.occupancy.add(SpectrumFrame(startHz: 100e6, binWidthHz: 10e3,
                                                 timestamp: now - 100.0 / 30 + Double(step) / 30, powerDB: bins))
        }
        analyzer.meter.record(-42.5, at: now - 1)
        analyzer.meter.record(-37.25, at: now)
        // zero span: 1000 points over 10 ms, 50 µs at −20 dB every 2.5 ms from the trigger (point 100) over −80 dB
        let trigger = ZeroSpanTrigger(levelDB: -50)
        analyzer.zeroSpan.setTrigger(trigger)
        let levels: [Float] = (0..<1000).map { k in
            let t = Double(k - 100) * 10e-6
            return t >= 0 && t.truncatingRemainder(dividingBy: 2.5e-3) < 50e-6 ? -20 : -80
        }
        analyzer.zeroSpan.show(levels: levels, info: ZeroSpanTraceInfo(
            frequencyHz: 110e6, rbwHz: 1e6, pointSeconds: 10e-6, sampleSeconds: 1.25e-7, trigger: trigger,
            preTriggerPoints: 100, unit: .dB, number: 1, droppedSamples: 0, source: "RBW filter on I/Q"))
        return analyzer
    }

    static func render(width: Int, height: Int, model: AnalyzerModel, frame: SpectrumFrame? = fixedFrame())
        -> Buffer {
        var buffer = Buffer(width: width, height: height)
        AnalyzerScreen().render(model: model, frame: frame, status: fixedStatus, now: now, into: &buffer)
        return buffer
    }
}

/// Colours, one character per cell after the text: the foreground (and for
/// '▀' the background below it) as a digit 0–9 when it is a PowerColorMap
/// colour (tenths of the map), '.' for any other colour, ' ' for the default.
func colorSection(_ buffer: Buffer) -> String {
    let table = PowerColorMap.table.map { Color.rgb($0.red, $0.green, $0.blue) }
    func symbol(_ color: Color) -> Character {
        if color == .default { return " " }
        guard let index = table.firstIndex(of: color) else { return "." }
        return Character(String(index * 10 / PowerColorMap.tableSize))
    }
    var lines: [String] = ["-- colours (upper / lower half) --"]
    for y in 0..<buffer.height {
        var upper = "", lower = ""
        for x in 0..<buffer.width {
            let cell = buffer.cell(x: x, y: y) ?? .blank
            upper.append(symbol(cell.foreground))
            lower.append(cell.scalar == "▀" ? symbol(cell.background) : " ")
        }
        while upper.last == " " { upper.removeLast() }
        while lower.last == " " { lower.removeLast() }
        lines.append(upper)
        lines.append(lower)
    }
    return lines.joined(separator: "\n") + "\n"
}

/// Golden screens live in Tests/ViewsTests/Golden as text, one file per view
/// and size (found from this file). Set TSCOPE_WRITE_GOLDEN=1 to rewrite them
/// after a deliberate change, and review the diff.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func check(_ buffer: Buffer, name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = buffer.lines.map { line in
            var trimmed = line
            while trimmed.last == " " { trimmed.removeLast() }
            return trimmed
        }.joined(separator: "\n") + "\n" + colorSection(buffer)
        let url = directory.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["TSCOPE_WRITE_GOLDEN"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(text == expected, "\(name):\n\(text)", sourceLocation: sourceLocation)
    }
}

@Suite struct AnalyzerScreenTests {
    @Test(arguments: [(80, 24), (160, 48)])
    func goldenScreens(width: Int, height: Int) throws {
        for mode in AnalyzerMode.allCases {
            let buffer = Scene.render(width: width, height: height, model: Scene.model(width: width, height: height, mode: mode))
            try Golden.check(buffer, name: "\(mode.title)-\(width)x\(height)")
        }
        let drawer = Scene.model(width: width, height: height, mode: .waterfall)
        drawer.apply(.toggleDrawer, now: Scene.now)
        try Golden.check(Scene.render(width: width, height: height, model: drawer), name: "drawer-\(width)x\(height)")
    }

    @Test func aCalibratedAnalyzerLabelsLevelsInDBm() {
        var status = fixedStatus
        status.powerUnit = .dBm
        for mode in [AnalyzerMode.plot, .meter] {
            let model = Scene.model(width: 80, height: 24, mode: mode)
            var buffer = Buffer(width: 80, height: 24)
            AnalyzerScreen().render(model: model, frame: fixedFrame(), status: status, now: Scene.now, into: &buffer)
            #expect(buffer.description.contains("dBm"), "\(mode)")
            let relative = Scene.render(width: 80, height: 24, model: Scene.model(width: 80, height: 24, mode: mode))
            #expect(!relative.description.contains("dBm"), "\(mode)")
        }
    }

    @Test func waterfallColoursComeFromThePowerColorMap() throws {
        let model = Scene.model(width: 80, height: 24, mode: .waterfall)
        let buffer = Scene.render(width: 80, height: 24, model: model)
        let plot = WaterfallView.dataRect(in: ScreenLayout(width: 80, height: 24, drawerOpen: false).main)
        // the 110 MHz carrier at −20 dB on a 0…−100 dB window: level 0.8, in the top row
        let x = plot.x + Int((110e6 - 100e6) / 20e6 * Double(plot.width))
        let cell = try #require(buffer.cell(x: x, y: plot.y))
        let rgb = PowerColorMap.color(normalized: 0.8)
        #expect(cell.scalar == "▀")
        #expect(cell.foreground == .rgb(rgb.red, rgb.green, rgb.blue))
        // the floor at −80 dB: level 0.2
        let floor = PowerColorMap.color(normalized: 0.2)
        #expect(buffer.cell(x: plot.x + 1, y: plot.y)?.foreground == .rgb(floor.red, floor.green, floor.blue))
    }

    @Test func theColourBarShowsTheWindowInDBWithItsUnit() throws {
        let model = Scene.model(width: 80, height: 24, mode: .waterfall)
        let buffer = Scene.render(width: 80, height: 24, model: model)
        let layout = WaterfallView.layout(in: ScreenLayout(width: 80, height: 24, drawerOpen: false).main)
        let legend = layout.legend
        #expect(legend.x == layout.plot.maxX && legend.width == PlotLayout.legendWidth)
        // top of the bar: the window's top colour; bottom: its floor colour
        let top = PowerColorMap.color(normalized: Float(1 - 0.5 / Double(legend.height * 2)))
        let bottom = PowerColorMap.color(normalized: Float(0.5 / Double(legend.height * 2)))
        #expect(buffer.cell(x: legend.x + 1, y: legend.y)?.foreground == .rgb(top.red, top.green, top.blue))
        #expect(buffer.cell(x: legend.x + 2, y: legend.maxY - 1)?.background
            == .rgb(bottom.red, bottom.green, bottom.blue))
        // labelled with the window's levels and the unit under it
        let text = buffer.description.split(separator: "\n", omittingEmptySubsequences: false)
        let labels = text[legend.y..<legend.maxY].map { String($0.dropFirst(legend.x + 3)).trimmingCharacters(in: .whitespaces) }
        #expect(labels.contains("0") && labels.contains("-100") == false && labels.contains("-80"), "\(labels)")
        #expect(String(text[legend.maxY + 1]).contains("dB"))
    }

    @Test func scrolledBackTheTopTimeLabelSaysHowFar() throws {
        let model = Scene.model(width: 80, height: 24, mode: .waterfall)
        model.apply(.scrollTime(seconds: 7), now: Scene.now)
        let buffer = Scene.render(width: 80, height: 24, model: model)
        let layout = WaterfallView.layout(in: ScreenLayout(width: 80, height: 24, drawerOpen: false).main)
        let text = buffer.description.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(text[layout.plot.y].hasPrefix("   7s┤"), "\(text[layout.plot.y])")
    }

    @Test func theOneFrameBurstIsOnScreenAtItsTime() throws {
        let model = Scene.model(width: 160, height: 48, mode: .waterfall)
        let buffer = Scene.render(width: 160, height: 48, model: model)
        let plot = WaterfallView.dataRect(in: ScreenLayout(width: 160, height: 48, drawerOpen: false).main)
        let x = plot.x + Int((115e6 - 100e6) / 20e6 * Double(plot.width))
        let burst = PowerColorMap.color(normalized: 0.9)
        let burstColor = Color.rgb(burst.red, burst.green, burst.blue)
        // the burst was 15 s before now; 30 s over the image's pixel rows
        let rows = (0..<plot.height).filter { y in
            let cell = buffer.cell(x: x, y: plot.y + y)
            return cell?.foreground == burstColor || cell?.background == burstColor
        }
        #expect(rows.count == 1)
        let pixelRowsPerSecond = Double(plot.height * 2) / 30
        let expectedRow = Int(15 * pixelRowsPerSecond / 2)
        #expect(abs((rows.first ?? -10) - expectedRow) <= 1)
    }

    @Test func tinyTerminalsAndResizeStormsNeverCrash() {
        var seeded = SeededRandom(seed: 7)
        let screen = AnalyzerScreen()
        for mode in AnalyzerMode.allCases {
            let model = Scene.model(width: 80, height: 24, mode: mode)
            for (width, height) in [(20, 6), (8, 3), (3, 2), (1, 1), (0, 0), (39, 9), (12, 4)] {
                var buffer = Buffer(width: width, height: height)
                screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
                #expect(buffer.lines.count == height)
                if width >= 20 && height >= 6 { #expect(!buffer.lines.joined().contains("┤"), "\(mode) \(width)×\(height)") }
            }
            model.apply(.toggleDrawer, now: Scene.now)
            model.apply(.toggleHelp, now: Scene.now)
            var buffer = Buffer(width: 1, height: 1)
            for _ in 0..<200 {
                buffer.resize(width: Int(seeded.next() % 300), height: Int(seeded.next() % 90))
                screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
            }
        }
    }

    @Test func statusLineShowsTheFeedsExtraText() {
        var status = fixedStatus
        status.extra = "● REC 00:12"
        var buffer = Buffer(width: 120, height: 30)
        AnalyzerScreen().render(model: Scene.model(width: 120, height: 30, mode: .waterfall), frame: fixedFrame(),
                                status: status, now: Scene.now, into: &buffer)
        #expect(buffer.lines[0].hasPrefix(" DEMO  ● REC 00:12  HackRF One │"))
        #expect(buffer.lines[0].contains("period 30 s │ live"))
    }

    @Test func aSteadyWaterfallRedrawWritesNothingNew() {
        let model = Scene.model(width: 160, height: 48, mode: .waterfall)
        let screen = AnalyzerScreen()
        var buffer = Buffer(width: 160, height: 48)
        let writer = DiffWriter(mode: .trueColor)
        screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
        writer.render(buffer)
        screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
        writer.render(buffer)
        #expect(writer.output.isEmpty)
    }
}

@Suite struct BigMeterTests {
    /// Rows holding a lit digit cell, and the meter's screen as text lines.
    func render(width: Int, height: Int) -> (digitRows: Int, lines: [String], buffer: Buffer) {
        let model = Scene.model(width: width, height: height, mode: .meter)
        let buffer = Scene.render(width: width, height: height, model: model)
        let lines = buffer.description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let main = ScreenLayout(width: width, height: height, drawerOpen: false).main
        let layout = PowerMeterView.Layout(area: main)
        let rows = (layout.readout.y..<layout.readout.maxY).filter { y in
            (0..<width).contains { x in ["█", "▀", "▄"].contains(buffer.cell(x: x, y: y)?.scalar) }
        }
        return (rows.count, Array(lines.prefix(height)), buffer)
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func digitsTakeAThirdOfTheHeightWithTheUnitBeside(width: Int, height: Int) {
        let (rows, lines, _) = render(width: width, height: height)
        #expect(Double(rows) >= Double(height) / 3, "\(rows) rows of digits at \(width)×\(height)")
        let main = ScreenLayout(width: width, height: height, drawerOpen: false).main
        let layout = PowerMeterView.Layout(area: main)
        // the unit right of the digits, in big letters half their size, on their baseline
        let buffer = Scene.render(width: width, height: height, model: Scene.model(width: width, height: height, mode: .meter))
        let unitScale = max(1, layout.scale / 2)
        let unitWidth = BigDigits.width(of: "dB", scale: unitScale), unitHeight = BigDigits.height(scale: unitScale)
        let lit = (layout.readout.y..<layout.readout.maxY).flatMap { y in
            (0..<width).filter { ["█", "▀", "▄"].contains(buffer.cell(x: $0, y: y)?.scalar) }
        }
        let right = lit.max() ?? 0
        var reference = Buffer(width: unitWidth, height: unitHeight)
        BigDigits.draw("dB", x: 0, y: 0, scale: unitScale, style: .plain, into: &reference)
        for dy in 0..<unitHeight {
            for dx in 0..<unitWidth {
                let cell = buffer.cell(x: right - unitWidth + 1 + dx, y: layout.readout.maxY - unitHeight + dy)
                #expect(cell?.scalar == reference.cell(x: dx, y: dy)?.scalar, "unit cell \(dx),\(dy) at \(width)×\(height)")
            }
        }
        _ = lines
    }

    @Test func theBarScaleIsTheSameAtEveryWidth() {
        // the scale's labels, read under the bar: identical at every size
        func labels(_ width: Int, _ height: Int) -> [String] {
            let (_, lines, _) = render(width: width, height: height)
            let layout = PowerMeterView.Layout(area: ScreenLayout(width: width, height: height, drawerOpen: false).main)
            return lines[layout.ticks.y + 1].split(separator: " ").map(String.init)
        }
        let small = labels(80, 24)
        #expect(small.last == "dB")
        // the scene's first reading, −42.5 dB, set the scale to −80…−20 dB
        #expect(small.first == "-80" && small.contains("-20"), "\(small)")
        #expect(labels(160, 48) == small)
        #expect(labels(240, 70) == small)
    }

    @Test func theScaleMovesOnlyWhenAReadingLeavesIt() {
        var meter = PowerMeterModel()
        meter.record(-37.25, at: 0)
        #expect(meter.scaleTopDB == -10)
        #expect(meter.scaleBottomDB == -70)
        meter.record(-60, at: 1)
        meter.record(-12, at: 2)
        #expect(meter.scaleTopDB == -10)
        meter.record(-5, at: 3)
        #expect(meter.scaleTopDB == 20)
    }
}

@Suite struct ReplayPromptTests {
    @Test(arguments: [AnalyzerMode.plot, .waterfall, .meter])
    func theGoToPromptHasALineOfItsOwnInEveryView(mode: AnalyzerMode) {
        for (width, height) in [(80, 24), (160, 48)] {
            let model = Scene.model(width: width, height: height, mode: mode)
            model.replay = ReplayState(speed: 1, isPaused: false, position: 10, duration: 600, isFinished: false)
            model.apply(.timeEntry(.begin), now: Scene.now)
            for c in "12:3" { model.apply(.timeEntry(.type(c)), now: Scene.now) }
            let screen = AnalyzerScreen()
            var buffer = Buffer(width: width, height: height)
            screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
            let lines = buffer.lines
            #expect(lines[height - 1].hasPrefix(" go to: 12:3▏"), "\(mode) \(width)×\(height): \(lines[height - 1])")
            #expect(!lines[0].contains("go to"))
            // Esc: the key help is back
            model.apply(.timeEntry(.cancel), now: Scene.now)
            screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
            #expect(buffer.lines[height - 1].hasPrefix(" \(AnalyzerMode.digitKeys) view"))
            // a refused time says so on the same line
            model.apply(.timeEntry(.begin), now: Scene.now)
            model.apply(.timeEntry(.type(":")), now: Scene.now)
            model.apply(.timeEntry(.type(":")), now: Scene.now)
            model.apply(.timeEntry(.commit), now: Scene.now)
            screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
            #expect(buffer.lines[height - 1].contains("expected seconds"), "\(buffer.lines[height - 1])")
        }
    }
}
