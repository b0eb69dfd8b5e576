import Analyzers
import Foundation
import Signals
import Synchronization
import Testing
import ThreadKit
import ThreadKitTesting
import USBDriver
@testable import Devices

/// A pretend analyzer the tests control: present or unplugged, delivering
/// or stalled. Every connection is a `ScriptedSource` on it.
///
/// Made with a `ManualClock`, its connections deliver nothing by
/// themselves: the test hands each frame over with `deliverFrame()`,
/// stamped with the clock's time, and every open is noted with that time.
final class ScriptedDevice: @unchecked Sendable {
    private let lock = NSLock()
    private var isPresent = true
    private var isStalled = false
    private var started: [FrequencyRange] = []
    private var opens: [Double] = []
    private var retunesOfStopped = 0
    fileprivate var sources: [ScriptedSource] = []
    /// the clock that paces frames by hand; nil: every connection delivers every 2 ms on a thread
    let handPacing: ManualClock?

    init(handPacedBy clock: ManualClock? = nil) { handPacing = clock }

    /// retunes that reached a connection already stopped or being stopped
    var lateRetunes: Int { lock.withLock { retunesOfStopped } }
    fileprivate func recordLateRetune() { lock.withLock { retunesOfStopped += 1 } }

    var present: Bool {
        get { lock.withLock { isPresent } }
        set { lock.withLock { isPresent = newValue } }
    }
    var stalled: Bool {
        get { lock.withLock { isStalled } }
        set { lock.withLock { isStalled = newValue } }
    }
    /// the band each connection was started on
    var startedBands: [FrequencyRange] { lock.withLock { started } }
    /// when each open was tried, successful or not [s, the hand-pacing clock]
    var openAttempts: [Double] { lock.withLock { opens } }

    fileprivate func recordStart(_ band: FrequencyRange) { lock.withLock { started.append(band) } }

    /// Unplugs: the running connection reports it, later opens fail.
    func unplug() {
        present = false
        let current = lock.withLock { sources.last }
        current?.reportUnplug()
    }

    var factory: SpectrumSourceFactory {
        { [self] onFrame, onEnd in
            if let handPacing { lock.withLock { opens.append(handPacing.now) } }
            guard present else { throw USBError.notFound(device: "scripted analyzer") }
            let source = ScriptedSource(device: self, onFrame: onFrame, onEnd: onEnd)
            lock.withLock { sources.append(source) }
            return ConnectedSpectrumSource(source: source, close: {})
        }
    }

    /// Hand-paced: the newest connection delivers one frame now, if it runs.
    func deliverFrame() {
        precondition(handPacing != nil, "a free-running device delivers by itself")
        lock.withLock { sources.last }?.deliverOneFrame()
    }
}

