#if SensorLink
import Analyzers
import Devices
import Foundation
import Remote
import Runs
import Signals
import Testing
import ThreadKit
import ThreadKitTesting

/// A sensor hub served on loopback, fed with made-up frames by a thread of
/// the test's own, and viewers connecting to it as `--remote` does.
final class LoopbackSensor: Sendable {
    let hub: SensorHub
    let server: SensorServer
    let endpoint: RemoteEndpoint
    let retunes = Locked<[FrequencyRange]>([])
    private let running = Locked(true)
    private let publisher: WorkerThread?
    /// frames published so far
    let published = Locked(0)

    static let name = "Test Analyzer"
    static let serial = "0000000000000000abcd1234"
    /// 88–108 MHz in 8192 bins of 2441.4 Hz
    static let sweep = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)!
    static let bins = 8192

    /// - Parameters:
    ///   - framesPerSecond: how fast the made-up analyzer sweeps; nil: it sweeps only when the test calls `publish`
    ///   - burstEvery: every Nth frame has a +40 dB spike at 100 MHz (0: never)
    ///   - clock: paces the viewers' frame rates
    ///   - stamp: each self-made sweep's timestamp [s]; the Unix time unless a test stamps with its own clock
    init(token: String? = nil, certificate: SensorCertificate? = nil, framesPerSecond: Double? = 200, burstEvery: Int = 0,
         port: Int = 0, clock: any MonotonicClock = SystemClock(),
         stamp: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        let retunes = retunes
        let hub = SensorHub(
            analyzer: .init(name: Self.name, kind: "hackrf", serial: Self.serial, unit: .dB, isDemo: false,
                            tunableRange: FrequencyRange(lowerHz: 1e6, upperHz: 6e9)!, stallSeconds: 1),
            sweep: Self.sweep, binWidthHz: Self.sweep.spanHz / Double(Self.bins),
            retune: { band, _ in retunes.withLock { $0.append(band) } })
        self.hub = hub
        server = SensorServer(hub: hub, listen: RemoteEndpoint(host: "127.0.0.1", port: port), token: token,
                              certificate: certificate, clock: clock)
        endpoint = try server.start()
        guard let framesPerSecond else {
            publisher = nil
            return
        }
        let running = running
        let published = published
        publisher = WorkerThread {
            var count = 0
            while running.value {
                count += 1
                Self.publish(to: hub, count: count, burst: burstEvery > 0 && count % burstEvery == 0,
                             timestamp: stamp())
                published.withLock { $0 = count }
                usleep(UInt32(1e6 / framesPerSecond))
            }
        }
    }

    /// One made-up sweep: the steady carrier at 95 MHz, and with `burst` a +40 dB spike at 100 MHz.
    private static func publish(to hub: SensorHub, count: Int, burst: Bool, timestamp: Double) {
        let binWidth = sweep.spanHz / Double(bins)
        var power = [Float](repeating: -80, count: bins)
        power[Int((95e6 - sweep.lowerHz) / binWidth)] = -20
        if burst { power[Int((100e6 - sweep.lowerHz) / binWidth)] = -40 + 80 }
        hub.publish(SpectrumFrame(startHz: sweep.lowerHz, binWidthHz: binWidth, timestamp: timestamp, powerDB: power),
                    counters: SpectrumSourceCounters(frames: count, badBlocks: 2, droppedBlocks: 3))
    }

    /// A sensor made with `framesPerSecond: nil`: publishes one sweep now, stamped `timestamp` [s, Unix].
    func publish(burst: Bool = false, timestamp: Double) {
        precondition(publisher == nil, "this sensor sweeps by itself")
        let count = published.withLock { count -> Int in
            count += 1
            return count
        }
        Self.publish(to: hub, count: count, burst: burst, timestamp: timestamp)
    }

    func stop() {
        running.withLock { $0 = false }
        publisher?.join()
        server.stop()
    }
}

/// Frames a remote source delivered, and how its stream ended.
final class Received: Sendable {
    let frames = Locked<[SpectrumFrame]>([])
    let ended = Locked<String?>(nil)

