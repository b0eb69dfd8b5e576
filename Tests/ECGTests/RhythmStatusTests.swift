import Testing
@testable import ECG

@Suite struct RhythmStatusTests {
    @Test func onlyNormalIsNotAbnormal() {
        #expect(RhythmCode.allCases.filter { !$0.isAbnormal } == [.normal])
    }

    @Test func chunkHoldsCapacityPerLead() {
        let chunk = ECGChunk(leadCount: 3, capacity: 250)
        #expect(chunk.leads.count == 3)
        #expect(chunk.capacity == 250)
        #expect(chunk.count == 0)
    }
}