/// Delivers a frame every 2 ms on its own thread unless the device stalls
/// (or, on a hand-paced device, when the test says).
final class ScriptedSource: SpectrumSource, @unchecked Sendable {
    private unowned let device: ScriptedDevice
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (any Error) -> Void
    private let lock = NSLock()
    private var band: FrequencyRange?
    private var running = false
    /// set as `stop` begins: a retune after it reached a dead connection
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)

    fileprivate init(device: ScriptedDevice, onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                     onEnd: @escaping @Sendable (any Error) -> Void) {
        self.device = device
        self.onFrame = onFrame
        self.onEnd = onEnd
    }

    let tunableRange = FrequencyRange(lowerHz: 0, upperHz: 6e9)!
    var counters: SpectrumSourceCounters { SpectrumSourceCounters() }

    func start(band: FrequencyRange, binWidthHz: Double) throws {
        device.recordStart(band)
        lock.withLock {
            self.band = band
            running = true
        }
        guard device.handPacing == nil else { return }
        Thread { [self] in
            while let band = lock.withLock({ running ? self.band : nil }) {
                if !device.stalled {
                    onFrame(SpectrumFrame(startHz: band.lowerHz, binWidthHz: band.spanHz / 4, timestamp: unixTimeNow(),
                                          powerDB: [-90, -80, -70, -60]))
                }
                usleep(2_000)
            }
            done.signal()
        }.start()
    }

    func retune(to band: FrequencyRange, binWidthHz: Double) throws {
        // a retune takes a moment (a control transfer): a stop beginning meanwhile is a race
        let lateAtStart = lock.withLock { stopping }
        usleep(300)
        let late = lock.withLock { () -> Bool in
            self.band = band
            return stopping
        }
        if lateAtStart || late { device.recordLateRetune() }
    }

    func stop() {
        lock.withLock { stopping = true }
        usleep(1_000)
        let wasRunning = lock.withLock { () -> Bool in
            let was = running
            running = false
            return was
        }
        if wasRunning && device.handPacing == nil { done.wait() }
    }

    fileprivate func deliverOneFrame() {
        guard let band = lock.withLock({ running ? self.band : nil }), let clock = device.handPacing else { return }
        // the clock's reading stands in for the frame's Unix time: only differences are checked
        onFrame(SpectrumFrame(startHz: band.lowerHz, binWidthHz: band.spanHz / 4, timestamp: clock.now,
                              powerDB: [-90, -80, -70, -60]))
    }

    fileprivate func reportUnplug() { onEnd(USBError.disconnected(device: "scripted analyzer")) }
}

/// Things the supervisor reports from its threads.
final class SupervisorLog: @unchecked Sendable {
    private let lock = NSLock()
    private var gapList: [ReconnectGap] = []
    private var messages: [String] = []
    let frames = FrameCollector()

    func gap(_ gap: ReconnectGap) { lock.withLock { gapList.append(gap) } }
    func gaveUp(_ message: String) { lock.withLock { messages.append(message) } }
    var gaps: [ReconnectGap] { lock.withLock { gapList } }
    var giveUps: [String] { lock.withLock { messages } }
}

/// Polls `condition` every millisecond for up to `seconds` of real time.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    waitForCondition(timeoutSeconds: seconds, condition)
}

/// The supervisor's time logic (stall limit, backoff schedule, gap lengths,
/// giving up) is driven by a `ManualClock` on a hand-paced device: each test
/// moves time on in steps and checks what happened just before and at each
/// limit. Only the race of a retune with a teardown runs in real time, since
/// real threads must meet there.
@Suite struct ReconnectTests {
    let fm = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!
    let ism = FrequencyRange(lowerHz: 430e6, upperHz: 440e6)!
    /// times in powers of two, so the clock's sums are exact and a limit is met at exactly one step
    let clocked = ReconnectPolicy(stallSeconds: 1, initialBackoffSeconds: 0.125, maxBackoffSeconds: 2)
    /// the clock steps the tests take [s]: a divisor of every time in `clocked`
    let tick = 1.0 / 16

    func supervisor(_ device: ScriptedDevice, _ log: SupervisorLog, policy: ReconnectPolicy,
                    clock: any MonotonicClock = SystemClock()) -> ReconnectingSpectrumSource {
        ReconnectingSpectrumSource(deviceName: "scripted analyzer", tunableRange: FrequencyRange(lowerHz: 0, upperHz: 6e9)!,
                                   policy: policy, factory: device.factory, onFrame: { log.frames.add($0) },
                                   onGap: { log.gap($0) }, onGiveUp: { log.gaveUp($0) }, clock: clock)
    }

    /// Moves `clock` on and waits until the supervisor has done what the new time asks.
    func step(_ clock: ManualClock, by seconds: Double) throws {
        clock.advance(by: seconds)
        try #require(clock.settle(), "the supervisor did not go back to sleep")
    }

    /// `step` tick by tick, so the supervisor sees every moment on the way (a retry is due at the tick it falls on).
    func stepThrough(_ clock: ManualClock, _ seconds: Double) throws {
        let end = clock.now + seconds
        while clock.now < end { try step(clock, by: tick) }
    }

