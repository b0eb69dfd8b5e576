import DSP
import Foundation
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

@Suite struct PersistenceViewTests {
    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func theBurstInOnePercentOfFramesIsVisibleUnderTheSteadyCarrier(width: Int, height: Int) throws {
        let model = Scene.model(width: width, height: height, mode: .persistence)
        let buffer = Scene.render(width: width, height: height, model: model)
        let main = ScreenLayout(width: width, height: height, drawerOpen: false).main
        let plot = PersistenceView.dataRect(in: main)
        let geometry = try #require(model.persistence.geometry)
        #expect(geometry.columns == plot.width && geometry.rows == plot.height * 2)
        // the burst: −35 dB at 115 MHz in one frame of 100; its pixel row on the 0…−100 dB window
        let burstRow = Int(35.0 / 100 * Double(geometry.rows))
        let burstColumn = try #require((0..<geometry.columns).first { model.persistence.hits(column: $0, row: burstRow) > 0 })
        let burst = model.persistence.density(column: burstColumn, row: burstRow)
        #expect(abs(burst - 0.01) < 0.002, "\(burst)")
        let expected = mapColor(level: try #require(PersistenceModel.paletteLevel(density: burst)))
        let drawn = pixelColor(buffer, x: plot.x + burstColumn, pixelY: burstRow, top: plot.y)
        #expect(drawn == expected, "\(drawn)")
        // visibly coloured: well above the background and the map's dark floor
        #expect((relativeLuminance(drawn) ?? 0) > 0.1, "\(drawn)")
        // the carrier (−20 dB at 110 MHz) in every frame: density 1, the top of the map
        let carrierRow = Int(20.0 / 100 * Double(geometry.rows))
        let carrierColumn = try #require((0..<geometry.columns).first { model.persistence.hits(column: $0, row: carrierRow) > 0 })
        #expect(abs(model.persistence.density(column: carrierColumn, row: carrierRow) - 1) < 1e-5)
        #expect(pixelColor(buffer, x: plot.x + carrierColumn, pixelY: carrierRow, top: plot.y) == mapColor(level: 1))
        // nothing ever landed between the burst and the carrier in the carrier's column: background
        #expect(pixelColor(buffer, x: plot.x + carrierColumn, pixelY: (burstRow + carrierRow) / 2, top: plot.y) == .default)
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func theLegendIsLabelledInPercentOfTimeAndTheAxesAreThePlots(width: Int, height: Int) throws {
        let model = Scene.model(width: width, height: height, mode: .persistence)
        let buffer = Scene.render(width: width, height: height, model: model)
        let main = ScreenLayout(width: width, height: height, drawerOpen: false).main
        let layout = PersistenceView.layout(in: main)
        let lines = buffer.description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let labels = lines[layout.legend.y..<layout.legend.maxY].map {
            String($0.dropFirst(layout.legend.x + 3)).trimmingCharacters(in: .whitespaces)
        }
        for label in ["100%", "10%", "1%", "0.1%"] { #expect(labels.contains(label), "\(label) in \(labels)") }
        #expect(labels.first == "100%" && labels.last == "0.1%", "\(labels)")
        #expect(lines[layout.legend.maxY + 1].contains("time"))
        // the bar: the map from the lowest density's level at the bottom to white at the top
        #expect(buffer.cell(x: layout.legend.x + 1, y: layout.legend.y)?.foreground
            == mapColor(level: 1 - (1 - PersistenceModel.lowestPaletteLevel) * Float(0.5 / Double(layout.legend.height * 2))))
        // the level axis as the plot's (0 at the top, dB labels) and the frequency axis below
        #expect(lines[layout.plot.y].hasPrefix("    0┤"), "\(lines[layout.plot.y])")
        #expect(lines.contains { $0.contains("-60┤") || $0.contains("-50┤") }, "\(buffer.description)")
        #expect(lines[layout.frequencyAxis.y + 1].contains("MHz") && lines[layout.frequencyAxis.y + 1].contains("110"))
        // the help and the status line name the view
        #expect(lines.last?.contains("[/] persistence") == true)
        if width >= 160 { #expect(lines[0].contains("persistence 5 s"), "\(lines[0])") }
    }

    @Test func theGeometryFollowsThePlotsWindowAndStartsAgainWhenItMoves() {
        let model = Scene.model(width: 80, height: 24, mode: .persistence)
        _ = Scene.render(width: 80, height: 24, model: model)
        #expect(model.persistence.framesAdded == 100)
        model.apply(.shiftLevels(decibels: 10), now: Scene.now)
        _ = Scene.render(width: 80, height: 24, model: model)
        #expect(model.persistence.geometry?.topDB == 10)
        #expect(model.persistence.framesAdded == 0)
    }

    @Test func keysSelectTheViewAndStepThePersistence() {
        let model = Scene.model(width: 80, height: 24, mode: .plot)
        func key(_ c: Character) -> InputEvent { .key(KeyEvent(.character(c.unicodeScalars.first!))) }
        #expect(AnalyzerKeyMap.intent(for: key("4"), model: model) == .show(.persistence))
        #expect(AnalyzerKeyMap.intent(for: key("["), model: model) == .stepPeriod(-1))
        model.apply(.show(.persistence), now: Scene.now)
        #expect(AnalyzerKeyMap.intent(for: key("["), model: model) == .stepPersistence(-1))
        #expect(AnalyzerKeyMap.intent(for: key("]"), model: model) == .stepPersistence(1))
        #expect(AnalyzerKeyMap.intent(for: .key(KeyEvent(.tab)), model: model) == .nextMode)
        #expect(AnalyzerKeyMap.intent(for: .key(KeyEvent(.backtab)), model: model) == .show(.meter))
        #expect(AnalyzerKeyMap.intent(for: key("5"), model: model) == .show(.occupancy))
        #expect(AnalyzerKeyMap.intent(for: key("6"), model: model) == .show(.zerospan))
        #expect(AnalyzerKeyMap.intent(for: key("7"), model: model) == nil)
    }
}
