import Dispatch
import ThreadKit

/// A connected sensor read on a thread of its own. BlueZ's signals are pumped
/// and decoded there, and a dropped link is reconnected there (each try up to
/// 5 s), so the screen and the monitor that take what arrived never wait on
/// the link. Every sample and RR interval keeps the time its notification
/// reached this process (CLOCK_MONOTONIC), from which the viewer measures
/// notification-to-screen latency.
public final class BLESensorReader: Sendable {
    public let device: BLEDevice
    public let profile: BLEProfile
    /// samples [mV] that may wait untaken before the oldest are dropped (counted in `Status.dropped`):
    /// ten minutes at 360 Hz, far beyond any pause of a reader that keeps up
    public static let sampleCapacity = 216_000
    /// how long one wait for BlueZ's signals lasts before the thread looks whether it should stop [s]
    static let pollSeconds = 0.02

    /// What the stream has done so far, for status lines and the closing summary.
    public struct Status: Sendable {
        public var counts = BLENotificationCounts()
        public var gaps: [BLEGap] = []
        /// the newest heart rate a strap reported [beats/min]
        public var heartRate: Int?
        /// samples arriving per second since the link last came up [Hz]; nil before 2 s of them
        public var arrivalRate: Double?
        /// the link is down and being brought back
        public var isReconnecting = false
        /// samples dropped because nobody took them (beyond `sampleCapacity`)
        public var dropped = 0
        /// why the stream stopped for good (the link stayed down, pairing is needed), once it has
        public var failure: BLEError?
    }

    fileprivate struct Shared: Sendable {
        var status = Status()
        var samples = SampleQueue(capacity: BLESensorReader.sampleCapacity)
        var rrIntervals: [UInt16] = []
        /// when each RR interval's notification arrived [s, CLOCK_MONOTONIC]
        var rrArrivals: [Double] = []
    }

    private let shared: Locked<Shared>
    private let stopping: Locked<Bool>
    private let thread: Locked<WorkerThread?>
    /// signalled once the thread has closed the stream (or failed to open it)
    private let finished: DispatchSemaphore

    /// Opens the sensor on a thread of its own (`open`: find, connect, start the profile)
    /// and reads it there: the stream is made, read and closed on that thread alone.
    /// Waits for the opening; its failure is thrown here, as one `BLEError`.
    public init(opening open: @escaping @Sendable () throws -> BLESensorStream) throws {
        let shared = Locked(Shared())
        let stopping = Locked(false)
        let finished = DispatchSemaphore(value: 0)
        let opened = Locked<Result<Opened, BLEError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let worker = WorkerThread {
            defer { finished.signal() }
            let stream: BLESensorStream
            do {
                stream = try open()
            } catch {
                opened.value = .failure(error as? BLEError ?? .connectFailed(device: "the sensor", reason: "\(error)"))
                ready.signal()
                return
            }
            opened.value = .success(Opened(device: stream.device, profile: stream.profile))
            ready.signal()
            Self.pump(stream, into: shared, until: stopping)
        }
        guard let worker else { throw BLEError.connectFailed(device: "the sensor", reason: "no thread to read it on") }
        ready.wait()
        switch opened.value {
        case .success(let sensor)?:
            device = sensor.device
            profile = sensor.profile
        case .failure(let error)?:
            worker.join()
            throw error
        case nil:
            worker.join()
            throw BLEError.connectFailed(device: "the sensor", reason: "the reader ended before opening it")
        }
        self.shared = shared
        self.stopping = stopping
        self.finished = finished
        thread = Locked(worker)
    }

    /// what the opening thread reports back
    private struct Opened: Sendable {
        var device: BLEDevice
        var profile: BLEProfile
    }

    deinit { close() }

    /// The thread's loop: waits for signals, moves what they decoded into `shared`.
    private static func pump(_ stream: BLESensorStream, into shared: Locked<Shared>, until stopping: Locked<Bool>) {
        var samples: [Float] = []
        var arrivals: [BLEArrival] = []
        samples.reserveCapacity(4096)
        while !stopping.value {
            var failure: BLEError?
            do {
                try stream.poll(timeout: pollSeconds)
            } catch let error as BLEError {
                failure = error
            } catch {
                failure = .linkLost(device: stream.device.label, seconds: stream.reconnectLimit)
            }
            samples.removeAll(keepingCapacity: true)
            arrivals.removeAll(keepingCapacity: true)
            stream.takeSamples(into: &samples)
            stream.takeArrivals(into: &arrivals)
            let intervals = stream.profile == .hrs ? stream.takeRRIntervals() : []
            shared.withLock { state in
                if stream.profile == .hrs {
                    state.rrIntervals.append(contentsOf: intervals)
                    // a notification carries 0–9 intervals, all with its arrival time
                    var previous = state.status.counts.rrIntervals
                    for arrival in arrivals {
                        for _ in previous..<max(previous, arrival.delivered) { state.rrArrivals.append(arrival.at) }
                        previous = max(previous, arrival.delivered)
                    }
                } else {
                    state.samples.append(samples, arrivals: arrivals)
                    state.status.dropped = state.samples.dropped
                }
                state.status.counts = stream.counts
                if state.status.gaps.count != stream.gaps.count { state.status.gaps = stream.gaps }
                state.status.heartRate = stream.heartRate
                state.status.arrivalRate = stream.arrivalRate
                state.status.isReconnecting = stream.isReconnecting
                if let failure { state.status.failure = failure }
            }
            if failure != nil { break }
        }
        stream.close()
    }

