import DSP
import Signals
import Testing
import ViewModels
@testable import Views

/// Every source feeds the analyzer's models through `AnalyzerModel.ingest(_:)`
/// (issue 43 item 3): the frames a replay's pump plays and the same frames
/// delivered as the live viewer delivers them leave the same models.
@Suite struct IngestTests {
    static let band = FrequencyRange(lowerHz: 100e6, upperHz: 120e6)!

    func model() -> AnalyzerModel {
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: Self.band, visibleBand: Self.band,
                                                          pixelColumns: 100, pixelRows: 40))
        model.persistence.configure(PersistenceGeometry(columns: 100, rows: 40, band: Self.band,
                                                        bottomDB: -100, topDB: 0))
        return model
    }

    /// The history views' state: every waterfall row's bins and the persistence's hits.
    func state(_ model: AnalyzerModel) -> (rows: [[Float]], hits: [Float], frames: Int) {
        let history = model.waterfall.history
        let rows = (history.startSequence..<history.endSequence).map { Array(history.bins($0)) }
        let hits = (0..<100).flatMap { column in (0..<40).map { model.persistence.hits(column: column, row: $0) } }
        return (rows, hits, model.persistence.framesAdded)
    }

    @Test func replayedAndLiveDeliveriesOfTheSameFramesLeaveTheSameModels() throws {
        let start = 1_000.0
        let replay = FakeReplay(at: start)
        let replayed = model()
        try ReplayPump.advance(replay, model: replayed, mailbox: FrameMailbox(), at: start + 60)
        let live = model()
        for frame in replay.frames where frame.timestamp <= FakeReplay.start + 60 {
            live.ingest(FrameDelivery(frame: frame))
        }
        let (a, b) = (state(replayed), state(live))
        #expect(a.frames == 121 && b.frames == 121)
        #expect(!a.rows.isEmpty)
        #expect(a.rows == b.rows)
        #expect(a.hits == b.hits)
    }

    func frame(at time: Double, level: Float) -> SpectrumFrame {
        SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: time, powerDB: [Float](repeating: level, count: 2000))
    }

    @Test func aFrozenPlotFreezesThePersistenceAndTheMeterNotTheHistory() {
        let model = model()
        model.ingest(FrameDelivery(frame: frame(at: 1, level: -50), bandPower: (-20, 1)))
        #expect(model.waterfall.history.endSequence == 1)
        #expect(model.persistence.framesAdded == 1)
        #expect(model.meter.latest == -20)
        model.apply(.plot(.togglePause), now: 1)
        model.ingest(FrameDelivery(frame: frame(at: 2, level: -40), bandPower: (-10, 2)))
        #expect(model.waterfall.history.endSequence == 2, "the waterfall keeps what arrives while paused")
        #expect(model.persistence.framesAdded == 1)
        #expect(model.meter.latest == -20)
    }

    @Test func theMeterReadsTheTraceWhenOneIsShownAndNothingWithoutASweep() throws {
        let model = model()
        // the viewer's delivery in a replay: no frame (the pump fed it), a reading
        model.ingest(FrameDelivery(frame: nil, bandPower: (-30, 1)))
        #expect(model.waterfall.history.endSequence == 0)
        #expect(model.meter.latest == -30)
        // a held trace: the meter measures it over the meter's band, not the sweeps' average
        let trace = frame(at: 2, level: -60)
        model.ingest(FrameDelivery(frame: nil, trace: trace, bandPower: (-30, 2)))
        let traced = try #require(BandPower.decibels(in: model.meterBand, of: trace))
        #expect(model.meter.latest == traced)
        // no sweep since the last delivery: no reading, trace or not
        model.ingest(FrameDelivery(frame: nil, trace: frame(at: 3, level: -70), bandPower: nil))
        #expect(model.meter.latest == traced)
    }
}
