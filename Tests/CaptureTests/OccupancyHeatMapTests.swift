import DSP
import Foundation
import Signals
import Testing
@testable import Capture

/// The occupancy heat map (issue 44): a cell per channel and slot of the
/// day, coloured by its occupancy; black where never measured.
@Suite struct OccupancyHeatMapTests {
    @Test func cellsAreColouredByOccupancyAndUnmeasuredOnesAreBlack() throws {
        // 4 channels, 6-hour slots: channel 1 busy from 06:00 to 12:00, channel 3 never measured after noon
        let counter = OccupancyCounter(channels: .bins, band: nil, threshold: .fixed(decibels: -10), intervalSeconds: nil,
                                       slotSeconds: 6 * 3600)
        for minute in stride(from: 0, to: 24 * 60, by: 10) {
            let hour = Double(minute) / 60
            var levels: [Float] = [-50, hour >= 6 && hour < 12 ? 0 : -50, -50, -50]
            if hour >= 12 { levels[3] = .nan }
            _ = counter.add(SpectrumFrame(startHz: 0, binWidthHz: 1000, timestamp: 1_700_006_400 + Double(minute) * 60,
                                          powerDB: levels))
        }
        let map = counter.timeOfDay
        #expect(map.count == 4 && map[1][1].occupancy == 1 && map[0][1].occupancy == 0 && map[2][3].samples == 0)
        let (image, summary) = OccupancyHeatMap.draw(map, slotSeconds: 6 * 3600, title: "t")
        #expect(summary.columns == 4 && summary.slots == 4)
        // find the plot: the first black cell is channel 3 at 12:00; cells are square blocks
        let cellWidth = min(8, OccupancyHeatMap.maxColumns / 4)
        let cellHeight = min(OccupancyHeatMap.maxCellHeight, OccupancyHeatMap.targetPlotHeight / 4)
        let left = BitmapFont.width("00:00") + 4 + OccupancyHeatMap.margin
        let top = 2 * (BitmapFont.glyphHeight + 4) + 4
        func cell(_ slot: Int, _ channel: Int) -> PowerColorMap.RGB {
            image.pixel(left + channel * cellWidth + cellWidth / 2, top + slot * cellHeight + cellHeight / 2)
        }
        #expect(cell(1, 1) == PowerColorMap.color(normalized: 1))
        #expect(cell(0, 1) == PowerColorMap.color(normalized: 0))
        #expect(cell(2, 3) == PNGWaterfallExporter.noData && cell(3, 3) == PNGWaterfallExporter.noData)
        #expect(cell(1, 3) == PowerColorMap.color(normalized: 0))
    }

    @Test func manyChannelsShareColumnsByTheirMean() throws {
        var row = (0..<2400).map { i in
            var count = OccupancyChannelCount(range: FrequencyRange(lowerHz: Double(i), upperHz: Double(i + 1))!)
            count.samples = 4
            count.occupied = i.isMultiple(of: 2) ? 4 : 0
            return count
        }
        row[0].samples = 0
        row[0].occupied = 0
        let (image, summary) = OccupancyHeatMap.draw([row], slotSeconds: 86_400, title: "t")
        #expect(summary.columns == 1200)
        let left = BitmapFont.width("00:00") + 4 + OccupancyHeatMap.margin
        let top = 2 * (BitmapFont.glyphHeight + 4) + 4
        // column 0: channel 0 unmeasured, channel 1 never busy: 0 %; column 1: channels 2 and 3: 50 %
        #expect(image.pixel(left, top) == PowerColorMap.color(normalized: 0))
        #expect(image.pixel(left + 1, top) == PowerColorMap.color(normalized: 0.5))
    }
}
