import Foundation
import Signals
import Testing
@testable import DSP

/// Trace modes are applied to every sweep posted to the mailbox (full sweep
/// rate, device bins), not to the peak-held frames the view draws.
@Suite struct TraceModeTests {
    static func sweep(_ values: [Float], startHz: Double = 0) -> SpectrumFrame {
        SpectrumFrame(startHz: startHz, binWidthHz: 10, timestamp: 0, powerDB: values)
    }

    @Test func minHoldSeesEverySweepNotTheDrawnPeaks() {
        let mailbox = FrameMailbox()
        mailbox.traceMode = .min
        for values in [[-10, -50], [-40, -20], [-30, -30]] as [[Float]] { mailbox.post(Self.sweep(values)) }
        var drawn = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
        #expect(mailbox.take(into: &drawn) == 3)
        #expect(drawn.powerDB == [-10, -20], "the drawn frame peak-holds")
        var trace = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
        #expect(mailbox.takeTrace(into: &trace))
        #expect(trace.powerDB == [-40, -50], "min hold over all three sweeps")
    }

    @Test func maxHoldAndTheAverageOfTheLastNSweeps() {
        var high = TraceAccumulator(mode: .max)
        var mean = TraceAccumulator(mode: .average(2))
        for values in [[-10, -50], [-40, -20], [-30, -30]] as [[Float]] {
            high.add(Self.sweep(values))
            mean.add(Self.sweep(values))
        }
        var frame = Self.sweep([])
        #expect(high.write(into: &frame) && frame.powerDB == [-10, -20])
        #expect(mean.write(into: &frame))
        // the last two sweeps in linear power: (1e-4 + 1e-3) / 2 and (1e-2 + 1e-3) / 2
        #expect(abs(Double(frame.powerDB[0]) - 10 * log10(0.0011 / 2)) < 1e-4)
        #expect(abs(Double(frame.powerDB[1]) - 10 * log10(0.011 / 2)) < 1e-4)
        #expect(!TraceAccumulator(mode: .live).write(into: &frame))
    }

    @Test func aRetuneRestartsTheTraceAndSaysSo() {
        var high = TraceAccumulator(mode: .max)
        high.add(Self.sweep([0, 0]))
        high.add(Self.sweep([-5, -5, -5], startHz: 100))
        var frame = Self.sweep([])
        #expect(high.write(into: &frame) && frame.powerDB == [-5, -5, -5] && frame.startHz == 100)
        #expect(high.restartedByRetune && high.sweeps == 1)
        high.setMode(.min)
        #expect(!high.restartedByRetune && high.sweeps == 0)
    }

    @Test func modesParseAndCycle() {
        #expect(TraceMode(argument: "avg:4") == .average(4) && TraceMode(argument: "avg") == .average(16))
        #expect(TraceMode(argument: "avg:0") == nil && TraceMode(argument: "hold") == nil)
        #expect(TraceMode(argument: "avg:100") == .average(100) && TraceMode(argument: "avg:101") == nil)
        #expect(TraceMode.live.next == .max && TraceMode.max.next == .min && TraceMode.min.next == .average(16))
        #expect(TraceMode.average(4).next == .live && "\(TraceMode.max)" == "max hold")
    }
}
