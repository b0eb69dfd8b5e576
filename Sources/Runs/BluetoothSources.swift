import BluetoothLE
import ECG
import Foundation

/// A Bluetooth LE sensor as a command asks for it (`--ble`, `--ble-adapter`,
/// `--ble-profile`, `--scan-time`).
public struct BluetoothSourceRequest: Sendable, Equatable {
    /// the device's address (either case) or exact name
    public var target: String
    /// the adapter (hci0), nil for the first powered one
    public var adapter: String?
    /// the profile to read, nil for the best the device offers
    public var profile: BLEProfile?
    /// how long to scan for a device BlueZ does not know yet [s]
    public var scanSeconds: Double = 10

    public init(target: String, adapter: String? = nil, profile: BLEProfile? = nil, scanSeconds: Double = 10) {
        self.target = target
        self.adapter = adapter
        self.profile = profile
        self.scanSeconds = scanSeconds
    }

    /// Finds, connects and starts the sensor; a failure is one line (`BLEError`'s) for the user.
    public func open(rate: Double?) throws -> BLESensorReader {
        let request = self
        let stream = try Self.mapped {
            try BLESensorReader {
                try BLESensorStream.open(target: request.target, adapterName: request.adapter, profile: request.profile,
                                         scanSeconds: request.scanSeconds)
            }
        }
        if stream.profile == .kardia, rate == nil {
            stream.close()
            throw CommandError("--ble \(target): a Kardia-style board does not say its sample rate: give it with --rate HZ")
        }
        return stream
    }

    /// Runs `work`, turning a `BLEError` into the command's one-line error.
    static func mapped<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as BLEError {
            throw CommandError(error.description)
        }
    }
}

/// A sensor's ECG samples (the Kardia-style board's, a Polar H10's) as an
/// `ECGSource`: one lead in mV, at the board's `--rate` or Polar's 130 Hz.
/// The link is read on the reader's own thread; `read` takes what has
/// arrived without waiting, with the time the oldest of it arrived.
public final class BluetoothECGSource: LinkedECGSource {
    public let reader: BLESensorReader
    public let sampleRate: Double
    public let leadNames = ["ECG"]
    public private(set) var lastReadArrival: Double?
    private var delivered = 0

    /// `reader`'s samples, at Polar's 130 Hz or the board's `rate`.
    public init(reader: BLESensorReader, rate: Double?) {
        sampleRate = reader.profile == .polar ? PolarPMD.ecgSampleRate : rate ?? 0
        self.reader = reader
    }

    public func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        guard !chunk.leads.isEmpty else { return .waiting }
        let (count, oldest) = chunk.leads[0].withUnsafeMutableBufferPointer { reader.takeSamples(into: $0) }
        lastReadArrival = oldest
        guard count > 0 else {
            // what arrived before the link was given up is delivered first
            if let failure = reader.status.failure { throw CommandError(failure.description) }
            return .waiting
        }
        for lead in chunk.leads.indices.dropFirst() {
            for index in 0..<count { chunk.leads[lead][index] = 0 }
        }
        chunk.count = count
        chunk.firstSampleIndex = delivered
        delivered += count
        return .samples(count)
    }

    public var gaps: [ECGStreamGap] { gapList.gaps(of: reader) }
    private var gapList = SensorGaps()

    /// Stops the reader and the sensor's measurement, disconnects.
    public func close() { reader.close() }

    /// how far the arrival rate may stray from the stated one before the status line says so
    static let driftTolerance = 0.01

    /// "reconnecting", or the board's clock off its `--rate` by more than 1 % ("arriving at 352.1 Hz, --rate 360")
    public var linkNote: String? {
        let status = reader.status
        if status.isReconnecting { return "link lost: reconnecting" }
        guard let arrival = status.arrivalRate, sampleRate > 0, abs(arrival / sampleRate - 1) > Self.driftTolerance else { return nil }
        return String(format: "arriving at %.1f Hz, ", arrival) + (reader.profile == .kardia ? "--rate" : "nominal") + " \(Int(sampleRate.rounded())) Hz"
    }

    /// What arrived, for stderr at the end of a run: the counts, and the rate samples came at against the one expected.
    public var summary: String {
        let status = reader.status
        var text = BluetoothSummary.line(reader, status)
        if let arrival = status.arrivalRate, sampleRate > 0 {
            text += String(format: "; arriving at %.1f Hz", arrival)
                + " (\(reader.profile == .kardia ? "--rate" : "nominal") \(Int(sampleRate.rounded())) Hz)"
        }
        return text
    }
}

/// A heart-rate strap's RR intervals as beat times on their own clock (1/1024 s),
/// for the viewers: the first interval's start is the first beat.
public final class BluetoothStrapSource: LiveBeatSource {
    public let reader: BLESensorReader
    public let clockRate = 1024.0
    public private(set) var lastReadArrival: Double?
    private var newestBeat: Int?

    public init(reader: BLESensorReader) {
        self.reader = reader
    }

    public func takeBeats(into beats: inout [Int]) throws {
        let taken = reader.takeRRIntervals()
        lastReadArrival = taken.arrivals.first
        if taken.intervals.isEmpty, let failure = reader.status.failure { throw CommandError(failure.description) }
        for interval in taken.intervals where interval > 0 {
            if newestBeat == nil {
                newestBeat = 0
                beats.append(0)
            }
            newestBeat! += Int(interval)
            beats.append(newestBeat!)
        }
    }