    var onFrame: @Sendable (SpectrumFrame) -> Void { { [frames] frame in frames.withLock { $0.append(frame) } } }
    var onEnd: @Sendable (any Error) -> Void { { [ended] error in ended.withLock { $0 = "\(error)" } } }

    /// Waits up to `seconds` (real time: frames come over gRPC) for `count` frames.
    func wait(for count: Int, seconds: Double = 10) -> Bool {
        waitForCondition(timeoutSeconds: seconds, pollSeconds: 0.01) { frames.value.count >= count }
    }
}

@Suite(.serialized) struct SensorStreamTests {
    @Test func twoViewersAtOnceGetTheirOwnBandAndResolution() throws {
        let sensor = try LoopbackSensor()
        defer { sensor.stop() }
        let wide = Received()
        let narrow = Received()
        let first = RemoteSpectrumSource(sensor: RemoteSensor(endpoint: sensor.endpoint, fullResolution: false),
                                         onFrame: wide.onFrame, onEnd: wide.onEnd)
        let second = RemoteSpectrumSource(sensor: RemoteSensor(endpoint: sensor.endpoint), onFrame: narrow.onFrame,
                                          onEnd: narrow.onEnd)
        // a view of the whole band at 100 kHz bins (200 columns), and a meter's 94–96 MHz in the analyzer's own bins
        try first.start(band: LoopbackSensor.sweep, binWidthHz: 100e3)
        try second.start(band: FrequencyRange(lowerHz: 94e6, upperHz: 96e6)!, binWidthHz: 0)
        defer { first.stop(); second.stop() }
        #expect(wide.wait(for: 20))
        #expect(narrow.wait(for: 20))
        #expect(sensor.hub.viewers.now == 2)

        let view = try #require(wide.frames.value.last)
        #expect(view.powerDB.count == 200)
        #expect(abs(view.binWidthHz - 100e3) < 1)
        #expect(view.startHz == 88e6)
        // the one-bin carrier survives the 41:1 decimation at its level (peak detector)
        let carrierColumn = Int((95e6 - 88e6) / view.binWidthHz)
        #expect(view.powerDB[carrierColumn] == -20)
        #expect(view.powerDB.filter { $0 == -20 }.count == 1)

        let meter = try #require(narrow.frames.value.last)
        let binWidth = LoopbackSensor.sweep.spanHz / Double(LoopbackSensor.bins)
        #expect(meter.binWidthHz == binWidth)
        #expect(meter.startHz <= 94e6 && meter.stopHz >= 96e6)
        #expect(meter.stopHz - meter.startHz < 2e6 + 2 * binWidth)
        #expect(meter.powerDB.max() == -20)
        // the analyzer's counters travel with the frames
        #expect(first.counters.badBlocks == 2 && first.counters.droppedBlocks == 3)
        #expect(wide.ended.value == nil && narrow.ended.value == nil)
    }

    @Test func theFirstViewerToRetuneHoldsControlAndTheOthersFollow() throws {
        let sensor = try LoopbackSensor()
        defer { sensor.stop() }
        let a = Received()
        let b = Received()
        let first = RemoteSpectrumSource(sensor: RemoteSensor(endpoint: sensor.endpoint), onFrame: a.onFrame, onEnd: a.onEnd)
        let second = RemoteSpectrumSource(sensor: RemoteSensor(endpoint: sensor.endpoint), onFrame: b.onFrame, onEnd: b.onEnd)
        let band1 = FrequencyRange(lowerHz: 90e6, upperHz: 100e6)!
        let band2 = FrequencyRange(lowerHz: 96e6, upperHz: 106e6)!
        try first.start(band: band1, binWidthHz: 10e3)
        #expect(a.wait(for: 5))
        try second.start(band: band2, binWidthHz: 10e3)
        #expect(b.wait(for: 5))
        #expect(first.control.held)
        #expect(!second.control.held)
        #expect(second.control.holder.contains("127.0.0.1"))
        // only the holder's band reached the analyzer
        #expect(sensor.retunes.value == [band1])
        // the follower still gets its own cut of what the analyzer sweeps
        #expect(try #require(b.frames.value.last).startHz >= 96e6 - 3e3)

        first.stop()
        // control is free once the holder hangs up; the next retune takes it
        try waitUntil { !second.control.holder.contains("127.0.0.1") }
        try second.retune(to: band2, binWidthHz: 10e3)
        try waitUntil { second.control.held }
        try waitUntil { sensor.retunes.value.last == band2 }
        second.stop()
    }

