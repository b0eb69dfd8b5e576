import DSP
import Foundation
import Signals
import ThreadKit
import Synchronization

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
///
/// Stalls, backoff and outages are timed on `clock` (the system's monotonic
/// clock unless a test hands in a `ManualClock`); the supervisor sleeps on
/// it until the next moment something can be due — the stall limit after
/// the last frame, the next attempt, giving up — or until woken.
public final class ReconnectingSpectrumSource: SpectrumSource, Sendable {
    private let initialRange: FrequencyRange
    public let policy: ReconnectPolicy
    private let deviceName: String
    private let factory: SpectrumSourceFactory
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onGap: @Sendable (ReconnectGap) -> Void
    private let onGiveUp: @Sendable (String) -> Void
    private let clock: any MonotonicClock

    private struct State {
        var connected: ConnectedSpectrumSource?
        var connectedRange: FrequencyRange?
        /// bumped by every connect and teardown: frames of an older source are stale
        var generation = 0
        var band: FrequencyRange?
        var binWidthHz = 0.0
        var value = ReconnectState.stopped
        /// the last frame, or the connection made since [s, clock]: the stall limit counts from here
        var lastSignOfLife = 0.0
        /// the last frame forwarded: its own timestamp [s, Unix] and when it arrived [s, clock]
        var lastFrameTimestamp: Double?
        var lastFrameArrival = 0.0
        var failure: String?
        var pendingGapReason: String?
        /// during an outage: when it began [s, clock], retries made, when the next is due [s, clock]
        var outageSince: Double?
        var outageAttempt = 0
        var nextAttemptAt = 0.0
        var framesIn = 0
        var framesOut = 0
        var staleFrames = 0
        var gaps = 0
        /// counters of sources already torn down
        var retired = SpectrumSourceCounters()
        var supervisor: WorkerThread?
        /// the supervisor thread is to keep going: set before the thread starts (it may look before
        /// `supervisor` is stored), cleared by `stop` and by giving up
        var supervising = false

        /// the state shown: a connection made during an outage counts as reconnecting until it delivers
        var effective: ReconnectState {
            if case .running = value, let reason = pendingGapReason {
                return .reconnecting(attempt: outageAttempt, reason: reason)
            }
            return value
        }
    }

    private let shared = Guarded(State())
    /// Held while the inner source is retuned or torn down, so a retune from
    /// the viewer never reaches a source the supervisor is stopping.
    private let lifecycle = Guarded(())
    /// wakes the supervisor before its deadline: a failure to handle, a stop
    private let wake = Doorbell()

    /// - Parameters:
    ///   - deviceName: names the device in messages ("tinySA Ultra")
    ///   - onFrame: every forwarded frame, on the inner source's thread
    ///   - onGap: each gap, just before the first frame after it; or, when a headless run gives up,
    ///     the outage up to then just before `onGiveUp`
    ///   - onGiveUp: the message when `giveUpAfterSeconds` passed (supervisor thread)
    ///   - clock: times stalls, backoff and outages
    public init(deviceName: String, tunableRange: FrequencyRange, policy: ReconnectPolicy = ReconnectPolicy(),
                factory: @escaping SpectrumSourceFactory,
                onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                onGap: @escaping @Sendable (ReconnectGap) -> Void = { _ in },
                onGiveUp: @escaping @Sendable (String) -> Void = { _ in },
                clock: any MonotonicClock = SystemClock()) {
        self.clock = clock
        self.deviceName = deviceName
        initialRange = tunableRange
        self.policy = policy
        self.factory = factory
        self.onFrame = onFrame
        self.onGap = onGap
        self.onGiveUp = onGiveUp
    }

    /// what the device said it tunes when last connected; until then the
    /// range given at init
    public var tunableRange: FrequencyRange { shared.withLock { $0.connectedRange } ?? initialRange }

    /// `.reconnecting` for the whole outage: also while a new connection is
    /// open but has not delivered a frame yet (a stalled device opens fine)
    public var state: ReconnectState { shared.withLock { $0.effective } }

    /// The status-line text for the whole outage — what was lost, for how
    /// long, and the next attempt ("reconnecting… (no data from HackRF One
    /// for 1 s; lost 12 s ago; attempt 3 connected, waiting for data)"); nil
    /// while all is well.
    public var statusLine: String? {
        shared.withLock { state in
            guard case .reconnecting(let attempt, let reason) = state.effective, let since = state.outageSince else {
                return state.effective.statusMessage
            }
            let now = clock.now
            var text = "reconnecting… (\(reason); lost \(Int((now - since).rounded(.down))) s ago; "
            if state.connected != nil {
                text += "attempt \(attempt + 1) connected, waiting for data)"
            } else {
                let next = max(0, state.nextAttemptAt - now)
                text += "attempt \(attempt + 1) in \(String(format: "%.1f", next)) s)"
            }
            return text
        }
    }

