import Testing
@testable import Devices

@Suite struct HackRFSweepCounterTests {
    @Test func ignoresBlocksBeforeTheFirstStartAndCountsReturns() {
        var counter = HackRFSweepCounter(firstStartHz: 100_000_000, sweepLimit: 2)
        #expect(counter.decide(frequencyHz: 105_000_000) == .skip)
        #expect(counter.decide(frequencyHz: 100_000_000) == .process)
        #expect(counter.decide(frequencyHz: 105_000_000) == .process)
        #expect(counter.decide(frequencyHz: 100_000_000) == .process)
        #expect(counter.completedSweeps == 1)
        #expect(counter.decide(frequencyHz: 105_000_000) == .process)
        #expect(counter.decide(frequencyHz: 100_000_000) == .finished)
        #expect(counter.completedSweeps == 2)
    }

    @Test func unlimitedRunsNeverFinish() {
        var counter = HackRFSweepCounter(firstStartHz: 0, sweepLimit: nil)
        for _ in 0..<1000 {
            #expect(counter.decide(frequencyHz: 0) == .process)
            #expect(counter.decide(frequencyHz: 5_000_000) == .process)
        }
        #expect(counter.completedSweeps == 999)
    }

    @Test func blocksAboveTheTuningLimitAreSkipped() {
        var counter = HackRFSweepCounter(firstStartHz: 7_240_000_000, sweepLimit: nil)
        #expect(counter.decide(frequencyHz: 7_240_000_000) == .process)
        #expect(counter.decide(frequencyHz: 7_260_000_000) == .skip)
    }
}
