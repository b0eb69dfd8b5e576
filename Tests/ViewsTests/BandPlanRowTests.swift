import DSP
import Foundation
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// The band plan under the frequency axis, its channel grid and the markers'
/// allocation, drawn by the whole analyzer screen on the scene's 100–120 MHz.
@Suite struct BandPlanRowTests {
    /// A plan over the scene's band: FM broadcast running out of the left edge,
    /// a narrow channel, a long label, and a channel nested in it.
    static let plan = BandPlan(name: "test", source: "test", allocations: [
        .init(startHz: 87.5e6, stopHz: 108e6, label: "FM broadcast"),
        .init(startHz: 109e6, stopHz: 119e6, label: "Aeronautical radionavigation"),
        .init(startHz: 113e6, stopHz: 114e6, label: "VOR"),
    ])

    static func render(width: Int, height: Int, mode: AnalyzerMode, grid: Bool = false,
                       plan: BandPlan? = plan) -> Buffer {
        let model = Scene.model(width: width, height: height, mode: mode)
        model.setBandPlan(plan, grid: grid)
        return Scene.render(width: width, height: height, model: model)
    }

    /// The row under the axis and the data rect its columns follow, as the screen lays them out.
    static func geometry(width: Int, height: Int, mode: AnalyzerMode) -> (row: Int, data: Rect, axisRows: [Int]) {
        let model = Scene.model(width: width, height: height, mode: mode)
        model.setBandPlan(plan)
        let (main, row) = AnalyzerScreen.bandPlanSplit(ScreenLayout(width: width, height: height, drawerOpen: false).main,
                                                      model: model)
        let data: Rect
        switch mode {
        case .waterfall: data = WaterfallView.dataRect(in: main)
        case .persistence: data = PersistenceView.dataRect(in: main)
        default: data = SpectrumPlotView.dataRect(in: main)
        }
        return (row?.y ?? -1, data, [main.maxY - 2, main.maxY - 1])
    }

    /// the column of `hz` in `data` on the scene's 100–120 MHz
    static func column(_ hz: Double, in data: Rect) -> Int {
        data.x + Int(((hz - 100e6) / 20e6 * Double(data.width)).rounded(.down))
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func labelsSitUnderTheAxisCentredOnTheirAllocation(width: Int, height: Int) throws {
        for mode in [AnalyzerMode.plot, .waterfall, .persistence] {
            let buffer = Self.render(width: width, height: height, mode: mode)
            let (rowY, data, axisRows) = Self.geometry(width: width, height: height, mode: mode)
            #expect(rowY == height - 2, "the row right above the key help at \(width)×\(height)")
            let row = buffer.lines[rowY]
            // FM broadcast runs out of view on the left: no edge mark there, its own ┤ at 108 MHz
            let fmEnd = Self.column(108e6, in: data)
            let scalars = Array(row.unicodeScalars)
            #expect(scalars[data.x] == "─", "\(mode) \(width)×\(height): \(row)")
            #expect((fmEnd - 1...fmEnd).contains { scalars[$0] == "┤" }, "\(mode) \(width)×\(height): \(row)")
            #expect(row.contains("FM broadcast"), "\(row)")
            // the label centred on the part in view (100–108 MHz)
            let fmLabel = try #require(row.range(of: "FM broadcast"))
            let labelCentre = row.unicodeScalars.distance(from: row.unicodeScalars.startIndex, to: fmLabel.lowerBound) + 6
            #expect(abs(labelCentre - (data.x + fmEnd) / 2) <= 2, "\(row)")
            // the long label beside the channel nested in it (never over it): whole where that
            // stretch holds it, else shortened with …
            let vorStart = Self.column(113e6, in: data), vorEnd = Self.column(114e6, in: data)
            let widestStretch = max(vorStart - Self.column(109e6, in: data) - 1, Self.column(119e6, in: data) - vorEnd - 1) - 2
            if widestStretch >= "Aeronautical radionavigation".count {
                #expect(row.contains("Aeronautical radionavigation"), "\(row)")
            } else {
                #expect(row.contains("Aeronautical") && row.contains("…"), "\(row)")
            }
            #expect(scalars[vorStart] == "├", "\(mode) \(width)×\(height): \(row)")
            #expect((vorEnd - 1...vorEnd).contains { scalars[$0] == "┤" }, "\(mode) \(width)×\(height): \(row)")
            // wide enough, the nested channel is labelled too
            if vorEnd - vorStart - 3 >= "VOR".count { #expect(row.contains(" VOR "), "\(row)") }
            // the axis above is untouched: ticks and labels in their two rows
            #expect(buffer.lines[axisRows[0]].contains("┬"))
            #expect(buffer.lines[axisRows[1]].contains("MHz"))
        }
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func goldenScreens(width: Int, height: Int) throws {
        for mode in [AnalyzerMode.plot, .waterfall] {
            try Golden.check(Self.render(width: width, height: height, mode: mode, plan: BuiltInBandPlans.named("broadcast")
                                         .map { BandPlan.merging([$0, Self.plan])! }),
                             name: "bandplan-\(mode.title)-\(width)x\(height)")
        }
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func overlappingBandsTakeTwoRowsWithTheirOwnEdges(width: Int, height: Int) throws {
        // 87–109 MHz: Japan's 76–95 MHz and CCIR's 87.5–108 MHz overlap in part
        let plan = try #require(BuiltInBandPlans.named("fm-broadcast"))
        let model = Scene.model(width: width, height: height, mode: .plot)
        model.plot = SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 0, upperHz: 6e9)!,
                                       visibleBand: FrequencyRange(lowerHz: 87e6, upperHz: 109e6)!,
                                       referenceLevelDB: 0, displaySpanDB: 100, pixelColumns: 100, pixelRows: 40)
        model.setBandPlan(plan)
        let buffer = Scene.render(width: width, height: height, model: model)
        let (main, rows) = AnalyzerScreen.bandPlanSplit(ScreenLayout(width: width, height: height, drawerOpen: false).main,
                                                       model: model)
        let planRows = try #require(rows)
        #expect(planRows.height == 2 && planRows.maxY == height - 1)
        let data = SpectrumPlotView.dataRect(in: main)
        func column(_ hz: Double) -> Int { data.x + Int(((hz - 87e6) / 22e6 * Double(data.width)).rounded(.down)) }
        let japan = Array(buffer.lines[planRows.y].unicodeScalars), ccir = Array(buffer.lines[planRows.y + 1].unicodeScalars)
        // each row holds one of them whole, with its own edge marks
        #expect(buffer.lines[planRows.y].contains("FM broadcast (Japan)") || buffer.lines[planRows.y].contains("FM broadcast (J"),
                "\(buffer.lines[planRows.y])")
        #expect(japan[data.x] == "─" && (column(95e6) - 1...column(95e6)).contains { japan[$0] == "┤" })
        #expect(ccir[column(87.5e6)] == "├" && (column(108e6) - 1...column(108e6)).contains { ccir[$0] == "┤" },
                "\(buffer.lines[planRows.y + 1])")
        #expect(buffer.lines[planRows.y + 1].contains(" FM broadcast "))
        #expect(buffer.lines[main.maxY - 1].contains("MHz"), "the axis' labels right above")
    }