    /// Frame accounting: `framesIn` = `framesOut` + `staleFrames`.
    public var accounting: (framesIn: Int, framesOut: Int, staleFrames: Int, gaps: Int) {
        shared.withLock { ($0.framesIn, $0.framesOut, $0.staleFrames, $0.gaps) }
    }

    /// the source connected now (nil while reconnecting)
    public var connectedSource: (any SpectrumSource)? { shared.withLock { $0.connected?.source } }

    /// the connected device's dwell and revisit times (nil while reconnecting)
    public var dwellTiming: DwellTiming? {
        shared.withLock { $0.connected?.source }?.dwellTiming
    }

    public func dwellTiming(by detector: SpectrumDetector) -> DwellTiming? {
        shared.withLock { $0.connected?.source }?.dwellTiming(by: detector)
    }

    public var counters: SpectrumSourceCounters {
        let (retired, current, forwarded, stale) = shared.withLock {
            ($0.retired, $0.connected?.source, $0.framesOut, $0.staleFrames)
        }
        var total = retired
        if let inner = current?.counters {
            total.badBlocks += inner.badBlocks
            total.droppedBlocks += inner.droppedBlocks
            total.droppedSamples += inner.droppedSamples
        }
        total.frames = forwarded
        total.droppedBlocks += stale
        return total
    }

    /// Opens the device and starts it; a device that cannot be opened now
    /// is an error (nothing to reconnect to yet).
    public func start(band: FrequencyRange, binWidthHz: Double) throws {
        stop()
        shared.withLock {
            $0.band = band
            $0.binWidthHz = binWidthHz
        }
        try connect()
        shared.withLock {
            $0.value = .running
            $0.supervising = true
        }
        guard let supervisor = WorkerThread({ [self] in supervise() }) else {
            tearDown()
            shared.withLock {
                $0.value = .stopped
                $0.supervising = false
            }
            throw SupervisorStartError()
        }
        shared.withLock { $0.supervisor = supervisor }
    }

    /// Retunes the running source; while reconnecting, the new band is
    /// what the next connection starts with. Before `start` (or after a
    /// stop) it starts.
    public func retune(to band: FrequencyRange, binWidthHz: Double) throws {
        if shared.withLock({ $0.value == .stopped }) {
            try start(band: band, binWidthHz: binWidthHz)
            return
        }
        try lifecycle.withLock { _ in
            let current = shared.withLock { state -> (any SpectrumSource)? in
                state.band = band
                state.binWidthHz = binWidthHz
                return state.value == .running ? state.connected?.source : nil
            }
            try current?.retune(to: band, binWidthHz: binWidthHz)
        }
    }

    public func stop() {
        let supervisor = shared.withLock { state -> WorkerThread? in
            state.supervising = false
            return state.supervisor.take()
        }
        if let supervisor {
            wake.ring()
            // called from the supervisor's own callbacks, it ends by itself on seeing none
            if !supervisor.isCurrent { supervisor.join() }
        }
        tearDown()
        shared.withLock { state in if case .failed = state.value {} else { state.value = .stopped } }
    }

    // MARK: - connection

