import Signals
import Testing
@testable import Capture

/// A seekable reader over frames in memory.
final class MemoryFrameReader: SeekableSpectrumFrameReader {
    let frames: [SpectrumFrame]
    private var index = 0
    private(set) var seeks: [Double] = []

    init(_ frames: [SpectrumFrame]) { self.frames = frames }

    var metadata: CaptureMetadata { CaptureMetadata(format: "memory") }
    var skipped: Int { 0 }
    var progress: (done: Int, total: Int?) { (index, frames.count) }
    var frameCount: Int { frames.count }
    var timeRange: ClosedRange<Double>? { frames.isEmpty ? nil : frames.first!.timestamp...frames.last!.timestamp }

    func next(into frame: inout SpectrumFrame) throws -> Bool {
        guard index < frames.count else { return false }
        frame = frames[index]
        index += 1
        return true
    }

    func seek(toTime time: Double) throws {
        seeks.append(time)
        index = frames.firstIndex { $0.timestamp >= time } ?? frames.count
    }
}

@Suite struct PlaybackTests {
    /// 101 frames, one every 0.5 s from file time 1000 to 1050
    static func capture() -> MemoryFrameReader {
        MemoryFrameReader(makeFrames(count: 101, bins: 4, seed: 3, start: 1000, interval: 0.5))
    }

    func collect(_ playback: Playback, upTo wall: Double) throws -> [Double] {
        var times: [Double] = []
        try playback.frames(upTo: wall) { times.append($0.timestamp) }
        return times
    }

    @Test func playsAtRecordedSpeedFromTheFirstFrame() throws {
        let playback = try Playback(reader: Self.capture(), startingAt: 10)
        #expect(playback.playhead(at: 10) == 1000)
        #expect(try collect(playback, upTo: 10) == [1000])
        #expect(playback.playhead(at: 12.25) == 1002.25)
        #expect(try collect(playback, upTo: 12.25) == [1000.5, 1001, 1001.5, 1002])
        #expect(try collect(playback, upTo: 12.25).isEmpty)
    }

    @Test func speedScalesFileTimeAndIsClamped() throws {
        let playback = try Playback(reader: Self.capture(), startingAt: 0)
        playback.setSpeed(4, at: 1)        // 1 s at ×1 → 1001
        #expect(playback.playhead(at: 2) == 1005)
        #expect(try collect(playback, upTo: 2).count == 11)   // 1000 … 1005
        playback.setSpeed(0.25, at: 2)
        #expect(playback.playhead(at: 6) == 1006)
        playback.setSpeed(1000, at: 6)
        #expect(playback.speed == 64)
        playback.setSpeed(0.001, at: 6)
        #expect(playback.speed == 0.25)
        playback.stepSpeed(faster: true, at: 6)
        playback.stepSpeed(faster: true, at: 6)
        #expect(playback.speed == 1)
        playback.stepSpeed(faster: false, at: 6)
        playback.stepSpeed(faster: false, at: 6)
        playback.stepSpeed(faster: false, at: 6)
        #expect(playback.speed == 0.25)
    }

    @Test func pauseFreezesThePlayheadAndResumeContinuesFromIt() throws {
        let playback = try Playback(reader: Self.capture(), startingAt: 0)
        playback.pause(at: 3)
        #expect(playback.isPaused)
        #expect(playback.playhead(at: 100) == 1003)
        #expect(try collect(playback, upTo: 100).last == 1003)
        playback.resume(at: 100)
        #expect(playback.playhead(at: 101.5) == 1004.5)
        playback.togglePause(at: 102)
        #expect(playback.isPaused && playback.playhead(at: 500) == 1005)
    }

    @Test func seekAbsoluteAndRelativeWithinTheCapture() throws {
        let reader = Self.capture()
        let playback = try Playback(reader: reader, startingAt: 0)
        _ = try collect(playback, upTo: 5)
        try playback.seek(to: 1030.2, at: 5)
        #expect(playback.playhead(at: 5) == 1030.2)
        #expect(try collect(playback, upTo: 6) == [1030.5, 1031])
        try playback.skip(by: -10, at: 6)            // 1031.2 → 1021.2
        #expect(playback.playhead(at: 6) == 1021.2)
        #expect(try collect(playback, upTo: 6.5) == [1021.5])
        try playback.skip(by: 10, at: 6.5)           // 1021.7 → 1031.7
        #expect(abs(playback.playhead(at: 6.5) - 1031.7) < 1e-9)
        try playback.skip(by: -1000, at: 7)          // clamped to the start
        #expect(playback.playhead(at: 7) == 1000)
        try playback.seek(to: 5000, at: 7)           // clamped to the end
        #expect(playback.playhead(at: 8) == 1050)
        #expect(try collect(playback, upTo: 8) == [1050])
        #expect(playback.isFinished(at: 8))
        #expect(reader.seeks.count == 6 && reader.seeks.first == 1000 && reader.seeks.last == 1050)
    }

    @Test func theEndStopsThePlayhead() throws {
        let playback = try Playback(reader: Self.capture(), startingAt: 0)
        playback.setSpeed(64, at: 0)
        #expect(try collect(playback, upTo: 1).count == 101)
        #expect(playback.playhead(at: 1) == 1050 && playback.playhead(at: 99) == 1050)
        #expect(playback.isFinished(at: 1))
    }

    @Test func playsACaptureStore() throws {
        let directory = try TemporaryDirectory("playback")
        defer { directory.remove() }
        let frames = makeFrames(count: 40, bins: 16, seed: 8, start: 2000, interval: 0.25)
        let writer = try CaptureStoreWriter(path: directory.path("p.tscope"), metadata: CaptureMetadata(format: "tscope"),
                                            session: CaptureSessionInfo(startedAt: 2000))
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        let playback = try Playback(reader: try CaptureStoreReader(path: directory.path("p.tscope")), startingAt: 0)
        playback.setSpeed(2, at: 0)
        var got: [SpectrumFrame] = []
        try playback.frames(upTo: 2) { got.append($0) }   // 4 s of file time: 17 frames
        #expect(got.count == 17 && zip(got, frames).allSatisfy(identical))
        try playback.skip(by: 3, at: 2)
        got.removeAll()
        try playback.frames(upTo: 2) { got.append($0) }
        #expect(got.map(\.timestamp) == [2007])
    }
}
