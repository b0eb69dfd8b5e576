import Signals
import Testing
@testable import DSP

@Suite struct EventDetectionTests {
    static let band = FrequencyRange(lowerHz: 0, upperHz: 1000)!

    /// A sweep of ten 100 Hz bins at `time` [s], all at `floor` but `hot` bins at `level`.
    static func sweep(_ time: Double, level: Float = -20, hot: [Int] = [], floor: Float = -80) -> SpectrumFrame {
        var values = [Float](repeating: floor, count: 10)
        for i in hot { values[i] = level }
        return SpectrumFrame(startHz: 0, binWidthHz: 100, timestamp: time, powerDB: values)
    }

    static func run(_ tracker: inout SweepEventTracker, _ sweeps: [SpectrumFrame]) -> [DetectedEvent] {
        var closed: [DetectedEvent] = []
        for sweep in sweeps {
            for case .closed(let event) in tracker.add(sweep) { closed.append(event) }
        }
        if let last = tracker.finish() { closed.append(last) }
        return closed
    }

    @Test func aBurstInOneSweepIsAnEventWithItsExtentAndPeak() {
        var tracker = SweepEventTracker(condition: .above(-50), band: Self.band)
        let events = Self.run(&tracker, [Self.sweep(0), Self.sweep(1, hot: [3, 4]), Self.sweep(2), Self.sweep(3)])
        #expect(events.count == 1)
        let event = events[0]
        #expect(event.start == 1 && event.end == 1 && event.sweeps == 1)
        #expect(event.startHz == 300 && event.stopHz == 500 && event.peakHz == 350 && event.peakDB == -20)
    }

    @Test func forDelaysTheOnsetAndABreakRestartsIt() {
        var tracker = SweepEventTracker(condition: .above(-50), band: Self.band, holdSeconds: 2)
        let sweeps = [Self.sweep(0, hot: [1]), Self.sweep(1, hot: [1]), Self.sweep(2),  // held 1 s: no event
                      Self.sweep(3, hot: [2]), Self.sweep(4, hot: [2]), Self.sweep(5, level: -10, hot: [2]), Self.sweep(6)]
        var opened: [DetectedEvent] = []
        var closed: [DetectedEvent] = []
        for sweep in sweeps {
            for output in tracker.add(sweep) {
                switch output {
                case .opened(let event): opened.append(event)
                case .closed(let event): closed.append(event)
                }
            }
        }
        #expect(opened.count == 1 && opened[0].start == 3 && opened[0].end == 5)
        #expect(closed.count == 1 && closed[0].start == 3 && closed[0].end == 5 && closed[0].sweeps == 3)
        #expect(closed[0].peakDB == -10)
    }

    @Test func hysteresisKeepsAnEventOpenUntilEveryBinFallsBelowTheLimitMinusIt() {
        var tracker = SweepEventTracker(condition: .above(-50), band: Self.band, hysteresisDB: 6)
        // -53 dB: below the limit, not 6 dB below it, so the event stays open (the sweep is not counted)
        let events = Self.run(&tracker, [Self.sweep(0, hot: [5]), Self.sweep(1, level: -53, hot: [5]),
                                         Self.sweep(2, hot: [5]), Self.sweep(3, level: -57, hot: [5]), Self.sweep(4, hot: [5])])
        #expect(events.count == 2, "\(events)")
        #expect(events[0].start == 0 && events[0].end == 2 && events[0].sweeps == 2)
        #expect(events[1].start == 4 && events[1].end == 4)
    }

    @Test func maskLimitsInterpolateLinearlyAndHoldTheirEndValues() {
        let points = [LevelPoint(hz: 200, decibels: -40), LevelPoint(hz: 600, decibels: -80)]
        #expect(LevelPoint.interpolate(points, at: 100) == -40)
        #expect(LevelPoint.interpolate(points, at: 400) == -60)
        #expect(LevelPoint.interpolate(points, at: 900) == -80)
        let limits = EventCondition.mask(points).limits(startHz: 0, binWidthHz: 100, count: 10)
        #expect(limits[3] == -55 && limits[0] == -40 && limits[9] == -80)
        // a -70 dB signal crosses the mask only where it has fallen below -70: bins centred above 500 Hz
        var tracker = SweepEventTracker(condition: .mask(points), band: Self.band)
        let events = Self.run(&tracker, [Self.sweep(0, level: -70, hot: [2, 3, 4, 5, 6], floor: -90)])
        #expect(events.count == 1 && events[0].startHz == 500 && events[0].stopHz == 700, "\(events)")
    }

    @Test func aLearnedBaselineIsThePerBinMedianOfItsWindow() throws {
        var learner = BaselineLearner(seconds: 3)
        for (t, level) in [(0.0, Float(-70)), (1, -60), (2, -65)] {
            #expect(learner.add(Self.sweep(t, level: level, hot: [0], floor: -90)) == nil)
        }
        let learned = learner.add(Self.sweep(3))
        let baseline = try #require(learned)
        #expect(baseline.count == 10 && baseline[0].decibels == -65 && baseline[0].hz == 50 && baseline[5].decibels == -90)
        var tracker = SweepEventTracker(condition: .overBaseline(offsetDB: 10, baseline: baseline), band: Self.band)
        // bin 0 at -58 is 7 dB over its baseline; bin 5 at -78 is 12 dB over its own
        let events = Self.run(&tracker, [Self.sweep(4, level: -58, hot: [0]), Self.sweep(5, level: -78, hot: [5])])
        #expect(events.count == 1 && events[0].start == 5 && events[0].peakHz == 550, "\(events)")
    }
}
