import Foundation
import Signals
import USBDriver

/// A tinySA (basic or Ultra) at the USB-transfer level: answers the CDC-ACM
/// class requests, reads command lines from bulk OUT, echoes them and
/// answers `version` and `scanraw` on bulk IN in 64-byte packets, each reply
/// ending with the `ch> ` prompt, as the firmware's shell does. Sweeps
/// measure an `AnalyzerScene`.
///
/// Not thread-safe: the hosting transport serialises calls.
public final class TinySAEmulator: FirmwareEmulator {
    public struct Options: Sendable {
        public var model: TinySAModel
        /// time to measure one point [s]; 0 = answer at once
        public var secondsPerPoint: Double
        /// seeded faults on bulk IN packets (resilience tests)
        public var faults: EmulatorFaults?
        public var serialNumber: String

        public init(model: TinySAModel = .basic, secondsPerPoint: Double = 0.000_25,
                    faults: EmulatorFaults? = nil, serialNumber: String = "400") {
            self.model = model
            self.secondsPerPoint = secondsPerPoint
            self.faults = faults
            self.serialNumber = serialNumber
        }
    }

    /// What the host has set through the CDC class requests.
    public struct PortState: Sendable, Equatable {
        /// the 7-byte line coding last set, empty before
        public var lineCoding: [UInt8] = []
        public var dtrAndRTS: UInt16 = 0
    }

    public let options: Options
    public private(set) var portState = PortState()
    /// scanraw commands answered with a sweep
    public private(set) var sweepsAnswered = 0
    private var scene: AnalyzerScene
    private var commandLine: [UInt8] = []
    private let replies: SerialReplyQueue

    /// Measures the demo scene (`AnalyzerScene.standard(seed:)`).
    public convenience init(seed: UInt64 = 1, options: Options = Options()) {
        self.init(scene: AnalyzerScene.standard(seed: seed), options: options)
    }

    public init(scene: AnalyzerScene, options: Options = Options()) {
        self.options = options
        self.scene = scene
        replies = SerialReplyQueue(faults: options.faults, deviceName: options.model.displayName)
    }

    /// sweeps that left whole / that a fault hit (resilience accounting)
    public var intactSweeps: Int { replies.intactMessages }
    public var damagedSweeps: Int { replies.damagedMessages }

    public var deviceInfo: USBDeviceInfo {
        USBDeviceInfo(vendorID: TinySAProtocol.vendorID, productID: TinySAProtocol.productID, bcdDevice: 0x0200,
                      manufacturer: "tinysa.org", product: options.model.displayName,
                      serialNumber: options.serialNumber)
    }

    public func controlOut(_ setup: ControlSetup, data: [UInt8]) throws(USBError) {
        if replies.isUnplugged { throw .disconnected(device: options.model.displayName) }
        guard setup.requestType == .classInterfaceOut, setup.index == TinySAProtocol.controlInterface else {
            throw .stalled(operation: "control request \(setup)")
        }
        switch setup.request {
        case TinySAProtocol.setLineCoding:
            guard data.count == 7 else { throw .stalled(operation: "SET_LINE_CODING with \(data.count) bytes") }
            portState.lineCoding = data
        case TinySAProtocol.setControlLineState:
            portState.dtrAndRTS = setup.value
        default:
            throw .stalled(operation: "class request \(setup.request)")
        }
    }

    public func controlIn(_ setup: ControlSetup, length: Int) throws(USBError) -> [UInt8] {
        throw .stalled(operation: "control IN \(setup)")
    }

    public func bulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        guard endpoint == TinySAProtocol.bulkInEndpoint else { throw .stalled(operation: "bulk IN on 0x\(String(endpoint, radix: 16))") }
        return try replies.fill(into: buffer, now: monotonicSeconds())
    }

    public func bulkOut(endpoint: UInt8, data: [UInt8]) throws(USBError) -> Int {
        if replies.isUnplugged { throw .disconnected(device: options.model.displayName) }
        guard endpoint == TinySAProtocol.bulkOutEndpoint else { throw .stalled(operation: "bulk OUT on 0x\(String(endpoint, radix: 16))") }
        for byte in data {
            if byte == TinySAProtocol.commandTerminator {
                execute(String(decoding: commandLine, as: UTF8.self))
                commandLine.removeAll(keepingCapacity: true)
            } else if byte != 0x0a {
                commandLine.append(byte)
            }
        }
        return data.count
    }

    /// Echo, answer, prompt — as the firmware shell.
    private func execute(_ line: String) {
        replies.append(Array((line + "\r\n").utf8))
        let words = line.split(separator: " ").map(String.init)
        switch words.first {
        case nil:
            break
        case "version":
            replies.append(Array((options.model.versionLine + "\r\nHW Version:V0.4.5.1\r\n").utf8))
        case "scanraw":
            if let sweep = scanRaw(Array(words.dropFirst())) {
                // the sweep and its prompt travel as one message: a fault in
                // either spoils the reply
                sweepsAnswered += 1
                replies.append(sweep.bytes + TinySAProtocol.prompt,
                               readyAt: monotonicSeconds() + options.secondsPerPoint * Double(sweep.points),
                               counted: true)
                return
            }
            replies.append(Array("usage: scanraw {start(Hz)} {stop(Hz)} [points]\r\n".utf8))
        default:
            replies.append(Array("\(words[0])?\r\n".utf8))
        }
        replies.append(TinySAProtocol.prompt)
    }

    /// `scanraw start stop [points]`: the firmware measures point i at
    /// start + i·(stop − start)/points.
    private func scanRaw(_ arguments: [String]) -> (bytes: [UInt8], points: Int)? {
        guard (2...3).contains(arguments.count), let start = UInt64(arguments[0]), let stop = UInt64(arguments[1]),
              let points = arguments.count == 3 ? Int(arguments[2]) : options.model.maxPoints,
              start <= stop, (1...options.model.maxPoints).contains(points) else {
            return nil
        }
        let step = Double(stop - start) / Double(points)
        var reply: [UInt8] = [TinySAProtocol.scanOpen]
        reply.reserveCapacity(2 + 3 * points)
        let zero = Double(options.model.zeroLevelDB)
        for index in 0..<points {
            let dBm = scene.levelDBm(at: Double(start) + step * Double(index), rbwHz: max(step, 3_000))
            let raw = Int16(clamping: Int(((dBm + zero) * Double(TinySAProtocol.rawUnitsPerDB)).rounded()))
            let bits = UInt16(bitPattern: raw)
            reply += [TinySAProtocol.scanPointMarker, UInt8(bits & 0xff), UInt8(bits >> 8)]
        }
        reply.append(TinySAProtocol.scanClose)
        return (reply, points)
    }
}