    @Test func backoffDoublesUpToItsLimit() {
        let policy = ReconnectPolicy(initialBackoffSeconds: 0.1, maxBackoffSeconds: 1)
        #expect((1...6).map(policy.backoff(attempt:)) == [0.1, 0.2, 0.4, 0.8, 1, 1])
    }

    @Test func aStallReconnectsOnTheSameBandAndReportsTheGap() throws {
        let clock = ManualClock()
        let device = ScriptedDevice(handPacedBy: clock)
        let log = SupervisorLog()
        let source = supervisor(device, log, policy: clocked, clock: clock)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        try source.retune(to: ism, binWidthHz: 100e3)
        for _ in 0..<5 { device.deliverFrame() }
        #expect(log.frames.all.count == 5)
        let lastFrameAt = clock.now

        // silent for one tick less than the stall limit: still running, nothing reopened
        try step(clock, by: clocked.stallSeconds - tick)
        #expect(source.state == .running)
        #expect(device.openAttempts.count == 1)
        // at the limit: torn down, reconnecting, the first retry not yet made
        try step(clock, by: tick)
        #expect(source.state == .reconnecting(attempt: 0, reason: "no data from scripted analyzer for 1 s"))
        #expect(source.connectedSource == nil)
        try step(clock, by: clocked.backoff(attempt: 1) - tick)
        #expect(device.openAttempts.count == 1)
        // after the first backoff: reopened on the band the viewer last asked for
        try step(clock, by: tick)
        #expect(device.openAttempts == [lastFrameAt, lastFrameAt + clocked.stallSeconds + clocked.backoff(attempt: 1)])
        #expect(device.startedBands == [fm, ism])
        #expect(source.statusLine?.contains("attempt 2 connected, waiting for data") == true, "\(source.statusLine ?? "nil")")

        // its first frame ends the outage: the gap spans the whole silence
        try step(clock, by: tick)
        device.deliverFrame()
        #expect(source.state == .running && source.statusLine == nil)
        let gap = try #require(log.gaps.first)
        #expect(log.gaps.count == 1)
        #expect(gap.fromTimestamp == lastFrameAt && gap.seconds == clock.now - lastFrameAt)
        #expect(gap.reason == "no data from scripted analyzer for 1 s")
        let accounting = source.accounting
        #expect(accounting.framesIn == accounting.framesOut + accounting.staleFrames)
        #expect(accounting.framesOut == 6)
    }

    /// A device that opens but never delivers: "reconnecting…" for the whole stall, across several
    /// connect-and-stall cycles, never "running" in between; each retry after the backoff for its number.
    @Test func aLongStallShowsReconnectingForItsWholeLength() throws {
        let clock = ManualClock()
        let device = ScriptedDevice(handPacedBy: clock)
        let log = SupervisorLog()
        let source = supervisor(device, log, policy: clocked, clock: clock)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        device.deliverFrame()
        let lastFrameAt = clock.now
        try step(clock, by: clocked.stallSeconds)
        #expect(source.state == .reconnecting(attempt: 0, reason: "no data from scripted analyzer for 1 s"))

        // each retry opens fine and stalls again: lost at the limit, reopened after the backoff for attempt n
        var expectedOpens = [lastFrameAt]
        var lostAt = lastFrameAt + clocked.stallSeconds
        for attempt in 1...5 {
            expectedOpens.append(lostAt + clocked.backoff(attempt: attempt))
            lostAt = expectedOpens[attempt] + clocked.stallSeconds
        }
        var notReconnecting: [String] = []
        var lines: Set<String> = []
        while clock.now < expectedOpens[5] {
            try step(clock, by: tick)
            if case .reconnecting = source.state {} else { notReconnecting.append("\(source.state)") }
            // lost whole seconds ago, counted from the first loss
            let lost = Int(clock.now - (lastFrameAt + clocked.stallSeconds))
            let prefix = "reconnecting… (no data from scripted analyzer for 1 s; lost \(lost) s ago; attempt "
            if let line = source.statusLine, line.hasPrefix(prefix) { lines.insert(line) } else {
                notReconnecting.append("at +\(clock.now - lastFrameAt) s: \(source.statusLine ?? "no status line")")
            }
        }
        #expect(device.openAttempts == expectedOpens)
        #expect(notReconnecting.isEmpty, "\(notReconnecting.prefix(5))")
        #expect(lines.contains { $0.hasSuffix("attempt 6 connected, waiting for data)") }, "\(lines.sorted().prefix(5))")
        #expect(lines.contains { $0.hasSuffix("attempt 5 in 2.0 s)") }, "\(lines.sorted().prefix(5))")
        #expect(log.gaps.isEmpty)

        // the device speaks again: one gap for the whole outage, and the status line clears
        device.deliverFrame()
        #expect(source.state == .running && source.statusLine == nil)
        #expect(log.gaps.map(\.seconds) == [clock.now - lastFrameAt])
    }

