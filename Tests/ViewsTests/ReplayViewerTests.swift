import DSP
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// A replayed file in memory: 120 s of frames every 0.5 s (100–120 MHz),
/// a noise floor, a carrier at 110 MHz and a one-frame burst at 115 MHz 50 s
/// in. Plays with the same affine clock as Capture's Playback.
final class FakeReplay: ReplayControl {
    static let start = 5_000_000.0
    static let burstOffset = 50.0
    let frames: [SpectrumFrame]
    private(set) var speed = 1.0
    private(set) var isPaused = false
    private var anchorWall: Double
    private var anchorFile: Double
    /// index of the next frame to hand out
    private var next = 0

    /// first frame's time [s]
    let first: Double
    let duration: Double

    convenience init(at wallClock: Double) {
        self.init(frames: (0..<241).map { index in
            var bins = [Float](repeating: -80, count: 2000)
            bins[1000] = -20
            if Double(index) * 0.5 == Self.burstOffset { bins[1500] = -10 }
            return SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: Self.start + Double(index) * 0.5,
                                 powerDB: bins)
        }, at: wallClock)
    }

    /// Plays `frames` (time-ordered, at least one).
    init(frames: [SpectrumFrame], at wallClock: Double) {
        self.frames = frames
        first = frames[0].timestamp
        duration = frames[frames.count - 1].timestamp - first
        anchorWall = wallClock
        anchorFile = first
    }

    func playhead(at wallClock: Double) -> Double {
        let raw = isPaused ? anchorFile : anchorFile + (wallClock - anchorWall) * speed
        return min(max(raw, first), first + duration)
    }

    func position(at wallClock: Double) -> Double { playhead(at: wallClock) - first }
    func isFinished(at wallClock: Double) -> Bool { next == frames.count }

    func advance(to wallClock: Double, deliver: (SpectrumFrame) -> Void) throws {
        let head = playhead(at: wallClock)
        while next < frames.count, frames[next].timestamp <= head {
            deliver(frames[next])
            next += 1
        }
    }

    func togglePause(at wallClock: Double) {
        anchorFile = playhead(at: wallClock)
        anchorWall = wallClock
        isPaused.toggle()
    }

    func stepSpeed(faster: Bool, at wallClock: Double) {
        anchorFile = playhead(at: wallClock)
        anchorWall = wallClock
        speed = min(max(faster ? speed * 2 : speed / 2, 0.25), 64)
    }

    func skip(by seconds: Double, at wallClock: Double) throws {
        try seek(toOffset: position(at: wallClock) + seconds, at: wallClock)
    }

    func seek(toOffset offset: Double, at wallClock: Double) throws {
        anchorFile = min(max(first + offset, first), first + duration)
        anchorWall = wallClock
        next = frames.firstIndex { $0.timestamp >= anchorFile } ?? frames.count
    }

    func refill(seconds: Double, at wallClock: Double, deliver: (SpectrumFrame) -> Void) throws {
        let head = playhead(at: wallClock)
        for frame in frames where frame.timestamp >= head - seconds && frame.timestamp < head { deliver(frame) }
    }
}

@Suite struct ReplayViewerTests {
    static let width = 160, height = 48

    func model(_ mode: AnalyzerMode) -> AnalyzerModel {
        let band = FrequencyRange(lowerHz: 100e6, upperHz: 120e6)!
        let model = AnalyzerModel(plot: SpectrumPlotModel(deviceLimits: band, visibleBand: band), mode: mode)
        let pixels = SpectrumPlotView.plotPixels(width: Self.width, height: Self.height)
        model.plot.resize(pixelColumns: pixels.columns, pixelRows: pixels.rows)
        return model
    }

    /// Waterfall rows (cell rows from the top of the image) showing the burst colour at 115 MHz.
    func burstRows(_ model: AnalyzerModel, now: Double) -> [Int] {
        var buffer = Buffer(width: Self.width, height: Self.height)
        AnalyzerScreen().render(model: model, frame: nil, status: fixedStatus, now: now, into: &buffer)
        let image = WaterfallView.dataRect(in: ScreenLayout(width: Self.width, height: Self.height, drawerOpen: false).main)
        let x = image.x + Int((115e6 - 100e6) / 20e6 * Double(image.width))
        let burst = PowerColorMap.color(normalized: 0.9)
        let burstColor = Color.rgb(burst.red, burst.green, burst.blue)
        return (0..<image.height).filter { y in
            let cell = buffer.cell(x: x, y: image.y + y)
            return cell?.foreground == burstColor || cell?.background == burstColor
        }
    }