    /// Stops the thread and closes the stream (the Polar measurement stopped, the link
    /// disconnected), waiting at most `patience` seconds: a reconnect try under way can
    /// hold the thread up to 5 s, and quitting does not wait for it (the thread is left
    /// to end on its own). Idempotent.
    public func close(patience: Double = 1) {
        stopping.value = true
        let worker = thread.withLock { worker in
            defer { worker = nil }
            return worker
        }
        guard let worker else { return }
        if finished.wait(timeout: .now() + patience) == .success { worker.join() }
    }

    /// The counts, gaps and state now.
    public var status: Status { shared.withLock { $0.status } }

    /// samples waiting to be taken
    public var pendingSamples: Int { shared.withLock { $0.samples.waiting } }

    /// Copies up to `destination.count` waiting samples [mV] into `destination`.
    /// - Returns: how many, and when the notification of the oldest of them arrived [s, CLOCK_MONOTONIC]
    public func takeSamples(into destination: UnsafeMutableBufferPointer<Float>) -> (count: Int, oldestArrival: Double?) {
        shared.withLock { state in state.samples.take(into: destination) }
    }

    /// The RR intervals [1/1024 s] that arrived since the last call, oldest first, with
    /// when each one's notification arrived [s, CLOCK_MONOTONIC].
    public func takeRRIntervals() -> (intervals: [UInt16], arrivals: [Double]) {
        shared.withLock { state in
            defer {
                state.rrIntervals.removeAll(keepingCapacity: true)
                state.rrArrivals.removeAll(keepingCapacity: true)
            }
            return (state.rrIntervals, state.rrArrivals)
        }
    }
}

/// Decoded samples waiting to be taken, with the arrival of the notifications
/// they came in: what one take hands over, and when the oldest of it arrived.
/// Beyond `capacity` waiting samples the oldest are dropped, and counted.
struct SampleQueue: Sendable {
    let capacity: Int
    /// samples [mV], the untaken ones from `readIndex` on
    private var samples: [Float] = []
    private var readIndex = 0
    /// samples taken or dropped so far: the stream index of the next one to be taken
    private(set) var taken = 0
    /// notifications whose samples are not all taken yet, oldest first
    private var arrivals: [BLEArrival] = []
    /// samples dropped unread
    private(set) var dropped = 0

    init(capacity: Int) { self.capacity = capacity }

    var waiting: Int { samples.count - readIndex }

    /// Appends decoded samples and their notifications' arrivals (`delivered` counts every sample of the stream).
    mutating func append(_ decoded: [Float], arrivals new: [BLEArrival]) {
        guard !decoded.isEmpty else { return }
        samples.append(contentsOf: decoded)
        arrivals.append(contentsOf: new)
        if waiting > capacity {
            let excess = waiting - capacity
            readIndex += excess
            taken += excess
            dropped += excess
        }
        // compact once the taken front is as long as what waits behind it
        if readIndex > 0, readIndex >= waiting {
            samples.removeFirst(readIndex)
            readIndex = 0
        }
        dropArrivals()
    }

    /// Forgets notifications whose samples have all been taken (or dropped).
    private mutating func dropArrivals() {
        var first = 0
        while first < arrivals.count, arrivals[first].delivered <= taken { first += 1 }
        if first > 0 { arrivals.removeFirst(first) }
    }

    /// Copies up to `destination.count` samples out; returns how many, and when the oldest of them arrived.
    mutating func take(into destination: UnsafeMutableBufferPointer<Float>) -> (count: Int, oldestArrival: Double?) {
        let count = min(destination.count, waiting)
        guard count > 0 else { return (0, nil) }
        dropArrivals()
        let oldest = arrivals.first?.at
        samples.withUnsafeBufferPointer { source in
            _ = destination.update(fromContentsOf: source[readIndex..<(readIndex + count)])
        }
        readIndex += count
        taken += count
        if readIndex == samples.count {
            samples.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        dropArrivals()
        return (count, oldest)
    }
}