    /// A viewer asking for 4 frames/s gets one each quarter second of the
    /// sensor's clock, never before, holding the burst among the sweeps
    /// merged into it. The clock is moved by hand; the sweeps are published
    /// by the test.
    @Test func aSlowRateGetsFewerFramesHoldingEveryBurst() throws {
        let clock = ManualClock()
        let sensor = try LoopbackSensor(framesPerSecond: nil, clock: clock)
        defer { sensor.stop() }
        let slow = Received()
        let source = RemoteSpectrumSource(
            sensor: RemoteSensor(endpoint: sensor.endpoint, framesPerSecond: 4, fullResolution: false),
            onFrame: slow.onFrame, onEnd: slow.onEnd)
        try source.start(band: LoopbackSensor.sweep, binWidthHz: 100e3)
        defer { source.stop() }
        // the viewer's request (its rate) has reached the sensor once its band has
        try waitUntil { sensor.retunes.value.count == 1 }
        let period = 0.25
        let tick = 1.0 / 16
        // the first sweep goes at once; then the viewer's stream sleeps a period on the clock
        let began = clock.now
        sensor.publish(timestamp: began)
        #expect(slow.wait(for: 1))
        #expect(clock.waitForSleepingTask(), "the stream did not wait for its rate")
        let rounds = 4
        let sweepsPerPeriod = 10
        for round in 1...rounds {
            // 40 sweeps/s for a period, a burst in one of them
            let roundStart = began + Double(round - 1) * period
            for index in 1...sweepsPerPeriod {
                sensor.publish(burst: index == 4, timestamp: roundStart + Double(index) * period / Double(sweepsPerPeriod))
            }
            clock.advance(by: period - tick)
            #expect(clock.waitForSleepingTask(), "round \(round): sent before the period was over")
            #expect(slow.frames.value.count == round)
            clock.advance(by: tick)
            #expect(slow.wait(for: round + 1), "round \(round): nothing sent when the period was over")
            #expect(clock.waitForSleepingTask())
        }
        let frames = slow.frames.value
        #expect(frames.count == 1 + rounds, "\(frames.count) frames")
        // every frame after the first stands for a period of sweeps and holds its burst
        let burstColumn = Int((100e6 - 88e6) / 100e3)
        for frame in frames.dropFirst() { #expect(frame.powerDB[burstColumn] == 40) }
        #expect(frames.first?.powerDB[burstColumn] == -80)
        // and they are the newest: each the period's last sweep
        for (earlier, later) in zip(frames.dropFirst(), frames.dropFirst(2)) {
            #expect(abs(later.timestamp - earlier.timestamp - period) < 1e-6)
        }
        #expect(sensor.published.value == 1 + rounds * sweepsPerPeriod)
        // the stream sleeps until its next frame time; on a clock nobody moves it would hold up the server's
        // graceful shutdown (5 s): the next period ends now
        clock.advance(by: period)
    }

    @Test func aTokenIsRequiredWhenTheSensorHasOne() throws {
        let sensor = try LoopbackSensor(token: "s3cret-token")
        defer { sensor.stop() }
        #expect(throws: RemoteError.self) { try RemoteSensor(endpoint: sensor.endpoint).describe() }
        do {
            _ = try RemoteSensor(endpoint: sensor.endpoint, token: "wrong").describe()
            Issue.record("a wrong token was accepted")
        } catch let error as RemoteError {
            guard case .unauthenticated = error else { Issue.record("\(error)"); return }
            #expect("\(error)".contains("refused this viewer"))
        }
        let description = try RemoteSensor(endpoint: sensor.endpoint, token: "s3cret-token").describe()
        #expect(description.deviceName == LoopbackSensor.name)
        #expect(description.serial == LoopbackSensor.serial)
        #expect(description.unit == .dB)
        #expect(description.kindID == "hackrf")
        #expect(description.sweep == LoopbackSensor.sweep)
    }

    @Test func anUnreachableSensorIsAClearError() throws {
        // a port nobody listens on: bind one, close it
        let sensor = try LoopbackSensor()
        let endpoint = sensor.endpoint
        sensor.stop()
        do {
            _ = try RemoteSensor(endpoint: endpoint).describe(timeoutSeconds: 3)
            Issue.record("a closed port answered")
        } catch {
            #expect("\(error)".hasPrefix("cannot reach the sensor at 127.0.0.1:\(endpoint.port)"), "\(error)")
        }
        #expect(throws: RemoteError.badAddress("nohost")) { try RemoteEndpoint(parsing: "nohost") }
        // a port another sensor holds: the system's reason, not gRPC's "no listening address"
        let holder = try LoopbackSensor()
        defer { holder.stop() }
        do {
            let second = try LoopbackSensor(port: holder.endpoint.port)
            second.stop()
            Issue.record("two sensors listened on one port")
        } catch {
            #expect("\(error)".hasPrefix("cannot listen on 127.0.0.1:\(holder.endpoint.port)"), "\(error)")
            #expect("\(error)".contains("Address already in use"), "\(error)")
        }
        #expect(try RemoteEndpoint(parsing: "[::1]:7373") == RemoteEndpoint(host: "::1", port: 7373))
        #expect(throws: RemoteError.self) { try RemoteEndpoint(parsing: "host:0") }
    }

    /// The viewer's side as `--remote` builds it: a lost sensor is reconnected
    /// and the outage handed over as a gap, as for a USB analyzer. The
    /// outage is timed on a clock the test moves (1.5 s of it with the
    /// sensor away); the stream itself is real I/O, waited for with bounds.
    @Test func aLostSensorIsReconnectedWithTheGapMarked() throws {
        let clock = ManualClock()
        // the sensor's sweeps are stamped with the clock's time, which stands in for their Unix time (the gap is
        // measured between the timestamps of the frames around it)
        var sensor = try LoopbackSensor(stamp: { clock.now })
        let port = sensor.endpoint.port
        let received = Received()
        let gaps = Locked<[ReconnectGap]>([])
        var selection = DeviceSelection()
        selection.remote = RemoteSensor(endpoint: sensor.endpoint)
        selection.clock = clock
        /// moves the supervisor's clock on in steps of 1/16 s, letting it act at each (its retries are
        /// real connection attempts: each step waits, bounded, until it is asleep again)
        func advance(_ seconds: Double) {
            let end = clock.now + seconds
            while clock.now < end {
                clock.advance(by: 1.0 / 16)
                _ = clock.settle()
            }
        }
        let (source, analyzer) = try selection.spectrumSource(headless: false, onFrame: received.onFrame,
                                                              onGap: { gap in gaps.withLock { $0.append(gap) } })
        #expect(analyzer.name == "REMOTE 127.0.0.1:\(port) \(LoopbackSensor.name)")
        #expect(analyzer.serial == LoopbackSensor.serial)
        try source.start(band: FrequencyRange(lowerHz: 94e6, upperHz: 96e6)!, binWidthHz: 0)
        defer { source.stop() }
        #expect(received.wait(for: 10))
        sensor.stop()
        // the stream's end reaches the supervisor (real I/O), then 1.5 s of its clock pass with the sensor away
        try waitUntil(seconds: 10) { source.statusLine?.contains("reconnecting") == true }
        advance(1.5)
        let before = received.frames.value.count
        sensor = try LoopbackSensor(port: port, stamp: { clock.now })
        defer { sensor.stop() }
        // a retry after its backoff (at most 2 s of the clock) finds the sensor again
        for _ in 0..<(8 * 16) where source.connectedSource == nil { advance(1.0 / 16) }
        #expect(received.wait(for: before + 10, seconds: 20))
        let gap = try #require(gaps.value.first)
        #expect(gap.seconds >= 1.4)
        #expect(gap.reason.contains("127.0.0.1:\(port)"), "\(gap.reason)")
    }
}

/// Polls `condition` every 20 ms for up to `seconds` of real time; throws if it never held.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) throws {
    struct Timeout: Error {}
    guard waitForCondition(timeoutSeconds: seconds, pollSeconds: 0.02, condition) else { throw Timeout() }
}
#endif
