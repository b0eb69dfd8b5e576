import Testing
@testable import DSP

@Suite struct LevelStatisticsTests {
    /// A plain reference: sort and take the percentile's rank.
    func reference(_ values: [Float], percentile: Double) -> Double {
        let sorted = values.filter { $0.isFinite }.sorted()
        return Double(sorted[Int(percentile * Double(sorted.count - 1))])
    }

    @Test func floorIsALowPercentileAndPeakTheLargestBin() throws {
        var random = SystemRandomNumberGenerator()
        // 1000 bins of noise around −90 dB and 80 station bins at −40 … −20 dB
        var values = (0..<1000).map { _ in Float.random(in: -93 ... -87, using: &random) }
        values += (0..<80).map { -40 + Float($0) / 4 }
        values.shuffle(using: &random)
        values.insert(.nan, at: 17)
        values.insert(-.infinity, at: 3)
        let statistics = LevelStatistics()
        let measured = try #require(statistics.measure(values))
        #expect(abs(measured.floorDB - reference(values, percentile: LevelStatistics.floorPercentile))
            <= Double(LevelStatistics.stepDB))
        #expect(measured.floorDB > -93 && measured.floorDB < -88)
        #expect(measured.peakDB == -20.25)
        // the same object measured again (the histogram is reused) gives the same answer
        #expect(statistics.measure(values)?.floorDB == measured.floorDB)
    }

    @Test func noFiniteBinGivesNothingAndOneBinIsBothEdges() throws {
        let statistics = LevelStatistics()
        #expect(statistics.measure([Float.nan, -.infinity]) == nil)
        #expect(statistics.measure([]) == nil)
        let single = try #require(statistics.measure([-42.1]))
        #expect(single.peakDB == Double(Float(-42.1)))
        #expect(single.floorDB <= single.peakDB && single.floorDB > -42.5)
    }
}
