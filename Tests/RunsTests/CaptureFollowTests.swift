import Capture
import Devices
import Foundation
import Runs
import Signals
import Testing
import ThreadKit

/// `replay --follow` at library level: a store written by the test while a
/// follower watches it as a live analyzer.
@Suite(.serialized) struct CaptureFollowTests {
    static func frame(at time: Double) -> SpectrumFrame {
        SpectrumFrame(startHz: 88e6, binWidthHz: 20e3, timestamp: time,
                      powerDB: (0..<1000).map { $0 == 350 ? -20 : -80 })
    }

    /// Frames committed after the follower started reach it; a writer that
    /// stops is a stall the status line reports for its whole length (what,
    /// since when, next attempt); frames after it end the stall with a gap.
    @Test func aFollowerSeesNewFramesAndAStalledRecorder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("follow-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("live.tscope").path
        var metadata = CaptureMetadata(format: "tscope")
        metadata.device = "HackRF One (demo)"
        metadata.span = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)
        let writer = try CaptureStoreWriter(
            path: path, metadata: metadata,
            session: CaptureSessionInfo(startedAt: Date().timeIntervalSince1970, label: "live", operatorName: nil,
                                        band: metadata.span, binWidthHz: 20e3, requestedFrameRate: 10),
            options: .init(commitInterval: 0.1))
        // older frames, before the follower: not delivered
        let start = Date().timeIntervalSince1970
        for index in 0..<20 { try writer.write(Self.frame(at: start - 2 + Double(index) * 0.1)) }
        try writer.commit()

        let received = Locked<[Double]>([])
        let gaps = Locked<[ReconnectGap]>([])
        var selection = DeviceSelection()
        selection.follow = CaptureFollow(path: path, stallSeconds: 1.5)
        let (source, analyzer) = try selection.spectrumSource(
            headless: false, onFrame: { frame in received.withLock { $0.append(frame.timestamp) } },
            onGap: { gap in gaps.withLock { $0.append(gap) } })
        #expect(analyzer.name == "recording live.tscope")
        #expect(analyzer.tunableRange == metadata.span)
        try source.start(band: analyzer.tunableRange, binWidthHz: 20e3)
        defer { source.stop() }

        // one second of new frames, committed as a recorder does
        for index in 0..<10 {
            try writer.write(Self.frame(at: Date().timeIntervalSince1970))
            if index % 3 == 2 { try writer.commit() }
            usleep(100_000)
        }
        try writer.commit()
        Thread.sleep(forTimeInterval: 0.5)
        let live = received.value
        // the newest old frame and the ten new ones
        #expect(live.count >= 10 && live.count <= 11, "\(live.count) frames")
        #expect(live.allSatisfy { $0 >= start - 0.2 })
        #expect(source.statusLine == nil)

        // the recorder stalls: said for as long as it lasts, with the time since it began
        let before = received.value.count
        Thread.sleep(forTimeInterval: 2.5)
        #expect(received.value.count == before, "no frame twice after a reopen")
        let early = try #require(source.statusLine)
        #expect(early.contains("no data from recording live.tscope for 1.5 s"), "\(early)")
        Thread.sleep(forTimeInterval: 2)
        let later = try #require(source.statusLine)
        #expect(later.contains("lost") && later != early, "\(later)")

        // it comes back: frames flow, the stall ends as a gap
        for _ in 0..<5 {
            try writer.write(Self.frame(at: Date().timeIntervalSince1970))
            usleep(100_000)
        }
        try writer.commit()
        let deadline = Date().addingTimeInterval(10)
        while gaps.value.isEmpty, Date() < deadline { usleep(50_000) }
        let gap = try #require(gaps.value.first)
        #expect(gap.toTimestamp - gap.fromTimestamp >= 4)
        #expect(source.statusLine == nil)
        try writer.finish()
    }
}
