import Foundation
import Signals
import Testing
import ThreadKitTesting
@testable import Capture

@Suite struct RecordingSessionTests {
    @Test func fileNameFromOperatorLabelAndUTCStart() {
        // 2026-11-21 10:15:00 UTC
        let start = 1_795_256_100.75
        #expect(CaptureFileName.make(operatorName: "bench2", label: "fm-survey", startedAt: start)
            == "bench2_fm-survey_20261121T101500Z.tscope")
        #expect(CaptureFileName.make(operatorName: nil, label: "fm survey/2 ", startedAt: start)
            == "fm-survey-2_20261121T101500Z.tscope")
        #expect(CaptureFileName.make(operatorName: "a_b", label: "", startedAt: start) == "a-b_20261121T101500Z.tscope")
        #expect(CaptureFileName.make(operatorName: nil, label: nil, startedAt: 0) == "19700101T000000Z.tscope")
    }

    @Test func sameSecondGetsANumberedName() throws {
        let directory = try TemporaryDirectory("names")
        defer { directory.remove() }
        let name = "x_20261121T101500Z.tscope"
        #expect(CaptureFileName.unused(name, in: directory.url.path) == directory.path(name))
        _ = FileManager.default.createFile(atPath: directory.path(name), contents: Data())
        #expect(CaptureFileName.unused(name, in: directory.url.path) == directory.path("x_20261121T101500Z-2.tscope"))
    }

    @Test func durationEndsTheSessionAndLaterFramesAreNotStored() throws {
        let directory = try TemporaryDirectory("duration")
        defer { directory.remove() }
        let clock = ManualClock(startingAt: 50)
        let wall = ManualClock(startingAt: 1_795_256_100)
        let recorder = RecordingSession(commitInterval: 1, clock: clock, wallClock: { wall.now })
        let plan = RecordingSession.Plan(output: .directory(directory.url.path), label: "fm", operatorName: "op",
                                         duration: 2)
        let path = try recorder.start(plan)
        #expect(path == directory.path("op_fm_20261121T101500Z.tscope"))
        #expect(recorder.remaining == 2 && !recorder.isComplete)
        let frames = makeFrames(count: 24, bins: 32, seed: 9)
        for frame in frames {
            clock.advance(by: 0.125)
            recorder.post(frame)
        }
        // 3 s of frames posted; only the first 2 s (16 frames, the last at exactly 2 s) belong to the session
        #expect(recorder.isComplete && recorder.remaining == 0 && recorder.elapsed == 2)
        let summary = try #require(try recorder.stop(deviceDroppedBlocks: 0))
        #expect(summary.frames == 16 && summary.elapsed == 2 && summary.achievedFrameRate == 8)
        #expect(!recorder.isRecording)
        let reader = try CaptureStoreReader(path: path)
        #expect(zip(try readAll(reader), frames.prefix(16)).allSatisfy(identical))
        #expect(reader.frameCount == 16)
        #expect(reader.sessions.first?.stoppedAt == 1_795_256_102)
        #expect(reader.metadata.label == "fm" && reader.metadata.operatorName == "op")
    }

    @Test func severalSessionsInARowEachGetAFileAndTheirCounters() throws {
        let directory = try TemporaryDirectory("sessions")
        defer { directory.remove() }
        let clock = ManualClock(startingAt: 0)
        let wall = ManualClock(startingAt: 1_795_256_100)
        let recorder = RecordingSession(clock: clock, wallClock: { wall.now })
        var summaries: [RecordingSession.Summary] = []
        for (index, count) in [4, 6, 3].enumerated() {
            try recorder.start(.init(output: .directory(directory.url.path), label: "s\(index)", requestedFrameRate: nil),
                               deviceDroppedBlocks: 100 * index)
            for frame in makeFrames(count: count, bins: 16, seed: UInt64(index)) {
                clock.advance(by: 0.5)
                recorder.post(frame)
            }
            summaries.append(try #require(try recorder.stop(deviceDroppedBlocks: 100 * index + index)))
            wall.advance(by: 60)
        }
        recorder.post(makeFrames(count: 1, bins: 16, seed: 0)[0])  // idle: ignored
        #expect(summaries.map(\.frames) == [4, 6, 3])
        #expect(summaries.map(\.droppedBlocks) == [0, 1, 2])
        #expect(summaries.map(\.achievedFrameRate) == [2, 2, 2])
        #expect(Set(summaries.map(\.path)).count == 3)
        for summary in summaries {
            let reader = try CaptureStoreReader(path: summary.path)
            #expect(reader.frameCount == summary.frames)
            #expect(reader.sessions.first?.droppedBlocks == summary.droppedBlocks)
            #expect(reader.sessions.first?.achievedFrameRate == 2)
        }
    }

    @Test func requestedRateKeepsPeaksOfTheFramesBetweenStoredFrames() throws {
        let directory = try TemporaryDirectory("peak")
        defer { directory.remove() }
        let clock = ManualClock(startingAt: 0)
        let recorder = RecordingSession(clock: clock, wallClock: { 1_795_256_100 })
        let path = try recorder.start(.init(output: .file(directory.path("p.tscope")), requestedFrameRate: 2))
        // 10 frames per second of −100 dB with one −20 dB burst in bin 5 of the 3rd frame
        for index in 0..<20 {
            var power = [Float](repeating: -100, count: 8)
            if index == 2 { power[5] = -20 }
            if index == 3 { power[0] = .nan }
            recorder.post(SpectrumFrame(startHz: 1e6, binWidthHz: 1e3, timestamp: Double(index) / 10, powerDB: power))
            clock.advance(by: 0.1)
        }
        let summary = try #require(try recorder.stop())
        let frames = try readAll(try CaptureStoreReader(path: path))
        // stored at t = 0 (the first frame), then each 0.5 s: 0.5, 1.0, 1.5
        #expect(frames.map(\.timestamp) == [0, 0.5, 1.0, 1.5])
        #expect(frames[1].powerDB[5] == -20, "the burst is held into the next stored frame")
        #expect(frames.allSatisfy { !$0.powerDB[0].isNaN })
        #expect(summary.frames == 4 && summary.requestedFrameRate == 2)
    }

    @Test func queueDropsTheOldestWhenTheWriterFallsBehind() {
        let queue = RecordingFrameQueue(capacity: 3)
        for frame in makeFrames(count: 5, bins: 4, seed: 1) { queue.post(frame) }
        #expect(queue.dropped == 2)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var times: [Double] = []
        while queue.take(into: &frame, timeout: 0) == .frame { times.append(frame.timestamp) }
        #expect(times == makeFrames(count: 5, bins: 4, seed: 1).suffix(3).map(\.timestamp))
        queue.close()
        #expect(queue.take(into: &frame, timeout: 0) == .closed)
    }

    @Test func peakHoldMatchesAPlainMaximum() {
        var random = SeededRandom(seed: 11)
        let frames = (0..<6).map { i in
            SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: Double(i),
                          powerDB: (0..<64).map { _ in random.unit() < 0.1 ? .nan : Float(random.unit() * -90) })
        }
        var hold = PeakHold()
        for frame in frames { hold.add(frame) }
        let expected: [Float] = (0..<64).map { bin in
            let values = frames.map { $0.powerDB[bin] }.filter { !$0.isNaN }
            return values.max() ?? .nan
        }
        #expect(zip(hold.frame.powerDB, expected).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) })
        #expect(hold.frame.timestamp == 5)
    }
}
