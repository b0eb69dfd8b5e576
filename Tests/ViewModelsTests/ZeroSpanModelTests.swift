import DSP
import Signals
import Testing
@testable import ViewModels

/// The zero-span view's state (issue 45 item 1): what it asks of the
/// analyzer, its keys, and the traces it takes.
@Suite struct ZeroSpanModelTests {
    func model(mode: AnalyzerMode = .zerospan) -> AnalyzerModel {
        AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 0, upperHz: 6e9)!,
                                              visibleBand: FrequencyRange(lowerHz: 1020e6, upperHz: 1040e6)!,
                                              pixelColumns: 200, pixelRows: 80), mode: mode)
    }

    /// 1000 points over 10 ms: −80 dB, with 50 µs at −20 dB every 2.5 ms from point 100
    func pulses() -> [Float] {
        (0..<1000).map { k in
            let t = Double(k - 100) * 10e-6
            return t >= 0 && t.truncatingRemainder(dividingBy: 2.5e-3) < 50e-6 ? -20 : -80
        }
    }

    func info(_ number: Int) -> ZeroSpanTraceInfo {
        ZeroSpanTraceInfo(frequencyHz: 1030e6, rbwHz: 1e6, pointSeconds: 10e-6, sampleSeconds: 1.25e-7, trigger: nil,
                          preTriggerPoints: 0, unit: .dB, number: number, droppedSamples: 0, source: "test")
    }

    @Test func theViewAsksForZeroSpanAtTheBandsCentreAndTheOthersForASpectrum() throws {
        let analyzer = model()
        let tuning = analyzer.tuning
        let asked = try #require(tuning.zeroSpan)
        #expect(asked.frequencyHz == 1030e6)
        #expect(asked.rbwHz == 1e6 && asked.sweepSeconds == 10e-3 && asked.trigger == nil)
        for mode in AnalyzerMode.allCases where !mode.measuresZeroSpan {
            analyzer.apply(.show(mode), now: 0)
            #expect(analyzer.tuning.zeroSpan == nil, "\(mode)")
        }
        // ←/→ move the band, and zero span's frequency with it
        analyzer.apply(.show(.zerospan), now: 0)
        analyzer.apply(.plot(.pan(fractionOfSpan: 0.1)), now: 0)
        #expect((analyzer.tuning.zeroSpan?.frequencyHz ?? 0) > 1030e6)
    }

    @Test func bracketsStepTheSweepTimeAndWStepsTheRBWWithinTheirLists() {
        let analyzer = model()
        analyzer.apply(.stepZeroSpanSweep(1), now: 0)
        #expect(analyzer.tuning.zeroSpan?.sweepSeconds == 20e-3)
        analyzer.apply(.stepZeroSpanSweep(-100), now: 0)
        #expect(analyzer.tuning.zeroSpan?.sweepSeconds == ZeroSpanModel.sweepSteps[0])
        analyzer.apply(.stepZeroSpanRBW(-1), now: 0)
        #expect(analyzer.tuning.zeroSpan?.rbwHz == 300e3)
        analyzer.apply(.stepZeroSpanRBW(100), now: 0)
        #expect(analyzer.tuning.zeroSpan?.rbwHz == ZeroSpanModel.rbwSteps.last)
        // w in another view changes nothing
        analyzer.apply(.show(.plot), now: 0)
        analyzer.apply(.stepZeroSpanRBW(-3), now: 0)
        #expect(analyzer.zeroSpan.rbwHz == ZeroSpanModel.rbwSteps.last)
    }

    /// Types `text` into drawer field `field` and presses Enter.
    func type(_ text: String, into field: DrawerField, of analyzer: AnalyzerModel) {
        analyzer.apply(.drawer(.select(field)), now: 0)
        analyzer.apply(.drawer(.edit), now: 0)
        for c in text { analyzer.apply(.drawer(.type(c)), now: 0) }
        analyzer.apply(.drawer(.commit), now: 0)
    }

    /// The drawer's zero-span fields (d): RBW [kHz], sweep time [ms] and trigger level [dB] typed, the
    /// edge switched; each reaches what the analyzer is asked for, and a value out of range is refused in
    /// the drawer's notice, leaving the setting as it was.
    @Test func theDrawerTypesTheRBWSweepTimeAndTrigger() {
        let analyzer = model()
        #expect(analyzer.drawerFields == [.rangeStart, .rangeStop, .zeroSpanRBW, .zeroSpanSweep, .triggerLevel, .triggerEdge])
        #expect(analyzer.value(of: .zeroSpanRBW) == 1000 && analyzer.value(of: .zeroSpanSweep) == 10)
        #expect(analyzer.value(of: .triggerLevel).isNaN && analyzer.value(of: .triggerEdge) == 0)
        // values between the key steps
        type("250", into: .zeroSpanRBW, of: analyzer)
        type("3.5", into: .zeroSpanSweep, of: analyzer)
        #expect(analyzer.tuning.zeroSpan?.rbwHz == 250e3 && analyzer.tuning.zeroSpan?.sweepSeconds == 3.5e-3)
        // a typed level triggers, rising until the edge says otherwise
        type("-42.5", into: .triggerLevel, of: analyzer)
        #expect(analyzer.tuning.zeroSpan?.trigger == ZeroSpanTrigger(levelDB: -42.5, slope: .rising))
        analyzer.apply(.drawer(.select(.triggerEdge)), now: 0)
        analyzer.apply(.drawer(.commit), now: 0)
        #expect(analyzer.tuning.zeroSpan?.trigger == ZeroSpanTrigger(levelDB: -42.5, slope: .falling))
        #expect(analyzer.value(of: .triggerEdge) == -1)
        // next: free run; then the edge again, at the level it had
        analyzer.apply(.drawer(.adjust(steps: 1, large: false)), now: 0)
        #expect(analyzer.tuning.zeroSpan?.trigger == nil)
        analyzer.apply(.drawer(.adjust(steps: -1, large: false)), now: 0)
        #expect(analyzer.tuning.zeroSpan?.trigger == ZeroSpanTrigger(levelDB: -42.5, slope: .falling))
        // ←/→ on the level: a dB a step
        analyzer.apply(.drawer(.select(.triggerLevel)), now: 0)
        analyzer.apply(.drawer(.adjust(steps: 1, large: true)), now: 0)
        #expect(analyzer.tuning.zeroSpan?.trigger == ZeroSpanTrigger(levelDB: -32.5, slope: .falling))
        // a level typed while free running keeps the edge chosen last
        analyzer.apply(.toggleZeroSpanTrigger, now: 0)
        type("-60", into: .triggerLevel, of: analyzer)
        #expect(analyzer.tuning.zeroSpan?.trigger == ZeroSpanTrigger(levelDB: -60, slope: .falling))
        // out of range: refused, the notice says the range, nothing changes
        type("0.001", into: .zeroSpanRBW, of: analyzer)
        #expect(analyzer.notice?.hasPrefix("RBW: 10 Hz to 2.5 MHz") == true, "\(analyzer.notice ?? "")")
        #expect(analyzer.tuning.zeroSpan?.rbwHz == 250e3)
        type("120000", into: .zeroSpanSweep, of: analyzer)
        #expect(analyzer.notice?.hasPrefix("sweep:") == true && analyzer.tuning.zeroSpan?.sweepSeconds == 3.5e-3)
        type("500", into: .triggerLevel, of: analyzer)
        #expect(analyzer.notice?.hasPrefix("trigger:") == true && analyzer.tuning.zeroSpan?.trigger?.levelDB == -60)
        // a good value clears the notice
        type("100", into: .zeroSpanRBW, of: analyzer)
        #expect(analyzer.notice == nil && analyzer.tuning.zeroSpan?.rbwHz == 100e3)
    }

    /// The keys step from a typed value to the neighbouring steps of their lists, not from a list index.
    @Test func keysStepOnFromATypedValue() {
        let analyzer = model()
        type("250", into: .zeroSpanRBW, of: analyzer)
        analyzer.apply(.stepZeroSpanRBW(1), now: 0)
        #expect(analyzer.zeroSpan.rbwHz == 300e3)
        type("250", into: .zeroSpanRBW, of: analyzer)
        analyzer.apply(.stepZeroSpanRBW(-1), now: 0)
        #expect(analyzer.zeroSpan.rbwHz == 100e3)
        // beyond the list's ends a typed value stays put
        type("2000", into: .zeroSpanRBW, of: analyzer)
        analyzer.apply(.stepZeroSpanRBW(1), now: 0)
        #expect(analyzer.zeroSpan.rbwHz == 2e6)
        analyzer.apply(.stepZeroSpanRBW(-1), now: 0)
        #expect(analyzer.zeroSpan.rbwHz == 1e6)
        type("3.5", into: .zeroSpanSweep, of: analyzer)
        analyzer.apply(.stepZeroSpanSweep(2), now: 0)
        #expect(analyzer.zeroSpan.sweepSeconds == 10e-3)
        // the drawer's ←/→ on the RBW step as w/W do
        analyzer.apply(.drawer(.select(.zeroSpanRBW)), now: 0)
        analyzer.apply(.drawer(.adjust(steps: -1, large: false)), now: 0)
        #expect(analyzer.zeroSpan.rbwHz == 300e3)
    }

    @Test func tSetsATriggerHalfwayBetweenTheTracesFloorAndPeakAndTAgainFreesIt() {
        let analyzer = model()
        #expect(analyzer.mode.tKey == .toggleZeroSpanTrigger)
        analyzer.zeroSpan.show(levels: pulses(), info: info(1))
        analyzer.apply(.toggleZeroSpanTrigger, now: 0)
        #expect(analyzer.tuning.zeroSpan?.trigger == ZeroSpanTrigger(levelDB: -50, slope: .rising))
        analyzer.apply(.toggleZeroSpanTrigger, now: 0)
        #expect(analyzer.tuning.zeroSpan?.trigger == nil)
        // in the plot t is still the trace mode
        #expect(AnalyzerMode.plot.tKey == .cycleTrace)
    }

    @Test func tracesComeFromTheMailboxFitTheWindowOnceAndHoldWhilePaused() throws {
        let analyzer = model()
        let mailbox = ZeroSpanMailbox()
        pulses().withUnsafeBufferPointer { mailbox.post($0, info: info(1)) }
        analyzer.takeZeroSpan(from: mailbox)
        #expect(analyzer.zeroSpan.info?.number == 1)
        let train = try #require(analyzer.zeroSpan.train)
        // 4 pulses; their width and spacing from the points (each a positive peak of 80 samples)
        #expect(train.pulses.count == 4)
        #expect(abs((train.periodSeconds ?? 0) - 2.5e-3) < 10e-6)
        // the first trace fitted the dB window around −80…−20
        #expect(analyzer.plot.referenceLevelDB > -20 && analyzer.plot.bottomLevelDB < -80)
        // held (space): the next trace waits in the mailbox
        analyzer.apply(.plot(.togglePause), now: 0)
        pulses().withUnsafeBufferPointer { mailbox.post($0, info: info(2)) }
        analyzer.takeZeroSpan(from: mailbox)
        #expect(analyzer.zeroSpan.info?.number == 1)
        analyzer.apply(.plot(.togglePause), now: 0)
        analyzer.takeZeroSpan(from: mailbox)
        #expect(analyzer.zeroSpan.info?.number == 2)
        // leaving the view forgets the trace; coming back waits for a new one
        analyzer.apply(.show(.plot), now: 0)
        #expect(analyzer.zeroSpan.info == nil && analyzer.zeroSpan.levels.isEmpty)
    }

    /// A flat trace (a tinySA's −39 dBm carrier, every point alike) fits with the trace in the middle of the
    /// window, not at its bottom; the first traces after entering the view all fit it (the first one may be
    /// taken while the analyzer settles), until the user sets the levels; `a` fits it again at any time.
    @Test func aFlatTraceSitsInTheMiddleAndTheFirstTracesFitTheWindow() {
        let analyzer = model()
        let mailbox = ZeroSpanMailbox()
        func post(_ level: Float, _ number: Int) {
            [Float](repeating: level, count: 450).withUnsafeBufferPointer { mailbox.post($0, info: info(number)) }
            analyzer.takeZeroSpan(from: mailbox)
        }
        func middle() -> Double { (analyzer.plot.bottomLevelDB + analyzer.plot.referenceLevelDB) / 2 }
        // a first trace from before the unit settled, then the carrier
        post(-100, 1)
        #expect(abs(middle() - -100) <= 1, "\(analyzer.plot.bottomLevelDB)…\(analyzer.plot.referenceLevelDB)")
        post(-39.219, 2)
        let window = (analyzer.plot.bottomLevelDB, analyzer.plot.referenceLevelDB)
        #expect(abs(middle() - -39.219) <= 1, "\(window)")
        #expect(window.1 - window.0 == SpectrumPlotModel.autoMinimumSpanDB)
        // a trace within the tolerance leaves the window be (no shimmer)
        post(-38, 3)
        #expect(analyzer.plot.bottomLevelDB == window.0 && analyzer.plot.referenceLevelDB == window.1)
        // the levels set by hand: no more fitting
        analyzer.apply(.shiftLevels(decibels: 10), now: 0)
        post(-80, 4)
        #expect(abs(middle() - -29.219) <= 1, "\(analyzer.plot.bottomLevelDB)…\(analyzer.plot.referenceLevelDB)")
        // a fits the newest trace again
        analyzer.apply(.plot(.autoscale), now: 0)
        #expect(abs(middle() - -80) <= 1)
        // after the fitted traces the window stays where it is
        analyzer.apply(.show(.plot), now: 0)
        analyzer.apply(.show(.zerospan), now: 0)
        for number in 1...ZeroSpanModel.fittedTraces { post(-60, number) }
        #expect(abs(middle() - -60) <= 1)
        post(-20, 9)
        #expect(abs(middle() - -60) <= 1)
    }

    @Test func theMailboxKeepsOnlyTheNewestTraceAndReusesItsStorage() {
        let mailbox = ZeroSpanMailbox()
        var levels: [Float] = []
        #expect(mailbox.take(into: &levels) == nil)
        [Float](repeating: -1, count: 10).withUnsafeBufferPointer { mailbox.post($0, info: info(1)) }
        [Float](repeating: -2, count: 10).withUnsafeBufferPointer { mailbox.post($0, info: info(2)) }
        #expect(mailbox.take(into: &levels)?.number == 2)
        #expect(levels == [Float](repeating: -2, count: 10))
        #expect(mailbox.take(into: &levels) == nil)
    }
}
