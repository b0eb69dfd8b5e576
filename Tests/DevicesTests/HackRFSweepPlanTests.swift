import Signals
import Testing
@testable import Devices
import DSP

@Suite struct HackRFSweepPlanTests {
    @Test func stopIsRoundedUpToWholeSteps() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 2400, stopMHz: 2485)], binWidthHz: 100_000)
        #expect(plan.ranges == [SweepRangeMHz(startMHz: 2400, stopMHz: 2500)])
        let exact = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 2400, stopMHz: 2480)], binWidthHz: 100_000)
        #expect(exact.ranges == [SweepRangeMHz(startMHz: 2400, stopMHz: 2480)])
        let tiny = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 100, stopMHz: 101)], binWidthHz: 100_000)
        #expect(tiny.ranges == [SweepRangeMHz(startMHz: 100, stopMHz: 120)])
    }

    @Test func fftSizeFollowsHackRFSweep() throws {
        // 20e6 / 100e3 = 200 → 204 (204 + 4 = 208, a multiple of 8)
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 0, stopMHz: 20)], binWidthHz: 100_000)
        #expect(plan.fftSize == 204)
        #expect(plan.binsPerQuarter == 51)
        #expect(abs(plan.binWidthHz - 20e6 / 204) < 1e-9)
    }

    @Test func aViewsBandPlanBringsAnyBinWidthIntoRange() throws {
        let band = FrequencyRange(lowerHz: 88.4e6, upperHz: 107.6e6)!
        let fine = try HackRFSweepPlan(band: band, binWidthHz: 1)
        #expect(fine.fftSize == 8180)
        #expect(fine.ranges == [SweepRangeMHz(startMHz: 88, stopMHz: 108)])
        let coarse = try HackRFSweepPlan(band: band, binWidthHz: 40e6)
        #expect(coarse.fftSize == 4)
        #expect(throws: HackRFPlanError.self) { try HackRFSweepPlan(band: band, binWidthHz: .nan) }
        // the headless path still refuses what hackrf_sweep refuses
        #expect(throws: HackRFPlanError.self) {
            try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 88, stopMHz: 108)], binWidthHz: 1)
        }
    }

    @Test func invalidRequestsAreRejectedWithClearErrors() {
        #expect(throws: HackRFPlanError.frequencyRange(startMHz: 100, stopMHz: 100)) {
            try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 100, stopMHz: 100)], binWidthHz: 1e5)
        }
        #expect(throws: HackRFPlanError.frequencyRange(startMHz: 7000, stopMHz: 7251)) {
            try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 7000, stopMHz: 7251)], binWidthHz: 1e5)
        }
        #expect(throws: HackRFPlanError.frequencyRange(startMHz: -1, stopMHz: 10)) {
            try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: -1, stopMHz: 10)], binWidthHz: 1e5)
        }
        let eleven = (0..<11).map { SweepRangeMHz(startMHz: $0 * 100, stopMHz: $0 * 100 + 20) }
        #expect(throws: HackRFPlanError.rangeCount(11)) { try HackRFSweepPlan(ranges: eleven, binWidthHz: 1e5) }
        #expect(throws: HackRFPlanError.rangeCount(0)) { try HackRFSweepPlan(ranges: [], binWidthHz: 1e5) }
        #expect(throws: HackRFPlanError.binWidth(2000)) {
            try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 0, stopMHz: 20)], binWidthHz: 2000)
        }
        #expect(throws: HackRFPlanError.binWidth(6e6)) {
            try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 0, stopMHz: 20)], binWidthHz: 6e6)
        }
        #expect(HackRFPlanError.rangeCount(11).description.contains("1 to 10"))
    }

    @Test func gainsAreValidatedAndRoundedDown() throws {
        let g = try HackRFGains(lnaDB: 21, vgaDB: 33)
        #expect(g.lnaDB == 16 && g.vgaDB == 32)
        #expect(throws: HackRFPlanError.self) { try HackRFGains(lnaDB: 48, vgaDB: 20) }
        #expect(throws: HackRFPlanError.self) { try HackRFGains(lnaDB: 16, vgaDB: 64) }
        #expect(throws: HackRFPlanError.self) { try HackRFGains(lnaDB: -8, vgaDB: 20) }
    }

    @Test func initSweepPayloadMatchesLibHackRF() throws {
        let plan = try HackRFSweepPlan(ranges: [SweepRangeMHz(startMHz: 2400, stopMHz: 2480),
                                                SweepRangeMHz(startMHz: 100, stopMHz: 120)], binWidthHz: 1e6)
        let request = plan.initSweepRequest
        #expect(request.value == 16384 && request.index == 0)
        #expect(request.payload == [0x00, 0x2d, 0x31, 0x01,   // 20 000 000 LE
                                    0xe0, 0x70, 0x72, 0x00,   // 7 500 000 LE
                                    0x01,                     // interleaved
                                    0x60, 0x09, 0xb0, 0x09,   // 2400, 2480
                                    0x64, 0x00, 0x78, 0x00])  // 100, 120
    }
}
