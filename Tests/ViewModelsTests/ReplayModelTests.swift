import Signals
import Testing
@testable import ViewModels

@Suite struct ReplayModelTests {
    func replayModel() -> AnalyzerModel {
        let band = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: band, visibleBand: band))
        model.replay = ReplayState(speed: 4, isPaused: false, position: 750, duration: 3600, isFinished: false)
        return model
    }

    @Test func typedTimesInSecondsMinutesAndHours() {
        #expect(ReplayState.parseTime("90") == 90)
        #expect(ReplayState.parseTime("12.5") == 12.5)
        #expect(ReplayState.parseTime("12:30") == 750)
        #expect(ReplayState.parseTime("1:02:03") == 3723)
        #expect(ReplayState.parseTime("0:00:07.25") == 7.25)
        for bad in ["", ":", "1:", ":30", "1:60", "1:2:3:4", "1.5:00", "abc", "-5", "1e3", "١٢"] {
            #expect(ReplayState.parseTime(bad) == nil, "\(bad)")
        }
    }

    @Test func theBadgeShowsSpeedPositionDurationAndEnd() {
        var state = ReplayState(speed: 4, isPaused: false, position: 750.9, duration: 3600, isFinished: false)
        #expect(state.badge == "REPLAY ×4 00:12:30 / 01:00:00")
        state.speed = 0.25
        state.position = 3600
        state.isFinished = true
        #expect(state.badge == "REPLAY ×0.25 01:00:00 / 01:00:00 END")
        #expect(ReplayState.clock(-3) == "00:00:00")
        #expect(ReplayState.clock(.nan) == "00:00:00")
        #expect(ReplayState.clock(100 * 3600 + 61) == "100:01:01")
    }

    @Test func aTypedTimeBecomesASeekAndABadOneANotice() {
        let model = replayModel()
        model.apply(.timeEntry(.begin), now: 0)
        #expect(model.timeEntry == "")
        for character in "12:345" { model.apply(.timeEntry(.type(character)), now: 0) }
        model.apply(.timeEntry(.erase), now: 0)
        #expect(model.timeEntry == "12:34")
        #expect(model.apply(.timeEntry(.commit), now: 0) == .replay(.seek(toOffset: 754)))
        #expect(model.timeEntry == nil)

        model.apply(.timeEntry(.begin), now: 0)
        for character in "9:99" { model.apply(.timeEntry(.type(character)), now: 0) }
        #expect(model.apply(.timeEntry(.commit), now: 0) == AnalyzerEffect.none)
        #expect(model.timeEntryNotice?.contains("expected seconds, m:ss or h:mm:ss") == true)
        // the next replay action clears the complaint
        #expect(model.apply(.replay(.toStart), now: 0) == .replay(.toStart))
        #expect(model.timeEntryNotice == nil)

        model.apply(.timeEntry(.begin), now: 0)
        model.apply(.timeEntry(.type("5")), now: 0)
        model.apply(.timeEntry(.cancel), now: 0)
        #expect(model.timeEntry == nil)
        #expect(model.apply(.timeEntry(.commit), now: 0) == AnalyzerEffect.none)
    }

    @Test func theTypedTextIsBounded() {
        let model = replayModel()
        model.apply(.timeEntry(.begin), now: 0)
        for _ in 0..<100 { model.apply(.timeEntry(.type("1")), now: 0) }
        #expect(model.timeEntry?.count == AnalyzerModel.timeEntryLimit)
    }

    @Test func pauseIsTheReplaysInAReplayAndThePlotsWhenLive() {
        let model = replayModel()
        #expect(model.apply(.plot(.togglePause), now: 0) == .replay(.togglePause))
        #expect(!model.isPaused)
        model.replay?.isPaused = true
        #expect(model.isPaused)
        model.replay = nil
        #expect(model.apply(.plot(.togglePause), now: 0) == .paused)
        #expect(model.isPaused)
        #expect(model.apply(.timeEntry(.begin), now: 0) == AnalyzerEffect.none)
        #expect(model.timeEntry == nil)
    }
}
