import ECG
import Testing
import ThreadKitTesting
@testable import ViewModels

@Suite struct ECGFeedTests {
    private func syntheticFeed(rate: Double, leads: Int = 2, episodes: [RhythmEpisode] = [],
                               clock: ManualClock) -> (ECGFeed, SyntheticECG, PacedSource) {
        var settings = SyntheticECGSettings()
        settings.sampleRate = rate
        settings.leadCount = leads
        settings.episodes = episodes
        settings.seed = 7
        let generator = SyntheticECG(settings: settings)
        let paced = PacedSource(generator, clock: { clock.now })
        return (ECGFeed(source: paced, sourceName: "synthetic"), generator, paced)
    }

    /// Runs `seconds` of frames at 30 fps, moving the clock.
    private func play(_ feed: ECGFeed, _ model: inout ECGMonitorModel, clock: ManualClock, seconds: Double) throws {
        for _ in 0..<Int(seconds * 30) {
            clock.advance(by: 1.0 / 30)
            _ = try feed.drain(into: &model, clock: { clock.now })
        }
    }

    @Test func syntheticSamplesGoThroughThePipelineIntoTheStripAtRealRate() throws {
        let clock = ManualClock(startingAt: 0)
        let (feed, _, paced) = syntheticFeed(rate: 250, clock: clock)
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 10))
        try play(feed, &model, clock: clock, seconds: 12)
        // 12 s at 250 Hz, paced from the first read (1/30 s in): the generator
        // is read no further than the clock allows
        #expect(abs(Double(paced.delivered) - (12 - 1.0 / 30) * 250) <= 2, "\(paced.delivered)")
        #expect(model.strip.endIndex == paced.delivered)
        #expect(feed.pipeline.sampleCount == paced.delivered)
        let heartRate = try #require(feed.heartRateBPM)
        #expect(abs(heartRate - 70) < 8, "\(heartRate)")
        #expect(feed.status.code == .normal, "\(feed.status)")
        #expect(model.events.count == 0)
    }

    @Test func theRateKeysDriveTheRealGeneratorAndThePipelineFollows() throws {
        let clock = ManualClock(startingAt: 0)
        let (feed, generator, paced) = syntheticFeed(rate: 250, leads: 12, clock: clock)
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 10))
        try play(feed, &model, clock: clock, seconds: 4)
        let before = paced.delivered
        guard case .setSampleRate(let hz) = model.apply(.stepSampleRate(1)) else {
            Issue.record("no rate effect")
            return
        }
        try feed.setSampleRate(hz)
        model.strip.changeSampleRate(hz)
        #expect(hz == 360)
        #expect(generator.sampleRate == 360)
        #expect(feed.pipeline.sampleRate == 360)
        try play(feed, &model, clock: clock, seconds: 15)
        #expect(abs(paced.delivered - before - 15 * 360) <= 4, "\(paced.delivered - before)")
        let heartRate = try #require(feed.heartRateBPM)
        #expect(abs(heartRate - 70) < 8, "\(heartRate)")
        #expect(feed.status.code == .normal, "\(feed.status)")
        #expect(model.events.count == 0, "\(model.events.events)")
    }

    @Test func aRecordsRateCannotBeChangedButItsSpeedCan() throws {
        let record = ECGRecord(name: "r", sampleRate: 100, leadNames: ["II"],
                               samples: [(0..<1000).map { Float($0 % 100) / 100 }])
        let clock = ManualClock(startingAt: 0)
        let paced = PacedSource(RecordSource(record: record), clock: { clock.now })
        let feed = ECGFeed(source: paced, sourceName: "r")
        #expect(!feed.canChangeSampleRate)
        #expect(throws: ECGError.self) { try feed.setSampleRate(360) }
        #expect(feed.setPlaybackSpeed(4))
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 10))
        try play(feed, &model, clock: clock, seconds: 1)
        #expect(abs(Double(paced.delivered) - (1 - 1.0 / 30) * 400) <= 2, "\(paced.delivered)")
        // a generator run in real time has no replay speed
        let (synthetic, _, _) = syntheticFeed(rate: 250, clock: clock)
        #expect(!synthetic.setPlaybackSpeed(2))
    }

    @Test func pauseStopsTheSourceAndResumeContinuesFromTheSameSample() throws {
        let clock = ManualClock(startingAt: 0)
        let (feed, _, paced) = syntheticFeed(rate: 250, clock: clock)
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 10))
        try play(feed, &model, clock: clock, seconds: 2)
        #expect(model.apply(.togglePause) == .setSourcePaused(true))
        feed.setPaused(true)
        let stoppedAt = paced.delivered
        try play(feed, &model, clock: clock, seconds: 3)
        #expect(paced.delivered == stoppedAt)
        #expect(model.apply(.togglePause) == .setSourcePaused(false))
        feed.setPaused(false)
        try play(feed, &model, clock: clock, seconds: 1)
        #expect(model.strip.endIndex == paced.delivered)
        #expect(abs(paced.delivered - stoppedAt - 250) <= 2)
        #expect(feed.pipeline.sampleCount == paced.delivered) // nothing skipped, nothing repeated
    }

    @Test func scriptedEpisodesReachTheEventListOncePerOnset() throws {
        let clock = ManualClock(startingAt: 0)
        let episodes = [RhythmEpisode(.bradycardia, start: 10, duration: 15)]
        let (feed, _, _) = syntheticFeed(rate: 250, episodes: episodes, clock: clock)
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 10))
        try play(feed, &model, clock: clock, seconds: 30)
        let codes = model.events.events.map(\.code)
        #expect(codes == [.bradycardia], "\(model.events.events)")
        let onset = try #require(model.events.events.first)
        #expect(onset.time > 10 && onset.time < 22, "\(onset.time)")
    }

    @Test func theStripShowsFilteredSamples() throws {
        // a constant 3 mV offset on the record: the 0.5 Hz high-pass removes it
        let record = ECGRecord(name: "offset", sampleRate: 250, leadNames: ["II"],
                               samples: [[Float](repeating: 3, count: 5000)])
        let clock = ManualClock(startingAt: 0)
        let feed = ECGFeed(source: PacedSource(RecordSource(record: record), clock: { clock.now }), sourceName: "offset")
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 10))
        try play(feed, &model, clock: clock, seconds: 12)
        let end = try #require(model.strip.endIndex)
        var shown = [Float](repeating: .nan, count: 100)
        shown.withUnsafeMutableBufferPointer { model.strip.history.copy(lead: 0, from: end - 100, into: $0) }
        #expect(shown.allSatisfy { abs($0) < 0.05 }, "\(shown.prefix(5))")
    }

    @Test func referenceBeatsAreSortedAndMarkedOnlyInTheCurrentSweep() throws {
        let record = ECGRecord(name: "r", sampleRate: 100, leadNames: ["II"], samples: [[Float](repeating: 0, count: 3000)])
        let clock = ManualClock(startingAt: 0)
        let feed = ECGFeed(source: PacedSource(RecordSource(record: record), clock: { clock.now }), sourceName: "r",
                           referenceBeats: [1500, 100, 700, 1250])
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 5))
        #expect(model.strip.referenceBeats == [100, 700, 1250, 1500])
        try play(feed, &model, clock: clock, seconds: 13)
        let end = try #require(model.strip.endIndex)
        // the sweep holds [end − 500 + gap, end); beats outside it are not marked
        var positions: [Int] = []
        model.strip.forEachVisibleReferenceBeat { positions.append($0) }
        let expected = [100, 700, 1250, 1500].filter { $0 >= end - 500 + model.strip.gapLength && $0 < end }.map { $0 % 500 }
        #expect(positions == expected, "end \(end)")
        #expect(!expected.isEmpty)
    }
}
