import DSP
import Foundation
import Signals

/// Keeps any analyzer running across stalls, errors and unplugging: a
/// supervisor thread watches the frames; when none came for
/// `policy.stallSeconds`, or the device reported an error, it tears the
/// source down, shows `.reconnecting`, and reopens it through the factory
/// with growing backoff, resuming the same band. The gap is handed to
/// `onGap` with the first frame after it. With `giveUpAfterSeconds` set it
/// stops trying and calls `onGiveUp` with a message for the user.
///
/// Every frame an inner source delivers is either forwarded or — if it
/// comes from a source already torn down — counted in `droppedBlocks`.
public final class ReconnectingSpectrumSource: SpectrumSource, @unchecked Sendable {
    /// what the device said it tunes when last connected; until then the
    /// range given at init
    public var tunableRange: FrequencyRange { lock.withLock { connectedRange ?? initialRange } }
    private let initialRange: FrequencyRange
    private var connectedRange: FrequencyRange?
    public let policy: ReconnectPolicy
    private let deviceName: String
    private let factory: SpectrumSourceFactory
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onGap: @Sendable (ReconnectGap) -> Void
    private let onGiveUp: @Sendable (String) -> Void

    private let lock = NSLock()
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    // guarded by lock
    private var connected: ConnectedSpectrumSource?
    private var generation = 0
    private var band: FrequencyRange?
    private var binWidthHz = 0.0
    private var stateValue = ReconnectState.stopped
    private var lastFrameMonotonic = 0.0
    private var lastFrameTimestamp: Double?
    private var failure: String?
    private var pendingGapReason: String?
    /// during an outage: when it began [s, monotonic], retries made, when the next is due [s, monotonic]
    private var outageSince: Double?
    private var outageAttempt = 0
    private var nextAttemptMonotonic = 0.0
    private var framesIn = 0
    private var framesOut = 0
    private var staleFrames = 0
    private var gaps = 0
    /// counters of sources already torn down
    private var retired = SpectrumSourceCounters()
    private var supervising = false

    /// - Parameters:
    ///   - deviceName: names the device in messages ("tinySA Ultra")
    ///   - onFrame: every forwarded frame, on the inner source's thread
    ///   - onGap: each gap, just before the first frame after it; or, when a headless run gives up,
    ///     the outage up to then just before `onGiveUp`
    ///   - onGiveUp: the message when `giveUpAfterSeconds` passed (supervisor thread)
    public init(deviceName: String, tunableRange: FrequencyRange, policy: ReconnectPolicy = ReconnectPolicy(),
                factory: @escaping SpectrumSourceFactory,
                onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                onGap: @escaping @Sendable (ReconnectGap) -> Void = { _ in },
                onGiveUp: @escaping @Sendable (String) -> Void = { _ in }) {
        self.deviceName = deviceName
        initialRange = tunableRange
        self.policy = policy
        self.factory = factory
        self.onFrame = onFrame
        self.onGap = onGap
        self.onGiveUp = onGiveUp
    }

    /// `.reconnecting` for the whole outage: also while a new connection is
    /// open but has not delivered a frame yet (a stalled device opens fine)
    public var state: ReconnectState { lock.withLock { effectiveState } }

    /// The status-line text for the whole outage — what was lost, for how
    /// long, and the next attempt ("reconnecting… (no data from HackRF One
    /// for 1 s; lost 12 s ago; attempt 3 connected, waiting for data)"); nil
    /// while all is well.
    public var statusLine: String? {
        lock.withLock {
            guard case .reconnecting(let attempt, let reason) = effectiveState, let since = outageSince else {
                return effectiveState.statusMessage
            }
            let now = monotonicSeconds()
            var text = "reconnecting… (\(reason); lost \(Int((now - since).rounded(.down))) s ago; "
            if connected != nil {
                text += "attempt \(attempt + 1) connected, waiting for data)"
            } else {
                let next = max(0, nextAttemptMonotonic - now)
                text += "attempt \(attempt + 1) in \(String(format: "%.1f", next)) s)"
            }
            return text
        }
    }

