import Foundation
import Signals
import Testing
import ThreadKitTesting
@testable import Capture

/// A device outage during a recording is stored as a gap, beside the frames.
@Suite struct CaptureGapTests {
    @Test func recorderStoresGapsBetweenTheFramesAroundThem() throws {
        let directory = try TemporaryDirectory("gaps")
        defer { directory.remove() }
        let clock = ManualClock(startingAt: 0)
        let recorder = RecordingSession(commitInterval: 1, clock: clock, wallClock: { 1_795_256_100 })
        let path = try recorder.start(.init(output: .file(directory.path("gap.tscope"))))
        let frames = makeFrames(count: 6, bins: 16, seed: 3)
        for frame in frames.prefix(3) { recorder.post(frame) }
        recorder.markGap(from: frames[2].timestamp, to: frames[3].timestamp, reason: "no data for 1 s")
        for frame in frames.suffix(3) { recorder.post(frame) }
        _ = try recorder.stop()
        // ignored when idle: there is no session to attach it to
        recorder.markGap(from: 1, to: 2, reason: "after stop")

        let reader = try CaptureStoreReader(path: path)
        #expect(reader.frameCount == 6)
        #expect(reader.gaps == [CaptureGap(sessionID: reader.sessions[0].id, fromTimestamp: frames[2].timestamp,
                                           toTimestamp: frames[3].timestamp, reason: "no data for 1 s")])
    }

    @Test func writerGapsAreCommittedWithTheFramesAndEachSessionKeepsItsOwn() throws {
        let directory = try TemporaryDirectory("gaps2")
        defer { directory.remove() }
        let path = directory.path("two.tscope")
        for (index, reason) in ["unplugged", "stalled"].enumerated() {
            let writer = try CaptureStoreWriter(path: path, metadata: CaptureMetadata(format: "tscope"),
                                                session: CaptureSessionInfo(startedAt: Double(index)))
            try writer.write(SpectrumFrame(startHz: 1e6, binWidthHz: 1e3, timestamp: Double(10 * index),
                                           powerDB: [-50, -60]))
            try writer.writeGap(from: Double(10 * index), to: Double(10 * index + 5), reason: reason)
            try writer.finish()
        }
        let reader = try CaptureStoreReader(path: path)
        #expect(reader.gaps.map(\.reason) == ["unplugged", "stalled"])
        #expect(reader.gaps.map(\.sessionID) == reader.sessions.map(\.id))
        #expect(reader.gaps.map(\.toTimestamp) == [5, 15])
    }
}
