@testable import DSP
import Foundation
import Signals
import Testing
@testable import Runs

/// How a fleet's counts are put together and labelled (the counting itself,
/// inside PostgreSQL and in tscope, is checked end to end in PostgresOccupancyTests).
@Suite struct OccupancyFleetTests {
    static func channel(_ lowerHz: Double, samples: Int, occupied: Int, missing: Int = 0) -> OccupancyChannelCount {
        var count = OccupancyChannelCount(range: FrequencyRange(lowerHz: lowerHz, upperHz: lowerHz + 1_000)!)
        count.samples = samples
        count.occupied = occupied
        count.missing = missing
        count.thresholdSum = Double(samples) * -20
        return count
    }

    @Test func theTotalAddsEachChannelsCountsPerPeriodOverTheSensorsThatHaveIt() throws {
        let a = [OccupancyPeriod(start: 0, end: 60, sweeps: 10, channels: [Self.channel(1_000, samples: 10, occupied: 4),
                                                                            Self.channel(2_000, samples: 9, occupied: 9, missing: 1)]),
                 OccupancyPeriod(start: 60, end: 120, sweeps: 5, channels: [Self.channel(1_000, samples: 5, occupied: 0),
                                                                             Self.channel(2_000, samples: 5, occupied: 1)])]
        // the second sensor has the second channel and one of its own, and only the first minute
        let b = [OccupancyPeriod(start: 0, end: 60, sweeps: 20, channels: [Self.channel(2_000, samples: 20, occupied: 10),
                                                                            Self.channel(3_000, samples: 20, occupied: 5)])]
        let total = OccupancyFleetRun.total([a, b], byInterval: true)
        try #require(total.count == 2)
        #expect(total[0].sweeps == 30 && total[1].sweeps == 5)
        #expect(total[0].channels.map(\.range.lowerHz) == [1_000, 2_000, 3_000])
        #expect(total[0].channels.map(\.samples) == [10, 29, 20])
        #expect(total[0].channels.map(\.occupied) == [4, 19, 5])
        #expect(total[0].channels[1].missing == 1)
        #expect(total[0].channels[1].meanThresholdDB == -20)
        #expect(total[1] == a[1])
        // without an interval each sensor has one period: one total from the first sweep to the last
        let whole = OccupancyFleetRun.total([[OccupancyPeriod(start: 5, end: 50, sweeps: 3, channels: [Self.channel(1_000, samples: 3, occupied: 1)])],
                                             [OccupancyPeriod(start: 2, end: 40, sweeps: 4, channels: [Self.channel(1_000, samples: 4, occupied: 4)])]],
                                            byInterval: false)
        #expect(whole.count == 1 && whole[0].start == 2 && whole[0].end == 50 && whole[0].channels[0].occupied == 5)
    }

    @Test func eachLineNamesItsSensor() {
        #expect(OccupancyFleetRun.tagged(["{\"a\":1}"], sensor: "S\"1", output: .json) == ["{\"sensor\":\"S\\\"1\",\"a\":1}"])
        #expect(OccupancyFleetRun.tagged(["x,y"], sensor: "a,b", output: .csv) == ["\"a,b\",x,y"])
        #expect(OccupancyFleetRun.tagged(["band"], sensor: OccupancyFleetRun.allSensors, output: .text) == ["all sensors  band"])
    }
}
