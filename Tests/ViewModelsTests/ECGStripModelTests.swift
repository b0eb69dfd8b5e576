import ECG
import Testing
@testable import ViewModels

@Suite struct ECGStripModelTests {
    private func sweep(_ model: ECGStripModel, lead: Int = 0, from start: Int = 0, count: Int? = nil) -> [Float] {
        var out = [Float](repeating: 12345, count: count ?? model.sweepLength)
        out.withUnsafeMutableBufferPointer { model.sweep(lead: lead, fromPosition: start, into: $0) }
        return out
    }

    @Test func newSamplesOverwriteFromTheLeftWithAGapAhead() {
        // 100 Hz × 2.5 s: 250 positions, gap ⌈250/40⌉ = 7
        var model = ECGStripModel(leadNames: ["II"], sampleRate: 100, stripSeconds: 2.5)
        #expect(model.sweepLength == 250)
        #expect(model.gapLength == 7)
        model.append(ecgChunk(leads: 1, first: 0, count: 300) { _, i in Float(i) })
        let shown = sweep(model)
        // cursor at 300 mod 250 = 50: positions 0–49 are this sweep (250…299),
        // 50–56 the gap, 57–249 the previous sweep (57…249)
        for p in 0..<50 { #expect(shown[p] == Float(250 + p)) }
        for p in 50..<57 { #expect(shown[p].isNaN, "gap at \(p)") }
        for p in 57..<250 { #expect(shown[p] == Float(p)) }
    }

    @Test func aPartialSweepReadsTheSamePositions() {
        var model = ECGStripModel(leadNames: ["I", "II"], sampleRate: 100, stripSeconds: 2.5)
        model.append(ecgChunk(leads: 2, first: 0, count: 420))
        let full = sweep(model, lead: 1)
        let part = sweep(model, lead: 1, from: 100, count: 60)
        #expect(zip(part, full[100..<160]).allSatisfy { $0.isNaN && $1.isNaN || $0 == $1 })
        // past the strip's end: nothing
        #expect(sweep(model, from: 240, count: 20)[10...].allSatisfy { $0.isNaN })
    }

    @Test func beforeTheFirstSweepCompletesTheRightIsEmpty() {
        var model = ECGStripModel(leadNames: ["II"], sampleRate: 100, stripSeconds: 2.5)
        model.append(ecgChunk(leads: 1, first: 0, count: 100) { _, _ in 1 })
        let shown = sweep(model)
        #expect(shown[0..<100].allSatisfy { $0 == 1 })
        #expect(shown[100...].allSatisfy { $0.isNaN })
    }

    @Test func pausedTheTraceFreezesAndResumesWhereTheClockIsNow() {
        var model = ECGStripModel(leadNames: ["II"], sampleRate: 100, stripSeconds: 2.5)
        model.append(ecgChunk(leads: 1, first: 0, count: 100) { _, _ in 1 })
        model.togglePause()
        model.append(ecgChunk(leads: 1, first: 100, count: 50) { _, _ in 2 })
        #expect(model.isPaused)
        #expect(model.endIndex == 100)
        let frozen = sweep(model)
        model.togglePause()
        model.append(ecgChunk(leads: 1, first: 150, count: 20) { _, _ in 3 })
        let resumed = sweep(model)
        #expect(frozen[0..<100].allSatisfy { $0 == 1 })
        #expect(resumed[0..<100].allSatisfy { $0 == 1 })
        #expect(resumed[100..<150].allSatisfy { $0.isNaN })   // what came while paused is not shown
        #expect(resumed[150..<170].allSatisfy { $0 == 3 })
    }

    @Test func stripLengthAndGainStepWithinTheirRanges() {
        var model = ECGStripModel(leadNames: ["II"], sampleRate: 250, stripSeconds: 5)
        model.stepStripLength(by: 1)
        #expect(model.stripSeconds == 7.5)
        model.stepStripLength(by: 5)
        #expect(model.stripSeconds == 10)
        model.stepStripLength(by: -9)
        #expect(model.stripSeconds == 2.5)
        model.setStripSeconds(60)
        #expect(model.stripSeconds == 10)
        #expect(model.sweepLength == 2500)
        model.stepGain(by: 1)
        #expect(model.gainMillimetresPerMillivolt == 20)
        model.stepGain(by: -10)
        #expect(model.gainMillimetresPerMillivolt == 2.5)
    }

    @Test func aNewSampleRateRestartsTheHistory() {
        var model = ECGStripModel(leadNames: ["II"], sampleRate: 250, stripSeconds: 10)
        model.append(ecgChunk(leads: 1, first: 0, count: 500))
        model.changeSampleRate(1000)
        #expect(model.sampleRate == 1000)
        #expect(model.sweepLength == 10_000)
        #expect(model.endIndex == nil)
        #expect(model.history.capacity >= 10_000)
        #expect(sweep(model).allSatisfy { $0.isNaN })
        model.append(ecgChunk(leads: 1, first: 500, count: 10))
        #expect(sweep(model)[500] == 500)
    }
}
