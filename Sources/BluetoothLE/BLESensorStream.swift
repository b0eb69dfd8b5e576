import Foundation
import ThreadKit

/// What arrived from a sensor so far, and what went wrong with it.
public struct BLENotificationCounts: Equatable, Sendable {
    /// notifications of the data characteristic
    public var notifications = 0
    /// notifications too short or malformed for the profile, skipped
    public var malformed = 0
    /// samples decoded (kardia, polar)
    public var samples = 0
    /// RR intervals decoded (hrs)
    public var rrIntervals = 0
    /// times the link dropped
    public var linkLosses = 0
    /// times it came back
    public var reconnects = 0

    public init() {}
}

/// A gap in the stream: the link dropped at `afterSample` (samples or RR intervals
/// delivered before it) for `seconds`.
public struct BLEGap: Equatable, Sendable {
    public var afterSample: Int
    public var seconds: Double
}

/// When a data notification reached this process, and how many samples (RR
/// intervals for a strap) the stream had decoded with it.
public struct BLEArrival: Equatable, Sendable {
    /// samples (RR intervals) decoded up to and including this notification
    public var delivered: Int
    /// [s, CLOCK_MONOTONIC: `SystemClock`]
    public var at: Double
}

/// A connected sensor streaming one profile: the Kardia-style board's floats,
/// Polar PMD ECG frames, or Heart Rate Measurements. `poll` pumps BlueZ's
/// signals (never longer than asked) and decodes each "Value" change of the
/// data characteristic; what it decoded waits in `takeSamples`/`takeRRIntervals`.
/// When the link drops it reconnects, asks for notifications again and (Polar)
/// sends the start request again, and records the gap.
public final class BLESensorStream {
    public let client: BlueZClient
    public let device: BLEDevice
    public let profile: BLEProfile
    public private(set) var gaps: [BLEGap] = []
    /// what arrived and what was skipped
    public var counts: BLENotificationCounts { decoder.counts }
    /// the newest heart rate a strap reported [beats/min]
    public var heartRate: Int? { decoder.heartRate }
    /// the newest Polar frame's sensor timestamp [ns]
    public var sensorTimestamp: UInt64? { decoder.sensorTimestamp }
    private var decoder: BLENotificationDecoder

    private let dataPath: String
    private let controlPointPath: String?
    /// how long to keep trying after the link drops before giving up [s]
    public var reconnectLimit = 30.0
    private var lostAt: Date?
    /// when samples first came, and how many had come by then (the arrival rate's start)
    private var firstArrival: (time: Date, samples: Int)?
    private var lastArrival: (time: Date, samples: Int)?
    /// each data notification not yet taken: samples (or RR intervals) decoded once it
    /// was, and when it reached this process [s, CLOCK_MONOTONIC]
    private var arrivals: [BLEArrival] = []
    private let clock = SystemClock()

