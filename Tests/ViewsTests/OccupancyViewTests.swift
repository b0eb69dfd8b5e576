import Signals
import Terminal
import Testing
@testable import ViewModels
@testable import Views

/// The occupancy view (issue 44): bars as tall as each frequency's share of
/// occupied sweeps, on the plot's band; the model starts again on a new grid.
@Suite struct OccupancyViewTests {
    /// 100 bins of 1 kHz from 0: noise at −60 dB, bin 20 always 0 dB, bin 70 0 dB in every other sweep
    static func sweep(_ k: Int, start: Double = 0) -> SpectrumFrame {
        var levels = [Float](repeating: -60, count: 100)
        levels[20] = 0
        if k.isMultiple(of: 2) { levels[70] = 0 }
        return SpectrumFrame(startHz: start, binWidthHz: 1000, timestamp: Double(k), powerDB: levels)
    }

    @Test func theModelCountsEachBinAndStartsAgainOnANewGrid() {
        let model = OccupancyTraceModel()
        for k in 0..<10 { model.add(Self.sweep(k)) }
        #expect(model.sweeps == 10)
        #expect(model.fractions[20] == 1 && model.fractions[70] == 0.5 && model.fractions[5] == 0)
        #expect(model.peak(from: 15_000, to: 25_000) == 1)
        #expect(model.peak(from: 60_000, to: 80_000) == 0.5)
        #expect(model.peak(from: 200_000, to: 300_000).isNaN)
        // a column narrower than a bin reads the bin under its centre
        #expect(model.peak(from: 20_100, to: 20_200) == 1)
        model.add(Self.sweep(0, start: 500))
        #expect(model.sweeps == 1 && model.startHz == 500)
        model.reset()
        #expect(model.sweeps == 0 && model.fractions.isEmpty)
    }

    @Test func barsAreAsTallAsTheShare() throws {
        let model = OccupancyTraceModel()
        for k in 0..<10 { model.add(Self.sweep(k)) }
        let view = OccupancyView()
        let area = Rect(x: 0, y: 0, width: 110, height: 30)
        var buffer = Buffer(width: 110, height: 30)
        let band = try #require(FrequencyRange(lowerHz: 0, upperHz: 100_000))
        view.render(occupancy: model, band: band, in: area, into: &buffer)
        let data = OccupancyView.dataRect(in: area)
        let hzPerColumn = 100_000 / Double(data.width)
        func litRows(_ hz: Double) -> Int {
            let x = data.x + Int(hz / hzPerColumn)
            return (data.y..<data.maxY).filter { buffer.cell(x: x, y: $0)?.scalar != " " }.count
        }
        #expect(litRows(20_500) == data.height, "always busy: the full height")
        #expect(abs(litRows(70_500) - data.height / 2) <= 1, "busy half the time: half the height")
        #expect(litRows(40_500) == 1, "never busy: one grey pixel row, measured but at 0 %")
        let bottom = try #require(buffer.cell(x: data.x + Int(40_500 / hzPerColumn), y: data.maxY - 1))
        #expect(bottom.style.background == OccupancyView.neverBusy || bottom.style.foreground == OccupancyView.neverBusy)
        #expect(buffer.lines.joined().contains("100"), "the axis reads in percent")
        // beyond the counted bins nothing was measured: nothing drawn
        let wider = try #require(FrequencyRange(lowerHz: 0, upperHz: 200_000))
        view.render(occupancy: model, band: wider, in: area, into: &buffer)
        let beyond = data.x + Int(150_000 / (200_000 / Double(data.width)))
        #expect((data.y..<data.maxY).allSatisfy { buffer.cell(x: beyond, y: $0)?.scalar == " " })
    }
}
