import Analyzers
import Capture
import DSP
import Devices
import Foundation
import PostgresStore
import Signals
import ThreadKit

/// `replay --follow`: a capture still being recorded (a `.tscope` file or a
/// PostgreSQL session) watched as a live analyzer. Frames reach the views as
/// the recorder commits them; a recorder that stops delivering is a stall
/// the reconnect supervisor reports for its whole length ("no data from …
/// for 5 s; lost 12 s ago; …") and the gap is marked, as for a device.
public struct CaptureFollow: Sendable {
    public var path: String
    /// how long without a new frame is a stall [s] (a recorder commits at least twice a second)
    public var stallSeconds: Double
    /// times the follower's polls of the capture (the stall is timed by the reconnect supervisor's clock)
    public var clock: any MonotonicClock
    /// the newest frame delivered [s since the Unix epoch]: a reopened follower resumes after it
    private let lastDelivered = Locked<Double?>(nil)

    public init(path: String, stallSeconds: Double = 5, clock: any MonotonicClock = SystemClock()) {
        self.path = path
        self.stallSeconds = stallSeconds
        self.clock = clock
    }

    /// The capture as an analyzer: its band, named after the file and the device that recorded it.
    public func selectAnalyzer() throws -> SelectedAnalyzer {
        let opened = try open()
        let band = opened.reader.metadata.span ?? opened.firstBand
        guard let band else { throw CaptureError(file: path, "no frames and no band to follow yet") }
        let follow = self
        let factory: SpectrumSourceFactory = { onFrame, onEnd in
            let source = CaptureFollowSource(reader: try follow.open().reader, band: band,
                                             lastDelivered: follow.lastDelivered, clock: follow.clock,
                                             onFrame: onFrame, onEnd: onEnd)
            return ConnectedSpectrumSource(source: source, close: {})
        }
        // short: the status line also carries the stall text
        var name = "recording " + (path as NSString).lastPathComponent
        #if SensorLink
        if let session = (opened.reader as? PostgresCaptureReader)?.sessionID { name = "recording session \(session)" }
        #endif
        var analyzer = SelectedAnalyzer(kind: .unknown, isDemo: false, name: name, factory: factory,
                                        serial: opened.reader.metadata.serial)
        analyzer.stallSecondsOverride = stallSeconds
        analyzer.tunableRangeOverride = band
        return analyzer
    }

    /// A reader positioned at the newest frame (or, reopened, at the last
    /// one delivered), following what is committed after it.
    private func open() throws -> (reader: any SpectrumFrameReader, firstBand: FrequencyRange?) {
        let resume = lastDelivered.value
        if CaptureInput.isDatabase(path) {
            #if SensorLink
            let reader = try PostgresCaptureReader(location: PostgresLocation(url: path))
            try reader.follow(after: resume)
            return (reader, nil)
            #else
            throw SensorLink.missing("a PostgreSQL capture store")
            #endif
        }
        let reader = try CaptureStoreReader(path: path)
        var first = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        let firstBand = try reader.next(into: &first) ? first.range : nil
        // a store's reader asks for frames after its position at each call: new commits show up
        try reader.seek(toTime: resume ?? reader.timeRange?.upperBound ?? 0)
        return (reader, firstBand)
    }
}

/// Polls a following reader on a thread of its own and delivers what it
/// returns; waits 0.1 s whenever nothing new was committed.
package final class CaptureFollowSource: SpectrumSource {
    package let tunableRange: FrequencyRange
    /// how long the poller waits after finding nothing new [s]
    static let pollSeconds = 0.1
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (any Error) -> Void
    private let reader: ReaderBox
    private let lastDelivered: Locked<Double?>
    private let running = Locked(false)
    private let frames = Locked(0)
    /// polls that found nothing new (tests wait on it instead of sleeping)
    private let emptyPollCount = Locked(0)
    private let clock: any MonotonicClock
    /// the running poller, and the doorbell that wakes it from its wait to stop
    private let poller = Locked<(thread: WorkerThread, stopping: Doorbell)?>(nil)

    /// The reader, used by the polling thread only (the box hands it over).
    private final class ReaderBox: Sendable {
        let reader: Guarded<any SpectrumFrameReader>
        init(_ reader: sending any SpectrumFrameReader) { self.reader = Guarded(reader) }
    }

    init(reader: sending any SpectrumFrameReader, band: FrequencyRange, lastDelivered: Locked<Double?>,
         clock: any MonotonicClock, onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
         onEnd: @escaping @Sendable (any Error) -> Void) {
        self.reader = ReaderBox(reader)
        self.lastDelivered = lastDelivered
        self.clock = clock
        tunableRange = band
        self.onFrame = onFrame
        self.onEnd = onEnd
    }

    package var counters: SpectrumSourceCounters { SpectrumSourceCounters(frames: frames.value) }

    /// polls so far that found nothing new
    package var emptyPolls: Int { emptyPollCount.value }

    package func start(band: FrequencyRange, binWidthHz: Double) throws {
        stop()
        running.withLock { $0 = true }
        let (reader, running, frames, onFrame, onEnd) = (reader, running, frames, onFrame, onEnd)
        let (lastDelivered, emptyPolls, clock) = (lastDelivered, emptyPollCount, clock)
        let stopping = Doorbell()
        guard let thread = WorkerThread({
            var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
            while running.value {
                do {
                    let delivered = try reader.reader.withLock { reader -> Int in
                        var count = 0
                        while count < 1000, running.value, try reader.next(into: &frame) {
                            // a reopened reader starts at the last frame delivered: not twice
                            if let last = lastDelivered.value, frame.timestamp <= last { continue }
                            lastDelivered.withLock { $0 = frame.timestamp }
                            onFrame(frame)
                            count += 1
                        }
                        return count
                    }
                    frames.withLock { $0 += delivered }
                    if delivered == 0 {
                        emptyPolls.withLock { $0 += 1 }
                        clock.wait(until: clock.now + Self.pollSeconds, orUntilRung: stopping)
                    }
                } catch {
                    onEnd(error)
                    return
                }
            }
        }) else {
            throw CommandError("no thread could be started to follow the capture")
        }
        poller.withLock { $0 = (thread, stopping) }
    }

    /// The stored frames are what they are: the views zoom into them.
    package func retune(to band: FrequencyRange, binWidthHz: Double) throws {}

    package func stop() {
        running.withLock { $0 = false }
        guard let poller = poller.withLock({ $0.take() }) else { return }
        poller.stopping.ring()
        if !poller.thread.isCurrent { poller.thread.join() }
    }
}
