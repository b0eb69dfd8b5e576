@testable import DSP
import Foundation
import Signals
import Testing
@testable import Runs

/// The occupancy counter's edges: gaps, periods, the busy hour, the noise
/// floor's selection, and the channels file (the counts over a real file
/// are checked end to end in OccupancyCommandTests).
@Suite struct OccupancyTests {
    /// 8 bins of 1 kHz from 100 kHz: bins at `busy` indices 0 dB, the rest −50 dB
    static func sweep(at time: Double, busy: Set<Int> = [], nan: Set<Int> = [], bins: Int = 8) -> SpectrumFrame {
        SpectrumFrame(startHz: 100_000, binWidthHz: 1000, timestamp: time,
                      powerDB: (0..<bins).map { nan.contains($0) ? .nan : busy.contains($0) ? 0 : -50 })
    }

    @Test func sweepsWithoutDataInAChannelAreMissingNotSamples() throws {
        let counter = OccupancyCounter(channels: .bins, band: nil, threshold: .fixed(decibels: -10), intervalSeconds: nil)
        #expect(counter.add(Self.sweep(at: 0, busy: [1])) == nil)
        #expect(counter.add(Self.sweep(at: 1, busy: [1], nan: [2, 3])) == nil)
        // a narrower sweep: bins 4…7 not measured at all
        #expect(counter.add(Self.sweep(at: 2, busy: [1, 3], bins: 4)) == nil)
        let period = try #require(counter.finish())
        #expect(period.sweeps == 3 && period.start == 0 && period.end == 2)
        #expect(period.channels.map(\.samples) == [3, 3, 2, 2, 2, 2, 2, 2])
        #expect(period.channels.map(\.missing) == [0, 0, 1, 1, 1, 1, 1, 1])
        #expect(period.channels.map(\.occupied) == [0, 3, 0, 1, 0, 0, 0, 0])
        #expect(period.channels[3].occupancy == 0.5)
        #expect(period.bandOccupancy == 4.0 / 18.0)
        #expect(counter.finish() == nil)
    }

    @Test func periodsAreAlignedToTheClockAndLateSweepsStayInTheOpenOne() throws {
        let counter = OccupancyCounter(channels: .width(4000), band: nil, threshold: .fixed(decibels: -10),
                                       intervalSeconds: 60)
        #expect(counter.add(Self.sweep(at: 59, busy: [0])) == nil)
        let first = try #require(counter.add(Self.sweep(at: 61)))
        #expect(first.start == 0 && first.end == 60 && first.sweeps == 1)
        #expect(first.channels.map(\.occupied) == [1, 0])
        #expect(counter.channels.map(\.lowerHz) == [100_000, 104_000])
        #expect(counter.add(Self.sweep(at: 30, busy: [5])) == nil)  // back in time: counted in 60…120
        #expect(counter.lateSweeps == 1)
        let second = try #require(counter.finish())
        #expect(second.start == 60 && second.end == 120 && second.sweeps == 2)
        #expect(second.channels.map(\.occupied) == [0, 1])
    }

    @Test func theBusyHourIsTheHourOfTheDayWithTheMostOccupancy() {
        let counter = OccupancyCounter(channels: .bins, band: nil, threshold: .fixed(decibels: -10), intervalSeconds: 900)
        let day = 86_400.0 * 20_000
        // bin 0: busy in 3 of 4 sweeps at 14:xx UTC on two days, 1 of 4 at 02:xx; bin 1 never
        for (hour, busyCount) in [(2, 1), (14, 3)] {
            for k in 0..<4 {
                let time = day + Double(hour) * 3600 + Double(k) * 600 + (k.isMultiple(of: 2) ? 86_400 : 0)
                _ = counter.add(Self.sweep(at: time, busy: k < busyCount ? [0] : []))
            }
        }
        _ = counter.finish()
        let table = OccupancyBusyHour.table(counter.timeOfDay)
        #expect(table.count == 8)
        #expect(table[0].hour == 14 && table[0].occupancy == 0.75 && table[0].samples == 4)
        #expect(table[1].hour == 2 && table[1].occupancy == 0)  // a tie at 0: the earliest hour measured
        let text = OccupancyLines.busyHour(table, output: .text)
        #expect(text[1].contains("14:00–15:00") && text[1].contains("75.0 %"))
    }

