import DSP
import Foundation
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// Replay counts the first frame in every view (issue 10 point 6): shaped
/// like the Osaka rtl_power capture (128 bins of 781.25 Hz from 88.05 MHz, a
/// sweep a second); the real files play in ReplayCommandTests.
@Suite struct ReplayFirstFrameTests {
    static let width = 160, height = 48
    static let band = FrequencyRange(lowerHz: 88.05e6, upperHz: 88.15e6)!

    func sweep(at time: Double, level: Float) -> SpectrumFrame {
        SpectrumFrame(startHz: 88.05e6, binWidthHz: 781.25, timestamp: time,
                      powerDB: [Float](repeating: level, count: 128))
    }

    func model(_ mode: AnalyzerMode) -> AnalyzerModel {
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: Self.band, visibleBand: Self.band), mode: mode)
        let pixels = SpectrumPlotView.plotPixels(width: Self.width, height: Self.height)
        model.plot.resize(pixelColumns: pixels.columns, pixelRows: pixels.rows)
        return model
    }

    /// band power of 128 bins at `level` [dB]
    func bandPower(_ level: Double) -> Double { level + 10 * log10(128) }

    /// Replays sweeps a second apart at `levels` in `mode`, advancing at each wall-clock time of `steps`.
    func play(_ levels: [Float], _ mode: AnalyzerMode, steps: [Double]) throws
        -> (replay: FakeReplay, model: AnalyzerModel, mailbox: FrameMailbox) {
        let replay = FakeReplay(frames: levels.enumerated().map { sweep(at: 1_542_511_920 + Double($0), level: $1) }, at: 0)
        let model = model(mode)
        let mailbox = FrameMailbox()
        for step in steps { try ReplayPump.advance(replay, model: model, mailbox: mailbox, at: step) }
        return (replay, model, mailbox)
    }

    @Test func aOneSweepReplayGivesTheMeterItsReading() throws {
        let (_, _, mailbox) = try play([-50], .meter, steps: [0])
        let power = try #require(mailbox.takeBandPower(), "the only sweep was not measured")
        #expect(power.frames == 1)
        #expect(abs(power.decibels - bandPower(-50)) < 1e-6)
    }

    @Test func aTwoSweepReplayMeasuresBothSweeps() throws {
        let (_, _, mailbox) = try play([-50, -40], .meter, steps: [0, 1])
        let power = try #require(mailbox.takeBandPower())
        #expect(power.frames == 2)
        let mean = 10 * log10((pow(10, bandPower(-50) / 10) + pow(10, bandPower(-40) / 10)) / 2)
        #expect(abs(power.decibels - mean) < 1e-6)
    }

    @Test func theWaterfallHoldsTheFirstSweepUntilTheSecondWithoutAGap() throws {
        let (replay, model, _) = try play([-50, -40], .waterfall, steps: [1])
        #expect(model.waterfall.history.count == 2)
        // the pixel rows of the view as drawn (two per cell row)
        var buffer = Buffer(width: Self.width, height: Self.height)
        AnalyzerScreen().render(model: model, frame: nil, status: fixedStatus, now: replay.playhead(at: 1), into: &buffer)
        let image = WaterfallView.dataRect(in: ScreenLayout(width: Self.width, height: Self.height, drawerOpen: false).main)
        var spans = [WaterfallRowSpan](repeating: .empty, count: image.height * 2)
        spans.withUnsafeMutableBufferPointer { model.waterfall.mapRows(now: replay.playhead(at: 1), into: $0) }
        let filled = spans.indices.filter { !spans[$0].isEmpty }
        let first = model.waterfall.history.startSequence
        #expect(filled.first == 0)
        // newest at the top, then the first sweep down to its own time: no empty pixel row between
        #expect(filled == Array(0...(filled.last ?? 0)), "empty pixel rows among \(filled)")
        #expect(spans.contains { $0.first <= first && first < $0.end })
        let secondsCovered = Double(filled.count) * model.waterfall.secondsPerPixel(pixelRows: spans.count)
        // the first sweep's second to the playhead at the second sweep
        #expect(secondsCovered >= 1, "\(secondsCovered) s drawn for two sweeps a second apart")
    }
}