    /// Finds the device `target` names (address or exact name), connects, waits for its
    /// services, and starts the profile asked for (or the best it offers).
    public static func open(target: String, adapterName: String?, profile wanted: BLEProfile?, scanSeconds: Double,
                            connectTimeout: Double = 20,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws -> BLESensorStream {
        let client = try BlueZClient(environment: environment)
        let adapter = try client.adapter(named: adapterName)
        var device = try client.findDevice(target, on: adapter, seconds: scanSeconds)
        try client.connect(device, timeout: connectTimeout)
        let (services, characteristics) = try client.characteristics(of: device)
        let offered = BLEProfile.offered(byServices: services)
        device.uuids = services
        let chosen: BLEProfile
        if let wanted {
            guard offered.contains(wanted) else {
                throw BLEError.profileMissing(device: device.label, wanted: wanted.rawValue, offered: offered)
            }
            chosen = wanted
        } else {
            guard let best = BLEProfile.best(of: offered) else {
                throw BLEError.profileMissing(device: device.label, wanted: "an ECG or heart-rate profile", offered: offered)
            }
            chosen = best
        }
        guard let data = characteristics[chosen.dataCharacteristicUUID] else {
            throw BLEError.profileMissing(device: device.label, wanted: "\(chosen.rawValue)'s data characteristic", offered: offered)
        }
        var controlPoint: String?
        if chosen == .polar {
            guard let path = characteristics[BLEUUID.polarPMDControlPoint] else {
                throw BLEError.profileMissing(device: device.label, wanted: "the PMD control point", offered: offered)
            }
            controlPoint = path
        }
        let stream = BLESensorStream(client: client, device: device, profile: chosen, dataPath: data, controlPointPath: controlPoint)
        try stream.start()
        return stream
    }

    init(client: BlueZClient, device: BLEDevice, profile: BLEProfile, dataPath: String, controlPointPath: String?) {
        self.client = client
        self.device = device
        self.profile = profile
        self.dataPath = dataPath
        self.controlPointPath = controlPointPath
        decoder = BLENotificationDecoder(profile: profile)
    }

    /// Notifications on; for Polar, the control point's answers too, and the ECG start request.
    private func start() throws {
        if let controlPointPath {
            try client.startNotify(controlPointPath, device: device)
            try client.startNotify(dataPath, device: device)
            try client.writeValue(PolarPMD.startECGRequest, to: controlPointPath, device: device)
            try awaitStartAnswer(controlPointPath)
        } else {
            try client.startNotify(dataPath, device: device)
        }
    }

    /// Waits (at most 5 s) for the control point's answer to the start request; data
    /// that arrives meanwhile is kept. A missing answer is not an error (the data decides).
    private func awaitStartAnswer(_ controlPointPath: String) throws {
        let deadline = Date().addingTimeInterval(5)
        while deadline.timeIntervalSinceNow > 0 {
            guard let signal = try client.nextSignal(timeout: min(0.2, deadline.timeIntervalSinceNow)) else { continue }
            if signal.path == controlPointPath, let value = Self.changedValue(signal) {
                guard let answer = PolarPMD.ControlPointResponse.decode(value) else { continue }
                guard answer.opCode == PolarPMD.startMeasurement else { continue }
                // "already in state" after a reconnect is as good as started
                if answer.succeeded || answer.errorCode == 6 { return }
                throw BLEError.measurementRefused(device: device.label, reason: answer.errorText)
            }
            handle(signal)
        }
    }

    /// The bytes of a GattCharacteristic1 "Value" in a PropertiesChanged signal.
    static func changedValue(_ signal: DBusSignal) -> [UInt8]? {
        guard signal.member == "PropertiesChanged", signal.arguments.count >= 2,
              signal.arguments[0].string == "org.bluez.GattCharacteristic1" else { return nil }
        return signal.arguments[1].dictionary?["Value"]?.bytes
    }

    /// Takes what arrived within `timeout` seconds (0: only what is there); reconnects
    /// a dropped link. Throws when the link stays down past `reconnectLimit`.
    public func poll(timeout: Double) throws {
        if let lostAt {
            try reconnect(since: lostAt)
            return
        }
        let deadline = Date().addingTimeInterval(timeout)
        var wait = max(0, timeout)
        // everything that has arrived, waiting for the first at most `timeout` (bounded per call)
        for _ in 0..<10_000 {
            guard let signal = try client.nextSignal(timeout: wait) else { return }
            handle(signal)
            if lostAt != nil { return }
            wait = max(0, deadline.timeIntervalSinceNow)
        }
    }

    private func handle(_ signal: DBusSignal) {
        if signal.path == dataPath, let value = Self.changedValue(signal) {
            decoder.decode(value)
            arrivals.append(BLEArrival(delivered: profile == .hrs ? decoder.counts.rrIntervals : decoder.counts.samples,
                                       at: clock.now))
            let now = (time: Date(), samples: decoder.counts.samples)
            if firstArrival == nil { firstArrival = now }
            lastArrival = now
        } else if signal.path == device.path, signal.member == "PropertiesChanged",
                  signal.arguments.first?.string == "org.bluez.Device1",
                  signal.arguments.count >= 2, signal.arguments[1].dictionary?["Connected"]?.bool == false {
            lostAt = Date()
            decoder.counts.linkLosses += 1
        }
    }

    /// Tries to bring a dropped link back (each try at most 5 s); the gap is recorded when it does.
    private func reconnect(since: Date) throws {
        let waited = -since.timeIntervalSinceNow
        guard waited < reconnectLimit else { throw BLEError.linkLost(device: device.label, seconds: reconnectLimit) }
        do {
            try client.connect(device, timeout: min(5, max(1, reconnectLimit - waited)))
            try start()
        } catch let error as BLEError {
            if case .pairingNeeded = error { throw error }
            if case .measurementRefused = error { throw error }
            // not back yet: the next poll tries again
            _ = try client.nextSignal(timeout: 0.2)
            return
        }
        lostAt = nil
        decoder.counts.reconnects += 1
        // the arrival rate is measured again from here: a gap is not a slow clock
        firstArrival = nil
        lastArrival = nil
        gaps.append(BLEGap(afterSample: profile == .hrs ? counts.rrIntervals : counts.samples, seconds: -since.timeIntervalSinceNow))
    }

    /// The rate samples arrived at [Hz] from the first notification since the link last
    /// came up to the newest; nil before two seconds of them (a board's clock against its `--rate`).
    public var arrivalRate: Double? {
        guard let firstArrival, let lastArrival else { return nil }
        let span = lastArrival.time.timeIntervalSince(firstArrival.time)
        guard span >= 2 else { return nil }
        return Double(lastArrival.samples - firstArrival.samples) / span
    }

    /// Moves the arrival of every data notification since the last call into `buffer` (appended), oldest first.
    public func takeArrivals(into buffer: inout [BLEArrival]) {
        buffer.append(contentsOf: arrivals)
        arrivals.removeAll(keepingCapacity: true)
    }

    /// whether the link is down now (reconnecting)
    public var isReconnecting: Bool { lostAt != nil }

    /// Moves the decoded samples [mV] into `buffer` (appended), at most `limit` of them.
    public func takeSamples(into buffer: inout [Float], limit: Int = .max) {
        decoder.takeSamples(into: &buffer, limit: limit)
    }

    /// samples waiting to be taken
    public var pendingSamples: Int { decoder.pendingSamples }

    /// The decoded RR intervals [1/1024 s], oldest first; the stream keeps none of them.
    public func takeRRIntervals() -> [UInt16] { decoder.takeRRIntervals() }

    /// Stops the measurement (Polar) and disconnects, best effort.
    public func close() {
        if let controlPointPath { _ = try? client.writeValue(PolarPMD.stopECGRequest, to: controlPointPath, device: device) }
        client.disconnect(device)
    }
}

/// One profile's notifications turned into samples [mV] or RR intervals, with
/// the counts: a malformed or short notification is counted and skipped.
public struct BLENotificationDecoder: Sendable {
    public let profile: BLEProfile
    public var counts = BLENotificationCounts()
    /// the newest heart rate a strap reported [beats/min]
    public private(set) var heartRate: Int?
    /// the newest Polar frame's sensor timestamp [ns]
    public private(set) var sensorTimestamp: UInt64?
    /// samples [mV] decoded and not yet taken
    private var samples: [Float] = []
    /// RR intervals [1/1024 s] decoded and not yet taken
    private var rrIntervals: [UInt16] = []