    @Test func theNoiseFloorIsTheNearestRankTenthPercentile() {
        var random = SystemRandomNumberGenerator()
        for count in [1, 2, 9, 10, 11, 100, 1001] {
            var values = (0..<count).map { _ in Float(Int.random(in: -90...(-20), using: &random)) }
            let sorted = values.sorted()
            let rank = OccupancyCounter.percentileRank(count: count)
            #expect(rank == Int((0.1 * Double(count)).rounded(.up)) - 1)
            #expect(OrderStatistic.select(&values, rank: rank) == sorted[rank], "\(count) values")
        }
    }

    @Test func autoThresholdScalesTheBinFloorToAChannel() throws {
        // 100 bins at −60 dB but for one at 0; channels of 10 bins: noise 10 dB above a bin's floor
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1000, timestamp: 0, powerDB: [Float](repeating: -60, count: 100))
        frame.powerDB[55] = 0
        let counter = OccupancyCounter(channels: .width(10_000), band: nil, threshold: .noiseRiding(marginDB: 3),
                                       intervalSeconds: nil)
        _ = counter.add(frame)
        let period = try #require(counter.finish())
        #expect(period.channels.map(\.occupied) == [0, 0, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(abs(try #require(period.channels[0].meanThresholdDB) - (-60 + 10 + 3)) < 1e-9)
        // with a noise bandwidth of 1.5 bins, ten bins of noise hold 10/1.5 noise bandwidths
        frame.noiseBandwidthHz = 1500
        let noise = OccupancyCounter.channelNoise(binNoiseDB: -60, channel: FrequencyRange(lowerHz: 0, upperHz: 10_000)!,
                                                  frame: frame, singleBin: false)
        #expect(abs(noise - (-60 + 10 * log10(10 / 1.5))) < 1e-9)
    }

    @Test func theChannelsFileTakesEdgesOrCentresAndNamesItsBadLines() throws {
        #expect(try OccupancyChannelsFile.parse("# PMR446\nstart_hz,stop_hz\n446000000,446012500\r\n\n446012500,446025000\n",
                                                file: "f.csv")
                == [FrequencyRange(lowerHz: 446_000_000, upperHz: 446_012_500)!,
                    FrequencyRange(lowerHz: 446_012_500, upperHz: 446_025_000)!])
        #expect(try OccupancyChannelsFile.parse("centre_hz,width_hz\n446006250,12500\n", file: "f.csv")
                == [FrequencyRange(lowerHz: 446_000_000, upperHz: 446_012_500)!])
        let bad: [(String, String)] = [
            ("", "f.csv: no channel in it"),
            ("start_hz,stop_hz\n2,1\n", "f.csv:2: expected start_hz below stop_hz"),
            ("low,high\n1,2\n", "f.csv:1: expected a header"),
            ("1,2\nx,3\n", "f.csv:2: expected start_hz,stop_hz in Hz"),
            ("centre_hz,width_hz\n5,-1\n", "f.csv:2: expected a width above 0 Hz"),
            ("1,nan\n", "f.csv:1: expected start_hz,stop_hz"),
            ("1\n", "f.csv:1: expected start_hz,stop_hz"),
        ]
        for (text, message) in bad {
            #expect(throws: CommandError.self) { try OccupancyChannelsFile.parse(text, file: "f.csv") }
            do {
                _ = try OccupancyChannelsFile.parse(text, file: "f.csv")
            } catch {
                #expect("\(error)".contains(message), "\(text): \(error)")
            }
        }
    }
}
