import DSP
import Foundation
import ThreadKit
import Synchronization
import Signals

/// Records live spectrum frames into capture store files, one session at a
/// time, as many sessions in a row as wanted (`tscope record`, and the
/// viewer's `r` key).
///
/// Made to be driven from a UI loop: `start` and `stop` return at once apart
/// from opening and closing the file, `post` never blocks (call it on the DSP
/// thread with every frame), and `elapsed`/`remaining`/`isComplete` are cheap
/// to poll each frame. Frames go through a bounded queue (the oldest dropped
/// and counted when the disk falls behind) to a writer thread that commits at
/// least once per `commitInterval`.
///
/// The first write error (disk full…) stops storing at once and is reported
/// through `start`'s `onFailure` on the writer thread; the owner then calls
/// `stop`, which finishes the session row with the frames actually stored
/// and the stop time, and returns the error in the summary.
///
/// With a requested frame rate, the frames between two stored frames are
/// combined by per-bin peak hold (`PeakHold`), so nothing seen is lost.
public final class RecordingSession: Sendable {
    /// What and where to record.
    public struct Plan: Sendable {
        public enum Output: Sendable, Equatable {
            /// a new file per session, named by `CaptureFileName`
            case directory(String)
            /// this file; later sessions are appended to it
            case file(String)
            /// a database (PostgreSQL): a new session in it per recording
            case database(CaptureDatabase)
        }

        public var output: Output
        public var label: String?
        public var operatorName: String?
        /// stop after this long [s]; nil = until stopped
        public var duration: Double?
        /// frames per second to store; nil = every frame posted
        public var requestedFrameRate: Double?
        /// the band and bin width asked of the device [Hz]
        public var band: FrequencyRange?
        public var binWidthHz: Double?
        /// device, serial, gains, version, UTC offset; label and operator are taken from above
        public var metadata: CaptureMetadata

        public init(output: Output, label: String? = nil, operatorName: String? = nil, duration: Double? = nil,
                    requestedFrameRate: Double? = nil, band: FrequencyRange? = nil, binWidthHz: Double? = nil,
                    metadata: CaptureMetadata = CaptureMetadata(format: "tscope")) {
            self.output = output
            self.label = label
            self.operatorName = operatorName
            self.duration = duration
            self.requestedFrameRate = requestedFrameRate
            self.band = band
            self.binWidthHz = binWidthHz
            self.metadata = metadata
        }
    }

    /// What one session stored.
    public struct Summary: Sendable, Equatable {
        public var path: String
        public var frames: Int
        /// recording time [s]
        public var elapsed: Double
        public var requestedFrameRate: Double?
        public var achievedFrameRate: Double
        /// blocks the device pipeline dropped during the session
        public var droppedBlocks: Int
        /// frames the recorder's queue dropped (disk too slow)
        public var droppedFrames: Int
        /// corrupt blocks the device delivered during the session (skipped)
        public var badBlocks: Int = 0
        /// the write error that ended the session early (frames before it kept), nil when it ended as asked
        public var failure: CaptureError?
    }

    private let queueCapacity: Int
    private let commitInterval: Double
    private let clock: any MonotonicClock
    private let wallClock: @Sendable () -> Double
    /// The state the UI polls, the DSP thread checks and the writer thread reports into.
    private struct State {
        var active: Active?
        var hold = PeakHold()
        var limiter = FrameRateLimiter(maxFramesPerSecond: 0)
        var failure: CaptureError?
        /// outages reported by the device, waiting for the writer thread
        var pendingGaps: [(from: Double, to: Double, reason: String)] = []
    }

    private let state = Guarded(State())

    /// One running session's resources.
    private struct Active {
        var plan: Plan
        var path: String
        var startedMonotonic: Double
        var startedWall: Double
        var deviceDroppedAtStart: Int
        var deviceBadAtStart: Int
        var queue: RecordingFrameQueue
        var writer: any CaptureSessionStore
        var writerThread: WorkerThread
    }

    /// - Parameters:
    ///   - queueCapacity: frames buffered for the writer thread
    ///   - commitInterval: longest time a stored frame stays uncommitted [s]; with the peak hold
    ///     (1 / frame rate) and the writer's wake-ups (a quarter of it) a kill -9 loses under 1 s
    ///   - clock: times elapsed time, rates and commits (tests hand in a `ManualClock`)
    ///   - wallClock: Unix time [s] for the file name and session times
    public init(queueCapacity: Int = 64, commitInterval: Double = 0.5,
                clock: any MonotonicClock = SystemClock(),
                wallClock: @escaping @Sendable () -> Double = { unixTimeNow() }) {
        self.queueCapacity = queueCapacity
        self.commitInterval = commitInterval
        self.clock = clock
        self.wallClock = wallClock
    }

