import Foundation
import Signals
import Synchronization
import Testing
import USBDriver
@testable import Devices

/// A pretend analyzer the tests control: present or unplugged, delivering
/// or stalled. Every connection is a `ScriptedSource` on it.
final class ScriptedDevice: @unchecked Sendable {
    private let lock = NSLock()
    private var isPresent = true
    private var isStalled = false
    private var started: [FrequencyRange] = []
    private var retunesOfStopped = 0
    fileprivate var sources: [ScriptedSource] = []

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

    fileprivate func recordStart(_ band: FrequencyRange) { lock.withLock { started.append(band) } }

    /// Unplugs: the running connection reports it, later opens fail.
    func unplug() {
        present = false
        let current = lock.withLock { sources.last }
        current?.reportUnplug()
    }

    var factory: SpectrumSourceFactory {
        { [self] onFrame, onEnd in
            guard present else { throw USBError.notFound(device: "scripted analyzer") }
            let source = ScriptedSource(device: self, onFrame: onFrame, onEnd: onEnd)
            lock.withLock { sources.append(source) }
            return ConnectedSpectrumSource(source: source, close: {})
        }
    }
}

/// Delivers a frame every 2 ms on its own thread unless the device stalls.
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
        if wasRunning { done.wait() }
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

/// Polls `condition` every millisecond for up to `seconds`.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = monotonicSeconds() + seconds
    while monotonicSeconds() < deadline {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}

@Suite struct ReconnectTests {
    let fm = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!
    let ism = FrequencyRange(lowerHz: 430e6, upperHz: 440e6)!
    let fast = ReconnectPolicy(stallSeconds: 0.15, initialBackoffSeconds: 0.01, maxBackoffSeconds: 0.05)

    func supervisor(_ device: ScriptedDevice, _ log: SupervisorLog, policy: ReconnectPolicy) -> ReconnectingSpectrumSource {
        ReconnectingSpectrumSource(deviceName: "scripted analyzer", tunableRange: FrequencyRange(lowerHz: 0, upperHz: 6e9)!,
                                   policy: policy, factory: device.factory, onFrame: { log.frames.add($0) },
                                   onGap: { log.gap($0) }, onGiveUp: { log.gaveUp($0) })
    }

    @Test func backoffDoublesUpToItsLimit() {
        let policy = ReconnectPolicy(initialBackoffSeconds: 0.1, maxBackoffSeconds: 1)
        #expect((1...6).map(policy.backoff(attempt:)) == [0.1, 0.2, 0.4, 0.8, 1, 1])
    }

    @Test func aStallReconnectsOnTheSameBandAndReportsTheGap() throws {
        let device = ScriptedDevice()
        let log = SupervisorLog()
        let source = supervisor(device, log, policy: fast)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        try source.retune(to: ism, binWidthHz: 100e3)
        #expect(log.frames.wait(for: 5).count >= 5)
        device.stalled = true
        #expect(eventually { if case .reconnecting = source.state { return true } else { return false } })
        #expect(source.state.statusMessage?.hasPrefix("reconnecting…") == true)
        #expect(source.state.statusMessage?.contains("no data from scripted analyzer") == true)
        device.stalled = false
        #expect(eventually { source.state == .running && !log.gaps.isEmpty })
        #expect(device.startedBands.count >= 2)
        #expect(device.startedBands.dropFirst().allSatisfy { $0 == ism })
        let gap = try #require(log.gaps.first)
        #expect(gap.seconds >= fast.stallSeconds)
        #expect(gap.reason.contains("no data"))
        let accounting = source.accounting
        #expect(accounting.framesIn == accounting.framesOut + accounting.staleFrames)
    }

