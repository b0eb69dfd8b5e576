import ECG
import Testing
@testable import ViewModels

@Suite struct ECGEventListModelTests {
    private func event(_ time: Double, _ code: RhythmCode = .bradycardia) -> RhythmEvent {
        RhythmEvent(time: time, code: code, heartRateBPM: 40)
    }

    @Test func newestFirstWithSelectionAndDelete() {
        var list = ECGEventListModel()
        #expect(list.deleteSelected() == nil)
        for t in [1.0, 2.0, 3.0] { list.append(event(t)) }
        list.toggleOpen()
        #expect(list.isOpen)
        #expect(list.selection == 0)
        #expect(list.event(newestFirst: 0)?.time == 3)
        list.moveSelection(by: 1)
        #expect(list.deleteSelected()?.time == 2)
        #expect(list.events.map(\.time) == [1, 3])
        #expect(list.event(newestFirst: list.selection!)?.time == 1) // moved on to the next older
        list.moveSelection(by: -5)
        #expect(list.selection == 0)
        list.append(event(4))
        #expect(list.event(newestFirst: list.selection!)?.time == 3) // selection stays on its event
        list.deleteSelected()
        list.deleteSelected()
        list.deleteSelected()
        #expect(list.count == 0)
        #expect(list.selection == nil)
    }

    @Test func aFullListDropsTheOldestAndCountsIt() {
        var list = ECGEventListModel(capacity: 3)
        for t in 1...5 { list.append(event(Double(t))) }
        #expect(list.events.map(\.time) == [3, 4, 5])
        #expect(list.droppedCount == 2)
    }
}

@Suite struct ECGLatencyMeterTests {
    @Test func quantilesOverTheRecentFrames() {
        var meter = ECGLatencyMeter(capacity: 100)
        #expect(meter.quantile(0.99) == nil)
        for ms in (1...100).reversed() { meter.record(seconds: Double(ms) / 1000) }
        #expect(meter.quantile(0.99) == 0.099)
        #expect(meter.quantile(0.5) == 0.050)
        meter.record(seconds: .nan)
        #expect(meter.count == 100)
        // the ring keeps the newest: 100 more of 1 ms push every larger one out
        for _ in 0..<100 { meter.record(seconds: 0.001) }
        #expect(meter.quantile(1) == 0.001)
    }
}

@Suite struct LatencyHistogramTests {
    @Test func quantilesOverTheWholeRunToTheMillisecond() {
        var histogram = LatencyHistogram(maximumSeconds: 1)
        #expect(histogram.quantile(0.99) == nil)
        // 1000 latencies 0.5, 1.5, …, 999.5 ms: nearest rank 990 is 989.5 ms, its bin's upper edge 990 ms
        for tenth in stride(from: 5, to: 10_000, by: 10) { histogram.record(seconds: Double(tenth) / 10_000) }
        #expect(histogram.count == 1000)
        #expect(abs(histogram.quantile(0.99)! - 0.990) < 1e-9)
        #expect(abs(histogram.quantile(0.5)! - 0.500) < 1e-9)
        #expect(abs(histogram.maximum - 0.9995) < 1e-9)
        // never below the true value, and capped by the largest seen
        #expect(histogram.quantile(1)! == histogram.maximum)
        histogram.record(seconds: -1)
        histogram.record(seconds: .infinity)
        #expect(histogram.count == 1000)
        // beyond the range: the last bin, and the maximum is the true one
        histogram.record(seconds: 7)
        #expect(histogram.maximum == 7 && histogram.quantile(1) == 7)
    }
}

@Suite struct ECGMonitorModelTests {
    static let twelve = ["i", "ii", "iii", "avr", "avl", "avf", "v1", "v2", "v3", "v4", "v5", "v6"]

    @Test func twelveLeadLayoutMatchesNamesWithoutCase() {
        let layout = ECGTwelveLeadLayout(leadNames: Self.twelve)
        #expect(layout.lead(row: 0, column: 0) == 0)   // I
        #expect(layout.lead(row: 0, column: 1) == 3)   // aVR
        #expect(layout.lead(row: 2, column: 3) == 11)  // V6
        #expect(layout.lead(row: 1, column: 2) == 7)   // V2
        #expect(layout.rhythmLead == 1)
        #expect(layout.isUseful)
        let mitdb = ECGTwelveLeadLayout(leadNames: ["V5", "MLII"])
        #expect(mitdb.rhythmLead == 1)
        #expect(mitdb.lead(row: 1, column: 3) == 0)     // V5
        #expect(mitdb.lead(row: 0, column: 0) == nil)
        #expect(!mitdb.isUseful)
        #expect(ECGTwelveLeadLayout(leadNames: []).rhythmLead == nil)
        // a KardiaMobile 6L EDF: six limb leads as "EKG I" … "EKG aVF", its rhythm strip lead II
        let kardia = ECGTwelveLeadLayout(leadNames: ["EKG I", "EKG II", "EKG III", "EKG aVR", "EKG aVL", "EKG aVF"])
        #expect(kardia.isUseful && kardia.rhythmLead == 1)
        #expect(kardia.lead(row: 0, column: 0) == 0 && kardia.lead(row: 0, column: 1) == 3
                && kardia.lead(row: 2, column: 1) == 5 && kardia.lead(row: 0, column: 2) == nil)
    }

    @Test func defaultLayoutFollowsTheSource() {
        let strip12 = ECGStripModel(leadNames: Self.twelve, sampleRate: 500)
        #expect(ECGMonitorModel(strip: strip12).layout == .twelveLead)
        let strip2 = ECGStripModel(leadNames: ["MLII", "V5"], sampleRate: 360)
        #expect(ECGMonitorModel(strip: strip2).layout == .strip)
    }

    @Test func intentsChangeTheModelAndAskForEffects() {
        var model = ECGMonitorModel(strip: ECGStripModel(leadNames: ["I", "II", "III"], sampleRate: 360))
        #expect(model.apply(.togglePause) == .setSourcePaused(true))
        #expect(model.strip.isPaused)
        #expect(model.apply(.stepSampleRate(1)) == .setSampleRate(500))
        #expect(model.strip.sampleRate == 360) // changes only once the source took it
        model.strip.changeSampleRate(1000)
        #expect(model.apply(.stepSampleRate(1)) == nil)
        #expect(model.apply(.stepRefreshRate(-1)) == .setRefreshRate(25))
        #expect(model.refreshRate == 25)
        #expect(model.apply(.stepRefreshRate(9)) == .setRefreshRate(60))
        #expect(model.apply(.toggleLayout) == nil)
        #expect(model.layout == .twelveLead)
        #expect(model.apply(.nextLeads) == nil)
        #expect(model.stripLeads(fitting: 1) == 1..<2)
        #expect(model.stripLeads(fitting: 3) == 0..<3) // all three fit: start from the first
        #expect(model.apply(.toggleEventList) == nil)
        #expect(model.events.isOpen)
        #expect(model.apply(.closeEventList) == nil)
        #expect(!model.events.isOpen)
        #expect(model.apply(.quit) == .quit)
    }
}