    public var gaps: [ECGStreamGap] { gapList.gaps(of: reader) }
    private var gapList = SensorGaps()

    /// Stops the reader and disconnects.
    public func close() { reader.close() }

    public var linkNote: String? { reader.status.isReconnecting ? "link lost: reconnecting" : nil }

    /// The closing line: what came, what was skipped, the gaps.
    public var summary: String { BluetoothSummary.line(reader, reader.status) }
}

/// A sensor's link gaps as the ECG sources give them, converted only when a new one
/// came: the viewers and the monitor ask after every read.
struct SensorGaps {
    private var converted: [ECGStreamGap] = []

    mutating func gaps(of reader: BLESensorReader) -> [ECGStreamGap] {
        let gaps = reader.status.gaps
        if gaps.count != converted.count {
            converted = gaps.map { ECGStreamGap(afterSample: $0.afterSample, seconds: $0.seconds) }
        }
        return converted
    }
}

/// The closing line of a Bluetooth run: what came, what was skipped, the gaps.
enum BluetoothSummary {
    static func line(_ reader: BLESensorReader, _ status: BLESensorReader.Status) -> String {
        let counts = status.counts
        let what = reader.profile == .hrs ? "\(counts.rrIntervals) RR intervals" : "\(counts.samples) samples"
        var text = "\(reader.device.label) (\(reader.profile.rawValue)): \(counts.notifications) notifications, \(what), "
            + "\(counts.malformed) malformed skipped"
        if counts.linkLosses > 0 {
            let lost = status.gaps.reduce(0) { $0 + $1.seconds }
            text += ", link lost \(counts.linkLosses) times (reconnected \(counts.reconnects), " + String(format: "%.1f s without data)", lost)
        }
        if status.isReconnecting { text += ", the link down when the run ended" }
        if status.dropped > 0 { text += ", \(status.dropped) samples dropped unread" }
        return text
    }
}

/// `ecg devices --ble`: what a scan finds, with the profiles each device offers.
public struct BluetoothDevicesRun {
    public var adapter: String?
    public var scanSeconds: Double

    public init(adapter: String?, scanSeconds: Double) {
        self.adapter = adapter
        self.scanSeconds = scanSeconds
    }

    /// The table: name, address, RSSI [dBm] and profiles, one device a line.
    public func run() throws -> String {
        try BluetoothSourceRequest.mapped {
            let client = try BlueZClient()
            let adapter = try client.adapter(named: self.adapter)
            let devices = try client.scan(on: adapter, seconds: scanSeconds)
            return Self.table(devices, adapter: adapter.name)
        }
    }

    static func table(_ devices: [BLEDevice], adapter: String) -> String {
        guard !devices.isEmpty else { return "no Bluetooth LE devices seen on \(adapter)" }
        let nameWidth = max(4, devices.map(\.name.count).max() ?? 0)
        func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var lines = [padded("NAME", nameWidth) + "  ADDRESS            RSSI  PROFILES"]
        for device in devices {
            let rssi = device.rssi.map { "\($0)" } ?? "-"
            let profiles = device.profiles.map(\.rawValue).joined(separator: ",")
            lines.append(padded(device.name, nameWidth) + "  " + padded(device.address, 17) + "  " + padded(rssi, 4) + "  "
                         + (profiles.isEmpty ? "-" : profiles))
        }
        return lines.joined(separator: "\n")
    }
}

extension ECGMonitorRun {
    /// A heart-rate strap: its RR intervals through the beat-based rhythm engine
    /// (as `--rr` files go), on the beats' own clock (1/1024 s), a line per
    /// second of it; stops at `--to`, or when nothing has come for `silence` seconds.
    func runStrap(_ reader: BLESensorReader, silence: Double = 15) throws {
        let strap = BluetoothStrapSource(reader: reader)
        defer { reader.close() }
        let monitor = BeatRhythmMonitor(liveName: reader.device.label, sampleRate: strap.clockRate)
        let output = ECGMonitorOutput(json: json, flushEachLine: true)
        let limit = to.map { Int($0.rounded(.down)) }
        var beats: [Int] = []
        var newestBeat: Int?
        var second = 1
        var lastArrival = Date()
        var gapsShown = 0
        running: while limit.map({ second <= $0 }) ?? true {
            usleep(20_000)
            let gaps = strap.gaps
            if gaps.count > gapsShown {
                for gap in gaps[gapsShown...] { output.gap(time: Double(newestBeat ?? 0) / strap.clockRate, seconds: gap.seconds) }
                gapsShown = gaps.count
            }
            beats.removeAll(keepingCapacity: true)
            try strap.takeBeats(into: &beats)
            if !beats.isEmpty { lastArrival = Date() }
            for beat in beats { monitor.append(beatAt: beat) }
            newestBeat = beats.last ?? newestBeat
            while let last = newestBeat, monitor.sample(atSecond: second) <= last {
                if let limit, second > limit { break running }
                monitor.advance(toSecond: second)
                for episode in monitor.takeEndedEpisodes() { output.event(episode) }
                output.report(time: second, pipeline: monitor)
                second += 1
            }
            if -lastArrival.timeIntervalSinceNow > silence, !reader.status.isReconnecting {
                printError("\(reader.device.label): no RR intervals for \(Int(silence)) s (is the strap worn, its electrodes wet?)")
                break
            }
        }
        for episode in monitor.finish() { output.event(episode) }
        output.summary(pipeline: monitor)
        strap.close()
        printError(strap.summary)
    }
}