    public var isRecording: Bool { state.withLock { $0.active != nil } }

    /// path of the file being recorded, nil when idle
    public var path: String? { state.withLock { $0.active?.path } }

    /// time since `start` [s]; 0 when idle
    public var elapsed: Double {
        let clock = clock
        return state.withLock { $0.active.map { min(clock.now - $0.startedMonotonic, $0.plan.duration ?? .infinity) } ?? 0 }
    }

    /// time left of the planned duration [s]; nil when idle or without a duration
    public var remaining: Double? {
        let clock = clock
        return state.withLock {
            guard let active = $0.active, let duration = active.plan.duration else { return nil }
            return max(0, duration - (clock.now - active.startedMonotonic))
        }
    }

    /// whether the planned duration has passed (the owner then calls `stop`)
    public var isComplete: Bool { remaining == 0 }

    /// the first error the writer thread met (disk full…); frames before it are kept
    public var writeError: CaptureError? { state.withLock { $0.failure } }

    /// Opens the file and starts the writer thread. Returns the file's path.
    /// - Parameters:
    ///   - deviceDroppedBlocks: the device's dropped-block counter now
    ///   - deviceBadBlocks: the device's bad-block counter now
    ///   - onFailure: called once, on the writer thread, with the first write error
    @discardableResult
    public func start(_ plan: Plan, deviceDroppedBlocks: Int = 0, deviceBadBlocks: Int = 0,
                      onFailure: @escaping @Sendable (CaptureError) -> Void = { _ in }) throws(CaptureError) -> String {
        if isRecording { _ = try stop(deviceDroppedBlocks: deviceDroppedBlocks) }
        let startedWall = wallClock()
        var path = ""
        var metadata = plan.metadata
        metadata.label = metadata.label ?? plan.label
        metadata.operatorName = metadata.operatorName ?? plan.operatorName
        metadata.span = metadata.span ?? plan.band
        metadata.binWidthHz = metadata.binWidthHz ?? plan.binWidthHz
        let session = CaptureSessionInfo(startedAt: startedWall, label: plan.label, operatorName: plan.operatorName,
                                         band: plan.band, binWidthHz: plan.binWidthHz,
                                         requestedFrameRate: plan.requestedFrameRate)
        let writer: any CaptureSessionStore
        switch plan.output {
        case .file(let file):
            path = file
            writer = try CaptureStoreWriter(path: path, metadata: metadata, session: session,
                                            options: .init(commitInterval: commitInterval, clock: clock))
        case .directory(let directory):
            let name = CaptureFileName.make(operatorName: plan.operatorName, label: plan.label, startedAt: startedWall)
            path = CaptureFileName.unused(name, in: directory)
            writer = try CaptureStoreWriter(path: path, metadata: metadata, session: session,
                                            options: .init(commitInterval: commitInterval, clock: clock))
        case .database(let database):
            do {
                writer = try database.open(metadata, session, commitInterval)
            } catch {
                throw CaptureStoreErrors.map(error, path: database.name)
            }
            path = writer.path
        }
        let queue = RecordingFrameQueue(capacity: queueCapacity, binCapacity: 4096)
        // the writer thread needs only the queue and the writer: started before the session is shown
        guard let thread = WorkerThread({ [self] in writeFrames(from: queue, into: writer, onFailure: onFailure) }) else {
            writer.abandon()
            throw CaptureError(file: path, "no writer thread could be started")
        }
        let startedMonotonic = clock.now
        state.withLock {
            $0.failure = nil
            $0.hold.clear()
            $0.limiter = FrameRateLimiter(maxFramesPerSecond: plan.requestedFrameRate ?? 0)
            $0.active = Active(plan: plan, path: path, startedMonotonic: startedMonotonic, startedWall: startedWall,
                               deviceDroppedAtStart: deviceDroppedBlocks, deviceBadAtStart: deviceBadBlocks, queue: queue,
                               writer: writer, writerThread: thread)
        }
        return path
    }

