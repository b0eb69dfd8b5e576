import Analyzers
import Capture
import Devices
import Foundation
import Runs
import Signals
import Testing
import ThreadKit
import ThreadKitTesting

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
        // the stall and its outage are timed on a clock the test moves; the follower polls the file in real time
        let clock = ManualClock()
        var selection = DeviceSelection()
        selection.follow = CaptureFollow(path: path, stallSeconds: 1.5)
        selection.clock = clock
        let (source, analyzer) = try selection.spectrumSource(
            headless: false, onFrame: { frame in received.withLock { $0.append(frame.timestamp) } },
            onGap: { gap in gaps.withLock { $0.append(gap) } })
        #expect(analyzer.name == "recording live.tscope")
        #expect(analyzer.tunableRange == metadata.span)
        try source.start(band: analyzer.tunableRange, binWidthHz: 20e3)
        defer { source.stop() }
        /// moves the clock on in steps of 1/16 s [s], letting the supervisor act at each
        func advance(_ seconds: Double) throws {
            let end = clock.now + seconds
            while clock.now < end {
                clock.advance(by: 1.0 / 16)
                try #require(clock.settle(), "the supervisor did not go back to sleep")
            }
        }
        /// waits (real time, bounded: 10 s) for the follower's thread
        func eventually(_ condition: () -> Bool) -> Bool { waitForCondition(pollSeconds: 0.01, condition) }

        // one second of new frames, committed as a recorder does
        for index in 0..<10 {
            try writer.write(Self.frame(at: start + Double(index) * 0.1))
            if index % 3 == 2 { try writer.commit() }
        }
        try writer.commit()
        let newest = start + 9 * 0.1
        #expect(eventually { received.value.last == newest })
        let live = received.value
        // the newest old frame and the ten new ones
        #expect(live.count >= 10 && live.count <= 11, "\(live.count) frames")
        #expect(live.allSatisfy { $0 >= start - 0.2 })
        #expect(source.statusLine == nil)

        // the recorder stalls: not reported a tick before the stall limit, then for as long as it lasts,
        // with the time since it began
        try advance(1.5 - 1.0 / 16)
        #expect(source.statusLine == nil)
        try advance(1.0 / 16)
        let early = try #require(source.statusLine)
        #expect(early.contains("no data from recording live.tscope for 1.5 s; lost 0 s ago"), "\(early)")
        // reopened after the first backoff; its follower resumes after the last frame delivered
        try advance(0.125)
        #expect(source.connectedSource != nil)
        let before = received.value.count
        // the reopened follower's thread polls (every 0.1 s, real time) and finds nothing new, three times
        let reopened = try #require(source.connectedSource as? CaptureFollowSource)
        #expect(eventually { reopened.emptyPolls >= 3 })
        #expect(received.value.count == before, "no frame twice after a reopen")
        try advance(2)
        let later = try #require(source.statusLine)
        #expect(later.contains("lost 2 s ago") && later != early, "\(later)")

        // it comes back 4 s after its last frame: frames flow, the stall ends as a gap of those 4 s
        let lastBefore = newest
        for index in 0..<5 { try writer.write(Self.frame(at: lastBefore + 4 + Double(index) * 0.1)) }
        try writer.commit()
        for _ in 0..<64 where source.connectedSource == nil { try advance(1.0 / 16) }
        #expect(eventually { !gaps.value.isEmpty })
        let gap = try #require(gaps.value.first)
        #expect(gap.fromTimestamp == lastBefore && abs(gap.seconds - 4) < 1e-6, "\(gap)")
        #expect(eventually { received.value.count == live.count + 5 })
        #expect(source.statusLine == nil)
        try writer.finish()
    }
}