    /// (lock held) the state shown: a connection made during an outage counts as reconnecting until it delivers
    private var effectiveState: ReconnectState {
        if case .running = stateValue, let reason = pendingGapReason {
            return .reconnecting(attempt: outageAttempt, reason: reason)
        }
        return stateValue
    }

    /// Frame accounting: `framesIn` = `framesOut` + `staleFrames`.
    public var accounting: (framesIn: Int, framesOut: Int, staleFrames: Int, gaps: Int) {
        lock.withLock { (framesIn, framesOut, staleFrames, gaps) }
    }

    /// the connected device's dwell and revisit times (nil while reconnecting)
    public var dwellTiming: DwellTiming? {
        lock.withLock { connected?.source }?.dwellTiming
    }

    public var counters: SpectrumSourceCounters {
        lock.lock()
        var total = retired
        let current = connected?.source
        let forwarded = framesOut, stale = staleFrames
        lock.unlock()
        if let inner = current?.counters {
            total.badBlocks += inner.badBlocks
            total.droppedBlocks += inner.droppedBlocks
        }
        total.frames = forwarded
        total.droppedBlocks += stale
        return total
    }

    /// Opens the device and starts it; a device that cannot be opened now
    /// is an error (nothing to reconnect to yet).
    public func start(band: FrequencyRange, binWidthHz: Double) throws {
        stop()
        lock.withLock {
            self.band = band
            self.binWidthHz = binWidthHz
        }
        try connect()
        lock.withLock {
            stateValue = .running
            supervising = true
        }
        let thread = Thread { [self] in
            supervise()
            finished.signal()
        }
        thread.name = "tscope.reconnect"
        thread.start()
    }

    /// Retunes the running source; while reconnecting, the new band is
    /// what the next connection starts with. Before `start` (or after a
    /// stop) it starts.
    public func retune(to band: FrequencyRange, binWidthHz: Double) throws {
        if lock.withLock({ stateValue == .stopped }) {
            try start(band: band, binWidthHz: binWidthHz)
            return
        }
        let current = lock.withLock { () -> (any SpectrumSource)? in
            self.band = band
            self.binWidthHz = binWidthHz
            return stateValue == .running ? connected?.source : nil
        }
        try current?.retune(to: band, binWidthHz: binWidthHz)
    }

    public func stop() {
        let wasSupervising = lock.withLock { () -> Bool in
            let was = supervising
            supervising = false
            return was
        }
        if wasSupervising {
            wake.signal()
            finished.wait()
        }
        tearDown()
        lock.withLock { if case .failed = stateValue {} else { stateValue = .stopped } }
    }

    // MARK: - connection

    /// One attempt: open, start on the current band. Throws what the factory
    /// or the start threw.
    private func connect() throws {
        let (myGeneration, band, binWidth) = lock.withLock { () -> (Int, FrequencyRange?, Double) in
            generation += 1
            failure = nil
            return (generation, self.band, binWidthHz)
        }
        guard let band else { return }
        let opened = try factory({ [weak self] frame in self?.deliver(frame, generation: myGeneration) },
                                 { [weak self] error in self?.fail("\(error)", generation: myGeneration) })
        do {
            try opened.source.start(band: band, binWidthHz: binWidth)
        } catch {
            opened.source.stop()
            opened.close()
            throw error
        }
        let range = opened.source.tunableRange
        lock.withLock {
            connected = opened
            connectedRange = range
            lastFrameMonotonic = monotonicSeconds()
        }
    }

    private func tearDown() {
        let old = lock.withLock { () -> ConnectedSpectrumSource? in
            let old = connected
            connected = nil
            generation += 1
            return old
        }
        guard let old else { return }
        old.source.stop()
        let final = old.source.counters
        old.close()
        lock.withLock {
            retired.badBlocks += final.badBlocks
            retired.droppedBlocks += final.droppedBlocks
        }
    }