    /// One attempt: open, start on the current band. Throws what the factory
    /// or the start threw.
    private func connect() throws {
        let (myGeneration, band, binWidth) = shared.withLock { state -> (Int, FrequencyRange?, Double) in
            state.generation += 1
            state.failure = nil
            return (state.generation, state.band, state.binWidthHz)
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
        try lifecycle.withLock { _ in
            // a retune while the device opened reaches it now
            let wanted = shared.withLock { state -> (FrequencyRange?, Double) in
                state.connected = opened
                state.connectedRange = range
                state.lastSignOfLife = clock.now
                return (state.band, state.binWidthHz)
            }
            if let wantedBand = wanted.0, wantedBand != band || wanted.1 != binWidth {
                try opened.source.retune(to: wantedBand, binWidthHz: wanted.1)
            }
        }
    }

    private func tearDown() {
        lifecycle.withLock { _ in
            let old = shared.withLock { state -> ConnectedSpectrumSource? in
                defer { state.connected = nil }
                state.generation += 1
                return state.connected
            }
            guard let old else { return }
            old.source.stop()
            let final = old.source.counters
            old.close()
            shared.withLock {
                $0.retired.badBlocks += final.badBlocks
                $0.retired.droppedBlocks += final.droppedBlocks
                $0.retired.droppedSamples += final.droppedSamples
            }
        }
    }

    private func deliver(_ frame: SpectrumFrame, generation from: Int) {
        let forward = shared.withLock { state -> (forward: Bool, gap: ReconnectGap?) in
            state.framesIn += 1
            // a source torn down (or being torn down) has an old generation
            guard from == state.generation else {
                state.staleFrames += 1
                return (false, nil)
            }
            state.framesOut += 1
            state.lastSignOfLife = clock.now
            state.lastFrameArrival = state.lastSignOfLife
            let gap = state.pendingGapReason.map {
                ReconnectGap(fromTimestamp: state.lastFrameTimestamp ?? frame.timestamp, toTimestamp: frame.timestamp,
                             reason: $0)
            }
            state.pendingGapReason = nil
            state.outageSince = nil
            state.lastFrameTimestamp = frame.timestamp
            return (true, gap)
        }
        guard forward.forward else { return }
        if let gap = forward.gap { onGap(gap) }
        onFrame(frame)
    }

    private func fail(_ reason: String, generation from: Int) {
        shared.withLock { state in if from == state.generation, state.failure == nil { state.failure = reason } }
        wake.ring()
    }

    // MARK: - supervisor thread

    private func supervise() {
        var lostAt = 0.0
        var attempt = 0
        var nextAttemptAt = 0.0
        // the next moment anything can be due [s, clock]; until then only the doorbell wakes the supervisor
        var wakeAt = clock.now
        while true {
            clock.wait(until: wakeAt, orUntilRung: wake)
            let now = clock.now
            // after acting, look again at once: the state it left decides the next deadline
            wakeAt = now
            let (keepGoing, state, failure, stallAt) = shared.withLock {
                ($0.supervising, $0.value, $0.failure, $0.lastSignOfLife + policy.stallSeconds)
            }
            guard keepGoing else { return }
            switch state {
            case .running:
                let reason: String
                if let failure {
                    reason = failure
                } else if now >= stallAt {
                    reason = "no data from \(deviceName) for \(Self.seconds(policy.stallSeconds))"
                } else {
                    wakeAt = stallAt
                    continue
                }
                tearDown()
                // a connection that never delivered does not end the outage
                let firstLoss = shared.withLock { state -> Bool in
                    let first = state.pendingGapReason == nil
                    if first {
                        state.pendingGapReason = reason
                        state.outageSince = now
                    }
                    state.value = .reconnecting(attempt: first ? 0 : attempt, reason: reason)
                    return first
                }
                if firstLoss {
                    lostAt = now
                    attempt = 0
                }
                nextAttemptAt = now + policy.backoff(attempt: attempt + 1)
                shared.withLock {
                    $0.outageAttempt = attempt
                    $0.nextAttemptAt = nextAttemptAt
                }
            case .reconnecting(_, let reason):
                let giveUpAt = policy.giveUpAfterSeconds.map { lostAt + $0 } ?? .infinity
                if now >= giveUpAt, let limit = policy.giveUpAfterSeconds {
                    let message = "\(deviceName) lost (\(reason)) and not back after \(Self.seconds(limit)); giving up"
                    // the outage up to now, as a final gap (it has no frame after it): the last
                    // frame's timestamp plus the time since it arrived
                    let gap = shared.withLock { state -> ReconnectGap? in
                        state.value = .failed(message)
                        // the supervisor ends here; `stop` finds none to join
                        state.supervisor = nil
                        state.supervising = false
                        defer { state.pendingGapReason = nil }
                        guard let from = state.lastFrameTimestamp, state.pendingGapReason != nil else { return nil }
                        return ReconnectGap(fromTimestamp: from, toTimestamp: from + max(0, now - state.lastFrameArrival),
                                            reason: "\(reason); gave up")
                    }
                    if let gap { onGap(gap) }
                    onGiveUp(message)
                    return
                }
                guard now >= nextAttemptAt else {
                    wakeAt = min(nextAttemptAt, giveUpAt)
                    continue
                }
                attempt += 1
                do {
                    try connect()
                    shared.withLock {
                        $0.value = .running
                        $0.outageAttempt = attempt
                    }
                } catch {
                    nextAttemptAt = clock.now + policy.backoff(attempt: attempt + 1)
                    shared.withLock {
                        $0.value = .reconnecting(attempt: attempt, reason: reason)
                        $0.outageAttempt = attempt
                        $0.nextAttemptAt = nextAttemptAt
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

/// The supervisor's own thread could not be started (the process is out of threads).
public struct SupervisorStartError: Error, CustomStringConvertible {
    public var description: String { "USB reconnect supervisor failed: no thread could be started" }
}