    /// The viewer retunes while the supervisor tears a stalled connection
    /// down and opens the next: no retune reaches a connection being
    /// stopped, and the last band asked for is the one measured at the end.
    @Test func retuneDuringReconnectTeardownNeverReachesAStoppingSource() throws {
        let device = ScriptedDevice()
        let log = SupervisorLog()
        // real time: the race needs real threads; short limits make many teardowns
        let quick = ReconnectPolicy(stallSeconds: 0.02, initialBackoffSeconds: 0.001, maxBackoffSeconds: 0.005)
        let source = supervisor(device, log, policy: quick)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        let hammering = Atomic<Bool>(true)
        let retunes = Atomic<Int>(0)
        let retuner = Thread {
            var flip = false
            while hammering.load(ordering: .relaxed) {
                flip.toggle()
                try? source.retune(to: flip ? ism : fm, binWidthHz: 100e3)
                retunes.add(1, ordering: .relaxed)
                usleep(200) // a drag retunes many times a second, not back to back
            }
        }
        retuner.start()
        // stalls and recoveries while the retunes go on: each stall is a teardown and a reconnect, each
        // recovery frames again; 25 cycles at least (about as many as 1.5 s of 30 ms toggles made), more
        // until 100 retunes were made (each wait bounded: 10 s)
        let opensBefore = device.startedBands.count
        for cycle in 1...200 {
            let opens = device.startedBands.count
            device.stalled = true
            try #require(eventually { device.startedBands.count > opens }, "cycle \(cycle): the stall was not torn down")
            device.stalled = false
            let frames = log.frames.all.count
            try #require(eventually { log.frames.all.count > frames }, "cycle \(cycle): no frames after the stall")
            if cycle >= 25 && retunes.load(ordering: .relaxed) > 100 { break }
        }
        hammering.store(false, ordering: .relaxed)
        try #require(eventually { retuner.isFinished })
        #expect(device.startedBands.count >= opensBefore + 5, "several teardowns happened")
        #expect(retunes.load(ordering: .relaxed) > 100)
        #expect(device.lateRetunes == 0)
        try source.retune(to: ism, binWidthHz: 100e3)
        #expect(eventually { source.state == .running })
        let before = log.frames.all.count
        #expect(eventually { log.frames.all.count > before + 5 })
        #expect(log.frames.all.suffix(3).allSatisfy { $0.startHz == ism.lowerHz })
        let accounting = source.accounting
        #expect(accounting.framesIn == accounting.framesOut + accounting.staleFrames)
    }