    /// Hands one frame to the recorder (any thread; never blocks). Ignored
    /// when idle or once the planned duration has passed.
    public func post(_ frame: SpectrumFrame) {
        let now = clock.now
        state.withLock { state in
            guard let active = state.active else { return }
            if let duration = active.plan.duration, now - active.startedMonotonic > duration { return }
            guard active.plan.requestedFrameRate != nil else {
                active.queue.post(frame)
                return
            }
            if state.hold.isHolding && !state.hold.matches(frame) {
                // The band changed: store what was held of the old one as it is.
                active.queue.post(state.hold.frame)
                state.hold.clear()
            }
            state.hold.add(frame)
            if state.limiter.shouldEmit(at: now) {
                active.queue.post(state.hold.frame)
                state.hold.clear()
            }
        }
    }

    /// Marks a time the device delivered nothing (any thread; never blocks on
    /// the disk). Ignored when idle.
    /// - Parameters: from, to: Unix time [s] of the last frame before and the first after
    public func markGap(from: Double, to: Double, reason: String) {
        state.withLock {
            guard $0.active != nil else { return }
            $0.pendingGaps.append((from, to, reason))
        }
    }

    /// Stops the session: stores what is queued, records the outcome, closes
    /// the file. Safe to call when idle (returns nil).
    /// - Parameters: deviceDroppedBlocks, deviceBadBlocks: the device's counters now
    @discardableResult
    public func stop(deviceDroppedBlocks: Int = 0, deviceBadBlocks: Int = 0) throws(CaptureError) -> Summary? {
        guard let session = state.withLock({ $0.active.take() }) else { return nil }
        let stoppedMonotonic = clock.now
        session.queue.close()
        session.writerThread.join()
        let elapsed = min(stoppedMonotonic - session.startedMonotonic, session.plan.duration ?? .infinity)
        let writer = session.writer
        let achievedIfFinished = elapsed > 0 ? Double(writer.framesWritten) / elapsed : 0
        let droppedBlocks = max(0, deviceDroppedBlocks - session.deviceDroppedAtStart)
        let droppedFrames = session.queue.dropped
        let badBlocks = max(0, deviceBadBlocks - session.deviceBadAtStart)
        // after a write error the rate is of the frames stored
        let achieved = writer.failure == nil ? achievedIfFinished
            : (elapsed > 0 ? Double(writer.framesStored) / elapsed : 0)
        let outcome = CaptureSessionOutcome(stoppedAt: session.startedWall + elapsed, achievedFrameRate: achieved,
                                            droppedBlocks: droppedBlocks, droppedFrames: droppedFrames,
                                            badBlocks: badBlocks)
        var failure: CaptureError?
        do {
            try writer.finish(outcome: outcome)
        } catch {
            failure = CaptureStoreErrors.map(error, path: session.path)
        }
        failure = writeError ?? failure
        if let failure { state.withLock { if $0.failure == nil { $0.failure = failure } } }
        return Summary(path: session.path, frames: writer.framesStored, elapsed: elapsed,
                       requestedFrameRate: session.plan.requestedFrameRate, achievedFrameRate: achieved,
                       droppedBlocks: droppedBlocks, droppedFrames: droppedFrames, badBlocks: badBlocks,
                       failure: failure)
    }

    /// The writer thread: stores frames as they come, commits when due.
    private func writeFrames(from queue: RecordingFrameQueue, into writer: any CaptureSessionStore,
                             onFailure: @Sendable (CaptureError) -> Void) {
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        frame.powerDB.reserveCapacity(4096)
        var failed = false
        // Wake at least four times per commit interval to commit on time when frames stop.
        let wake = max(0.01, commitInterval / 4)
        while true {
            do {
                if !failed { try writePendingGaps(into: writer) }
                switch queue.take(into: &frame, timeout: wake) {
                case .frame:
                    if !failed { try writer.write(frame) }
                case .timedOut:
                    if !failed { try writer.commitIfDue() }
                case .closed:
                    if !failed { try writePendingGaps(into: writer) }
                    return
                }
            } catch {
                failed = true
                let mapped = CaptureStoreErrors.map(error, path: writer.path)
                let first = state.withLock { state -> Bool in
                    defer { if state.failure == nil { state.failure = mapped } }
                    return state.failure == nil
                }
                if first { onFailure(mapped) }
            }
        }
    }

    /// Stores the outages marked since the last call (writer thread).
    private func writePendingGaps(into writer: any CaptureSessionStore) throws {
        let gaps = state.withLock { state -> [(from: Double, to: Double, reason: String)] in
            guard !state.pendingGaps.isEmpty else { return [] }
            defer { state.pendingGaps.removeAll(keepingCapacity: true) }
            return state.pendingGaps
        }
        for gap in gaps { try writer.writeGap(from: gap.from, to: gap.to, reason: gap.reason) }
    }
}