    @Test func playingFeedsEveryFrameToTheHistoryAndTheLatestPeakToTheMailbox() throws {
        let replay = FakeReplay(at: 0)
        let model = model(.waterfall)
        let mailbox = FrameMailbox()
        try ReplayPump.advance(replay, model: model, mailbox: mailbox, at: 10)
        // file time 0…10 s: 21 frames in 21 half-second rows
        #expect(model.waterfall.history.count == 21)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
        #expect(mailbox.take(into: &frame) == 21)
        #expect(frame.timestamp == FakeReplay.start + 10)
        #expect(model.replay == ReplayState(speed: 1, isPaused: false, position: 10, duration: 120, isFinished: false))
    }

    /// --subtract-reference in a replay: the waterfall's rows, played and
    /// refilled after a jump, hold live − reference, as in a live view.
    @Test func aSubtractedReferenceReachesTheReplayedWaterfall() throws {
        let replay = FakeReplay(at: 0)
        let model = model(.waterfall)
        // the floor's level everywhere: the carrier's bin reads +60 dB over it, the floor 0 dB
        model.setReference([LevelPoint(hz: 100e6, decibels: -80), LevelPoint(hz: 120e6, decibels: -80)], subtract: true)
        let mailbox = FrameMailbox()
        func newestRow() -> [Float] { Array(model.waterfall.history.bins(model.waterfall.history.endSequence - 1)) }
        try ReplayPump.advance(replay, model: model, mailbox: mailbox, at: 10)
        var row = newestRow()
        #expect(row.max() == 60 && row.min() == 0, "max \(row.max()!), min \(row.min()!)")
        try ReplayPump.perform(.skip(seconds: 40), on: replay, model: model, mailbox: mailbox, at: 10)
        #expect(model.waterfall.history.count > 1)
        row = newestRow()
        #expect(row.max() == 60 && row.min() == 0, "after a jump: max \(row.max()!), min \(row.min()!)")
        // the mailbox (plot, meter) still gets the frames as recorded; the viewer subtracts on the shown frame
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
        #expect(mailbox.take(into: &frame) > 0 && frame.powerDB.max() == -20)
    }

    @Test func aPausedSeekRefillsTheWaterfallWithThePictureOfThatTime() throws {
        let replay = FakeReplay(at: 0)
        let model = model(.waterfall)
        let mailbox = FrameMailbox()
        // play to 100 s at ×64, then pause: the burst (50 s) is older than the 30 s period
        try ReplayPump.perform(.stepSpeed(faster: true), on: replay, model: model, mailbox: mailbox, at: 0)
        for _ in 0..<5 { try ReplayPump.perform(.stepSpeed(faster: true), on: replay, model: model, mailbox: mailbox, at: 0) }
        #expect(replay.speed == 64)
        try ReplayPump.advance(replay, model: model, mailbox: mailbox, at: 100.0 / 64)
        try ReplayPump.perform(.togglePause, on: replay, model: model, mailbox: mailbox, at: 100.0 / 64)
        #expect(model.isPaused)
        #expect(burstRows(model, now: replay.playhead(at: 2)).isEmpty)

        model.apply(.timeEntry(.begin), now: 0)
        for character in "1:00" { model.apply(.timeEntry(.type(character)), now: 0) }
        guard case .replay(let intent) = model.apply(.timeEntry(.commit), now: 0) else {
            Issue.record("Enter on a typed time asks for no seek")
            return
        }
        try ReplayPump.perform(intent, on: replay, model: model, mailbox: mailbox, at: 3)
        #expect(model.replay?.position == 60)
        #expect(model.replay?.isPaused == true)
        // refilled: the 30 s before 60 s, so the burst is 10 s below the top
        let history = model.waterfall.history
        #expect(history.info(history.startSequence).timestamp == FakeReplay.start + 30)
        #expect(history.info(history.endSequence - 1).timestamp == FakeReplay.start + 59.5)
        let rows = burstRows(model, now: replay.playhead(at: 4))
        let image = WaterfallView.dataRect(in: ScreenLayout(width: Self.width, height: Self.height, drawerOpen: false).main)
        let expectedRow = Int(10 * Double(image.height * 2) / 30 / 2)
        #expect(rows.count == 1)
        #expect(abs((rows.first ?? -10) - expectedRow) <= 1)
        // the plot shows the last frame before the playhead, not a peak over the period
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
        #expect(mailbox.take(into: &frame) == 1)
        #expect(frame.timestamp == FakeReplay.start + 59.5)
    }