    /// A device that opens but never delivers: "reconnecting…" for the whole stall, across several
    /// connect-and-stall cycles, never "running" in between.
    @Test func aLongStallShowsReconnectingForItsWholeLength() throws {
        let device = ScriptedDevice()
        let log = SupervisorLog()
        let source = supervisor(device, log, policy: fast)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        #expect(log.frames.wait(for: 5).count >= 5)
        device.stalled = true
        #expect(eventually { if case .reconnecting = source.state { return true } else { return false } })
        let opensBefore = device.startedBands.count
        var notReconnecting: [String] = []
        var lines: Set<String> = []
        let until = monotonicSeconds() + 10 * fast.stallSeconds
        while monotonicSeconds() < until {
            if case .reconnecting = source.state {} else { notReconnecting.append("\(source.state)") }
            if let line = source.statusLine { lines.insert(line) } else { notReconnecting.append("no status line") }
            usleep(2_000)
        }
        #expect(device.startedBands.count >= opensBefore + 2, "several reconnect cycles happened")
        #expect(notReconnecting.isEmpty, "\(notReconnecting.prefix(5))")
        #expect(lines.contains { $0.contains("connected, waiting for data") }, "\(lines.prefix(5))")
        #expect(lines.allSatisfy { $0.hasPrefix("reconnecting… (no data from scripted analyzer") && $0.contains("lost ") })
        device.stalled = false
        #expect(eventually { source.state == .running && source.statusLine == nil })
    }

    /// The viewer retunes while the supervisor tears a stalled connection
    /// down and opens the next: no retune reaches a connection being
    /// stopped, and the last band asked for is the one measured at the end.
    @Test func retuneDuringReconnectTeardownNeverReachesAStoppingSource() throws {
        let device = ScriptedDevice()
        let log = SupervisorLog()
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
        // stalls and recoveries: each stall is a teardown and a reconnect
        let opensBefore = device.startedBands.count
        let until = monotonicSeconds() + 1.5
        while monotonicSeconds() < until {
            device.stalled.toggle()
            usleep(30_000)
        }
        device.stalled = false
        hammering.store(false, ordering: .relaxed)
        while !retuner.isFinished { usleep(1_000) }
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
        let device = ScriptedDevice()
        let log = SupervisorLog()
        var policy = fast
        policy.giveUpAfterSeconds = 0.3
        let source = supervisor(device, log, policy: policy)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        _ = log.frames.wait(for: 3)
        device.unplug()
        #expect(eventually { !log.giveUps.isEmpty })
        // the last frame delivered at all (one may still arrive between the wait above and the unplug)
        let lastFrame = try #require(log.frames.all.last).timestamp
        let gap = try #require(log.gaps.first)
        #expect(gap.fromTimestamp == lastFrame && gap.seconds >= 0.3)
        #expect(gap.reason == "scripted analyzer disconnected; gave up")
    }

    @Test func anUnpluggedDeviceIsRetriedThenGivenUpWithAMessage() throws {
        let device = ScriptedDevice()
        let log = SupervisorLog()
        var policy = fast
        policy.giveUpAfterSeconds = 0.3
        let source = supervisor(device, log, policy: policy)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        _ = log.frames.wait(for: 3)
        let started = monotonicSeconds()
        device.unplug()
        #expect(eventually { !log.giveUps.isEmpty })
        #expect(monotonicSeconds() - started >= 0.3)
        let message = try #require(log.giveUps.first)
        #expect(message.contains("scripted analyzer lost (scripted analyzer disconnected)"))
        #expect(message.contains("giving up"))
        if case .failed = source.state {} else { Issue.record("state \(source.state)") }
    }

    @Test func aDeviceThatComesBackIsResumed() throws {
        let device = ScriptedDevice()
        let log = SupervisorLog()
        let source = supervisor(device, log, policy: fast)
        try source.start(band: fm, binWidthHz: 100e3)
        defer { source.stop() }
        _ = log.frames.wait(for: 3)
        device.unplug()
        #expect(eventually { if case .reconnecting(let attempt, _) = source.state { return attempt >= 2 } else { return false } })
        device.present = true
        #expect(eventually { source.state == .running && log.gaps.count == 1 })
        #expect(log.gaps.first?.reason == "scripted analyzer disconnected")
        let before = log.frames.all.count
        #expect(log.frames.wait(for: before + 3).count >= before + 3)
    }

    @Test func anAbsentDeviceAtStartIsAnError() {
        let device = ScriptedDevice()
        device.present = false
        let source = supervisor(device, SupervisorLog(), policy: fast)
        #expect(throws: USBError.self) { try source.start(band: fm, binWidthHz: 100e3) }
        #expect(source.state == .stopped)
    }
}