    private func deliver(_ frame: SpectrumFrame, generation from: Int) {
        lock.lock()
        framesIn += 1
        // a source torn down (or being torn down) has an old generation
        guard from == generation else {
            staleFrames += 1
            lock.unlock()
            return
        }
        framesOut += 1
        lastFrameMonotonic = monotonicSeconds()
        let gap = pendingGapReason.map {
            ReconnectGap(fromTimestamp: lastFrameTimestamp ?? frame.timestamp, toTimestamp: frame.timestamp, reason: $0)
        }
        pendingGapReason = nil
        outageSince = nil
        lastFrameTimestamp = frame.timestamp
        lock.unlock()
        if let gap { onGap(gap) }
        onFrame(frame)
    }

    private func fail(_ reason: String, generation from: Int) {
        lock.withLock { if from == generation, failure == nil { failure = reason } }
        wake.signal()
    }

    // MARK: - supervisor thread

    private func supervise() {
        let tick = max(0.01, min(0.05, policy.stallSeconds / 4))
        var lostAt = 0.0
        var attempt = 0
        var nextAttemptAt = 0.0
        while true {
            _ = wake.wait(timeout: .now() + tick)
            let now = monotonicSeconds()
            let (keepGoing, state, failure, silentFor) = lock.withLock {
                (supervising, stateValue, self.failure, now - lastFrameMonotonic)
            }
            guard keepGoing else { return }
            switch state {
            case .running:
                let reason: String
                if let failure {
                    reason = failure
                } else if silentFor > policy.stallSeconds {
                    reason = "no data from \(deviceName) for \(Self.seconds(policy.stallSeconds))"
                } else {
                    continue
                }
                tearDown()
                // a connection that never delivered does not end the outage
                let firstLoss = lock.withLock { () -> Bool in
                    let first = pendingGapReason == nil
                    if first {
                        pendingGapReason = reason
                        outageSince = now
                    }
                    stateValue = .reconnecting(attempt: first ? 0 : attempt, reason: reason)
                    return first
                }
                if firstLoss {
                    lostAt = now
                    attempt = 0
                }
                nextAttemptAt = now + policy.backoff(attempt: attempt + 1)
                lock.withLock {
                    outageAttempt = attempt
                    nextAttemptMonotonic = nextAttemptAt
                }
            case .reconnecting(_, let reason):
                if let limit = policy.giveUpAfterSeconds, now - lostAt >= limit {
                    let message = "\(deviceName) lost (\(reason)) and not back after \(Self.seconds(limit)); giving up"
                    // the outage up to now, as a final gap (it has no frame after it)
                    let gap = lock.withLock { () -> ReconnectGap? in
                        stateValue = .failed(message)
                        supervising = false
                        defer { pendingGapReason = nil }
                        guard let from = lastFrameTimestamp, pendingGapReason != nil else { return nil }
                        return ReconnectGap(fromTimestamp: from, toTimestamp: max(from, unixTimeNow()),
                                            reason: "\(reason); gave up")
                    }
                    if let gap { onGap(gap) }
                    onGiveUp(message)
                    return
                }
                guard now >= nextAttemptAt else { continue }
                attempt += 1
                do {
                    try connect()
                    lock.withLock {
                        stateValue = .running
                        outageAttempt = attempt
                    }
                } catch {
                    nextAttemptAt = monotonicSeconds() + policy.backoff(attempt: attempt + 1)
                    lock.withLock {
                        stateValue = .reconnecting(attempt: attempt, reason: reason)
                        outageAttempt = attempt
                        nextAttemptMonotonic = nextAttemptAt
                    }
                }
            case .stopped, .failed:
                return
            }
        }
    }

    /// "1 s", "2.5 s"
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