    @Test func homeAndEndJumpToTheEdgesAndTheBadgeSaysEnd() throws {
        let replay = FakeReplay(at: 0)
        let model = model(.plot)
        let mailbox = FrameMailbox()
        try ReplayPump.perform(.toEnd, on: replay, model: model, mailbox: mailbox, at: 1)
        try ReplayPump.advance(replay, model: model, mailbox: mailbox, at: 1)
        #expect(model.replay?.badge == "REPLAY ×1 00:02:00 / 00:02:00 END")
        try ReplayPump.perform(.toStart, on: replay, model: model, mailbox: mailbox, at: 2)
        #expect(model.replay?.badge == "REPLAY ×1 00:00:00 / 00:02:00")
        try ReplayPump.perform(.skip(seconds: 10), on: replay, model: model, mailbox: mailbox, at: 2)
        try ReplayPump.perform(.skip(seconds: -4), on: replay, model: model, mailbox: mailbox, at: 2)
        #expect(model.replay?.position == 6)
    }
}

@Suite struct ReplayKeyTests {
    func key(_ text: String, _ model: AnalyzerModel) -> AnalyzerIntent? {
        guard case .event(let event, _) = InputParser.parse(Array(text.utf8)) else { return nil }
        return AnalyzerKeyMap.intent(for: event, model: model)
    }

    func replayModel(_ mode: AnalyzerMode = .plot) -> AnalyzerModel {
        let model = Scene.model(width: 80, height: 24, mode: mode)
        model.replay = ReplayState(speed: 1, isPaused: false, position: 0, duration: 60, isFinished: false)
        return model
    }

    @Test func replayKeys() {
        let model = replayModel()
        #expect(key("<", model) == .replay(.stepSpeed(faster: false)))
        #expect(key(",", model) == .replay(.stepSpeed(faster: false)))
        #expect(key(">", model) == .replay(.stepSpeed(faster: true)))
        #expect(key(".", model) == .replay(.stepSpeed(faster: true)))
        #expect(key("\u{1B}[1;2D", model) == .replay(.skip(seconds: -10)))   // shift+←
        #expect(key("\u{1B}[1;2C", model) == .replay(.skip(seconds: 10)))    // shift+→
        #expect(key("\u{1B}[D", model) == .plot(.pan(fractionOfSpan: -0.1)))  // plain ← still pans
        #expect(key("\u{1B}[H", model) == .replay(.toStart))
        #expect(key("\u{1B}[F", model) == .replay(.toEnd))
        #expect(key("g", model) == .timeEntry(.begin))
        // space reaches the model as the plot's pause, which a replay turns into its own
        #expect(key(" ", model) == .plot(.togglePause))
        #expect(model.apply(.plot(.togglePause), now: 0) == .replay(.togglePause))
        #expect(!model.plot.isPaused)
    }

    @Test func liveKeysAreUnchangedWithoutAReplay() {
        let model = Scene.model(width: 80, height: 24, mode: .waterfall)
        #expect(key("\u{1B}[H", model) == .scrollToNow)
        #expect(key("<", model) == nil)
        #expect(key("g", model) == nil)
        #expect(model.apply(.replay(.toEnd), now: 0) == AnalyzerEffect.none)
    }

    @Test func aTypedTimeTakesDigitsColonsAndEnter() {
        let model = replayModel()
        model.apply(.timeEntry(.begin), now: 0)
        #expect(key("1", model) == .timeEntry(.type("1")))
        #expect(key(":", model) == .timeEntry(.type(":")))
        #expect(key("q", model) == nil)          // typing: q is not quit
        #expect(key("\r", model) == .timeEntry(.commit))
        #expect(key("\u{7F}", model) == .timeEntry(.erase))
        #expect(AnalyzerKeyMap.intent(for: .key(KeyEvent(.escape)), model: model) == .timeEntry(.cancel))
        #expect(key("\u{3}", model) == .plot(.quit))   // Ctrl-C always quits
    }

    @Test func rRecordsInPlotAndWaterfallAndResetsTheMeterRRecordsEverywhere() {
        for mode in [AnalyzerMode.plot, .waterfall] {
            #expect(key("r", Scene.model(width: 80, height: 24, mode: mode)) == .toggleRecording)
        }
        let meter = Scene.model(width: 80, height: 24, mode: .meter)
        #expect(key("r", meter) == .resetMeter)
        for mode in AnalyzerMode.allCases {
            #expect(key("R", Scene.model(width: 80, height: 24, mode: mode)) == .toggleRecording)
        }
        #expect(meter.apply(.toggleRecording, now: 0) == .toggleRecording)
    }
}