    @Test func withoutAPlanTheScreenIsAsBefore() {
        for mode in AnalyzerMode.allCases {
            let plain = Scene.render(width: 80, height: 24, model: Scene.model(width: 80, height: 24, mode: mode))
            let none = Self.render(width: 80, height: 24, mode: mode, plan: nil)
            #expect(plain.lines == none.lines, "\(mode)")
        }
        // the meter has no frequency axis: no row; its status line names the measured band's allocation
        let meter = Self.render(width: 160, height: 48, mode: .meter)
        #expect(!meter.lines.dropFirst().joined().contains("FM broadcast"))
        // 100–120 MHz: no allocation holds it all; at its centre, 110 MHz, the aeronautical one
        #expect(meter.lines[0].contains("meter band 100 MHz–120 MHz in Aeronautical radionavigation"), "\(meter.lines[0])")
        let plain = Scene.render(width: 160, height: 48, model: Scene.model(width: 160, height: 48, mode: .meter))
        #expect(!plain.lines[0].contains(" in "), "\(plain.lines[0])")
    }

    @Test func theGridMarksEveryEdgeInViewInTheEmptyCellsOfThePlot() {
        let (_, data, _) = Self.geometry(width: 160, height: 48, mode: .plot)
        let off = Self.render(width: 160, height: 48, mode: .plot)
        let on = Self.render(width: 160, height: 48, mode: .plot, grid: true)
        let gridColumns = (data.x..<data.maxX).filter { x in
            (data.y..<data.maxY).contains { on.cell(x: x, y: $0)?.scalar == "│" && on.cell(x: x, y: $0)?.style == BandPlanRow.gridStyle }
        }
        // edges in view: 108 (FM's end), 109, 113, 114, 119 MHz (allocation ends are their last column)
        let expected = [108e6, 109e6, 113e6, 114e6, 119e6].map { hz in
            (Self.column(hz, in: data) - 1)...Self.column(hz, in: data)
        }
        #expect(gridColumns.count == expected.count, "\(gridColumns)")
        for (column, range) in zip(gridColumns, expected) { #expect(range.contains(column), "\(column) \(range)") }
        #expect(!(data.x..<data.maxX).contains { x in
            (data.y..<data.maxY).contains { off.cell(x: x, y: $0)?.style == BandPlanRow.gridStyle }
        })
        // the trace keeps its cells: the grid only fills blanks
        let traceCells = (data.y..<data.maxY).flatMap { y in (data.x..<data.maxX).map { (x: $0, y: y) } }
            .filter { off.cell(x: $0.x, y: $0.y)?.scalar != " " }
        #expect(traceCells.allSatisfy { off.cell(x: $0.x, y: $0.y) == on.cell(x: $0.x, y: $0.y) })
    }

    @Test func bTogglesTheGridOnlyWithAPlan() {
        let model = Scene.model(width: 80, height: 24, mode: .plot)
        let key = InputEvent.key(KeyEvent(.character("b")))
        #expect(AnalyzerKeyMap.intent(for: key, model: model) == .toggleChannelGrid)
        model.apply(.toggleChannelGrid, now: Scene.now)
        #expect(!model.showsChannelGrid)
        model.setBandPlan(Self.plan)
        model.apply(.toggleChannelGrid, now: Scene.now)
        #expect(model.showsChannelGrid)
        model.apply(.toggleChannelGrid, now: Scene.now)
        #expect(!model.showsChannelGrid)
        #expect(HelpOverlay.lines.contains { $0.hasPrefix(" b ") && $0.contains("grid") })
    }

    @Test(arguments: [(80, 24), (160, 48)])
    func aMarkerNamesTheAllocationItFallsIn(width: Int, height: Int) throws {
        let model = Scene.model(width: width, height: height, mode: .plot)
        model.setBandPlan(Self.plan)
        // the fixed frame's carrier at 110 MHz is its highest peak
        let frame = fixedFrame()
        let peaks = SpectrumMeasurements.peaks(frame.powerDB, count: 4)
        model.markers.placeOnHighestPeak(peaks, frame: frame)
        #expect(abs((model.markers.markers.first?.hz ?? 0) - 110e6) < 20e3)
        let buffer = Scene.render(width: width, height: height, model: model)
        #expect(buffer.description.contains("in Aeronautical radiona"), "\(buffer.description)")
        // in a channel of a band: both, the channel first
        model.markers.clear()
        let channel = SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: 0,
                                    powerDB: (0..<2000).map { $0 == 1350 ? -20 : -80 })  // 113.5 MHz, in VOR
        model.markers.placeOnHighestPeak(SpectrumMeasurements.peaks(channel.powerDB, count: 4), frame: channel)
        var nested = Buffer(width: width, height: height)
        AnalyzerScreen().render(model: model, frame: channel, status: fixedStatus, now: Scene.now, into: &nested)
        let lines = nested.lines
        let vor = try #require(lines.firstIndex { $0.contains("    in VOR") }, "\(nested.description)")
        #expect(lines[vor + 1].contains("    in Aeronautical radiona"), "\(nested.description)")
        let noPlan = Scene.model(width: width, height: height, mode: .plot)
        noPlan.markers.placeOnHighestPeak(peaks, frame: frame)
        #expect(!Scene.render(width: width, height: height, model: noPlan).description.contains("in Aeronautical"))
    }

    @Test func crowdedRastersKeepTheLabelsThatFitApart() throws {
        // Wi-Fi's thirteen overlapping 2.4 GHz channels over 2.4–2.5 GHz at 80 columns
        let plan = try #require(BuiltInBandPlans.named("wifi-2g4"))
        let data = Rect(x: 6, y: 0, width: 73, height: 10)
        var buffer = Buffer(width: 80, height: 1)
        BandPlanRow().draw(plan, band: FrequencyRange(lowerHz: 2.4e9, upperHz: 2.5e9)!, data: data,
                           rows: Rect(x: 0, y: 0, width: 80, height: 1), into: &buffer)
        let row = buffer.lines[0]
        #expect(row.contains("ch 1") && row.contains("ch 14"), "\(row)")
        // no two labels touch: every label has a space or a line each side
        let labels = row.matches(of: /ch \d+/)
        #expect(labels.count >= 5, "\(row)")
        for label in labels {
            let before = row[row.index(before: label.range.lowerBound)]
            #expect(before == " ", "\(row)")
        }
    }

    @Test func tinyTerminalsAndResizeStormsWithAPlanNeverCrash() {
        var seeded = SeededRandom(seed: 44)
        let screen = AnalyzerScreen()
        let merged = BandPlan.merging([Self.plan, BuiltInBandPlans.named("fm-broadcast")!])!
        for mode in AnalyzerMode.allCases {
            let model = Scene.model(width: 80, height: 24, mode: mode)
            model.setBandPlan(merged, grid: true)
            for (width, height) in [(20, 6), (8, 3), (3, 2), (1, 1), (0, 0), (39, 9), (40, 10), (40, 11), (12, 4)] {
                var buffer = Buffer(width: width, height: height)
                screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
                #expect(buffer.lines.count == height)
            }
            model.apply(.toggleDrawer, now: Scene.now)
            var buffer = Buffer(width: 1, height: 1)
            for _ in 0..<200 {
                buffer.resize(width: Int(seeded.next() % 300), height: Int(seeded.next() % 90))
                screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
            }
        }
    }

    @Test func aSteadyScreenWithAPlanWritesNothingNew() {
        let model = Scene.model(width: 160, height: 48, mode: .waterfall)
        model.setBandPlan(Self.plan)
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