    public init(profile: BLEProfile) {
        self.profile = profile
    }

    /// Decodes one notification of the data characteristic.
    public mutating func decode(_ value: [UInt8]) {
        counts.notifications += 1
        switch profile {
        case .kardia:
            if KardiaDecoder.decode(value, into: &samples) {
                counts.samples += value.count / 4
            } else {
                counts.malformed += 1
            }
        case .polar:
            guard let frame = PolarPMD.ECGFrame.decode(value) else {
                counts.malformed += 1
                return
            }
            sensorTimestamp = frame.timestamp
            // in Double, so 1000 µV is exactly the Float nearest 1 mV (as the CSV reader converts)
            for microvolts in frame.microvolts { samples.append(Float(Double(microvolts) / 1000)) }
            counts.samples += frame.microvolts.count
        case .hrs:
            guard let measurement = HeartRateMeasurement.decode(value) else {
                counts.malformed += 1
                return
            }
            heartRate = measurement.heartRate
            rrIntervals.append(contentsOf: measurement.rrIntervals)
            counts.rrIntervals += measurement.rrIntervals.count
        }
    }

    /// Moves the decoded samples [mV] into `buffer` (appended), at most `limit` of them.
    public mutating func takeSamples(into buffer: inout [Float], limit: Int = .max) {
        let count = min(limit, samples.count)
        guard count > 0 else { return }
        buffer.append(contentsOf: samples[0..<count])
        samples.removeFirst(count)
    }

    /// samples waiting to be taken
    public var pendingSamples: Int { samples.count }

    /// The decoded RR intervals [1/1024 s], oldest first.
    public mutating func takeRRIntervals() -> [UInt16] {
        defer { rrIntervals.removeAll(keepingCapacity: true) }
        return rrIntervals
    }
}