    @Test func givingUpStoresTheOutageAsAFinalGap() throws {
        let clock = ManualClock()
        let device = ScriptedDevice(handPacedBy: clock)
        let log = SupervisorLog()
        var policy = clocked
        policy.giveUpAfterSeconds = 3
        let source = supervisor(device, log, policy: policy, clock: clock)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        for _ in 0..<3 { device.deliverFrame() }
        let lastFrameAt = clock.now
        // half a second of quiet (under the stall limit), then unplugged
        try step(clock, by: 0.5)
        device.unplug()
        #expect(clock.settle())
        try stepThrough(clock, 3 - tick)
        #expect(log.giveUps.isEmpty && log.gaps.isEmpty)
        clock.advance(by: tick)
        #expect(eventually { !log.giveUps.isEmpty })
        // the outage from the last frame to giving up, on the supervisor's clock
        let gap = try #require(log.gaps.first)
        #expect(log.gaps.count == 1)
        #expect(gap.fromTimestamp == lastFrameAt && gap.seconds == 3.5)
        #expect(gap.reason == "scripted analyzer disconnected; gave up")
    }

    /// The retries of an unplugged device follow the backoff schedule (0.125, 0.25, 0.5, 1 s apart)
    /// until the give-up limit, and not a tick longer.
    @Test func anUnpluggedDeviceIsRetriedThenGivenUpWithAMessage() throws {
        let clock = ManualClock()
        let device = ScriptedDevice(handPacedBy: clock)
        let log = SupervisorLog()
        var policy = clocked
        policy.giveUpAfterSeconds = 3
        let source = supervisor(device, log, policy: policy, clock: clock)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        device.deliverFrame()
        device.unplug()
        #expect(clock.settle())
        let unpluggedAt = clock.now
        #expect(source.state == .reconnecting(attempt: 0, reason: "scripted analyzer disconnected"))
        var expectedRetries: [Double] = []
        var retryAt = unpluggedAt
        for attempt in 1... {
            retryAt += policy.backoff(attempt: attempt)
            guard retryAt < unpluggedAt + 3 else { break }
            expectedRetries.append(retryAt)
        }
        try stepThrough(clock, 3 - tick)
        #expect(Array(device.openAttempts.dropFirst()) == expectedRetries)
        #expect(source.state == .reconnecting(attempt: expectedRetries.count, reason: "scripted analyzer disconnected"))
        #expect(log.giveUps.isEmpty)
        clock.advance(by: tick)
        #expect(eventually { !log.giveUps.isEmpty })
        let message = try #require(log.giveUps.first)
        #expect(message == "scripted analyzer lost (scripted analyzer disconnected) and not back after 3 s; giving up")
        if case .failed = source.state {} else { Issue.record("state \(source.state)") }
        #expect(device.openAttempts.count == expectedRetries.count + 1, "no retry after giving up")
    }

    @Test func aDeviceThatComesBackIsResumed() throws {
        let clock = ManualClock()
        let device = ScriptedDevice(handPacedBy: clock)
        let log = SupervisorLog()
        let source = supervisor(device, log, policy: clocked, clock: clock)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        device.deliverFrame()
        let lastFrameAt = clock.now
        device.unplug()
        #expect(clock.settle())
        // two failed retries (at 0.125 and 0.375 s), then it is plugged back in
        try stepThrough(clock, clocked.backoff(attempt: 1) + clocked.backoff(attempt: 2))
        #expect(source.state == .reconnecting(attempt: 2, reason: "scripted analyzer disconnected"))
        device.present = true
        try stepThrough(clock, clocked.backoff(attempt: 3) - tick)
        #expect(source.connectedSource == nil, "no retry before the third backoff")
        try step(clock, by: tick)
        #expect(source.connectedSource != nil)
        device.deliverFrame()
        #expect(source.state == .running)
        #expect(log.gaps.map(\.reason) == ["scripted analyzer disconnected"])
        #expect(log.gaps.first?.seconds == clock.now - lastFrameAt)
        for _ in 0..<3 { device.deliverFrame() }
        #expect(log.frames.all.count == 5)
    }

    @Test func anAbsentDeviceAtStartIsAnError() {
        let device = ScriptedDevice()
        device.present = false
        let source = supervisor(device, SupervisorLog(), policy: clocked)
        #expect(throws: USBError.self) { try source.start(band: fm, binWidthHz: 100e3) }
        #expect(source.state == .stopped)
    }
}
