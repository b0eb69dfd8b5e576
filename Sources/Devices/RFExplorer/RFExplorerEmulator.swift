import Foundation
import Signals
import ThreadKit
import USBDriver

/// An RF Explorer behind its CP210x bridge, at the USB-transfer level: the
/// bridge's vendor requests set up its UART, and only with the UART enabled
/// at 500 kbit/s 8N1 do commands reach the analyzer and its answers come
/// back intact (at another speed they arrive garbled, as on a real serial
/// line). The analyzer answers `C0` with its model and configuration and
/// then streams sweeps, `C2-F` with the new configuration, `CH` by holding.
/// Sweeps measure an `AnalyzerScene`.
///
/// Not thread-safe: the hosting transport serialises calls.
public final class RFExplorerEmulator: FirmwareEmulator {
    public struct Options: Sendable {
        /// samples per sweep: ≤ 255 go as `$S`, multiples of 16 up to 4096
        /// as `$s`, others as `$z`
        public var points: Int
        /// time between sweeps [s]; 0 = as fast as the host reads
        public var secondsPerSweep: Double
        /// tunable limits and widest span [Hz] (the WSUB3G model's range)
        public var minHz: Double
        public var maxHz: Double
        public var maxSpanHz: Double
        public var faults: EmulatorFaults?
        public var serialNumber: String
        /// the operating mode the unit is in (RFExplorerConfiguration.mode);
        /// only the spectrum analyzer (0) sends sweeps
        public var mode: Int

        public init(points: Int = 112, secondsPerSweep: Double = 0.05, minHz: Double = 15e6, maxHz: Double = 2_700e6,
                    maxSpanHz: Double = 600e6, faults: EmulatorFaults? = nil, serialNumber: String = "0001",
                    mode: Int = RFExplorerConfiguration.spectrumAnalyzerMode) {
            self.mode = mode
            self.points = points
            self.secondsPerSweep = secondsPerSweep
            self.minHz = minHz
            self.maxHz = maxHz
            self.maxSpanHz = maxSpanHz
            self.faults = faults
            self.serialNumber = serialNumber
        }
    }

    /// The bridge's UART as the host set it.
    public struct BridgeState: Sendable, Equatable {
        public var enabled = false
        public var baudRate: UInt32 = 9_600
        public var lineControl: UInt16 = 0
        public var modemHandshake: UInt16 = 0
        public var purges = 0

        var passesData: Bool {
            enabled && baudRate == RFExplorerProtocol.baudRate && lineControl == CP210xBridge.lineControl8N1
        }
    }

    public let options: Options
    /// paces the emulated device's output (tests may hand in a `ManualClock`)
    private let clock: any MonotonicClock
    public private(set) var bridge = BridgeState()
    public private(set) var configuration: RFExplorerConfiguration
    public private(set) var streaming = false
    /// sweeps queued for sending
    public private(set) var sweepsSent = 0
    private var scene: AnalyzerScene
    private var received: [UInt8] = []
    private var nextSweepAt = 0.0
    private let replies: SerialReplyQueue

    /// Measures the demo scene (`AnalyzerScene.standard(seed:)`).
    public convenience init(seed: UInt64 = 1, options: Options = Options(), clock: any MonotonicClock = SystemClock()) {
        self.init(scene: AnalyzerScene.standard(seed: seed), options: options, clock: clock)
    }

    /// - Parameter clock: paces the sweeps (when each is ready to send)
    public init(scene: AnalyzerScene, options: Options = Options(), clock: any MonotonicClock = SystemClock()) {
        self.options = options
        self.clock = clock
        self.scene = scene
        configuration = Self.powerOnConfiguration(options)
        replies = SerialReplyQueue(faults: options.faults, deviceName: "RF Explorer")
    }

    /// 430–440 MHz with the unit's points, as after power-on.
    private static func powerOnConfiguration(_ options: Options) -> RFExplorerConfiguration {
        let points = max(2, options.points)
        let step = (10e6 / Double(points - 1)).rounded(.down)
        return RFExplorerConfiguration(
            startHz: 430e6, stepHz: step, topDBm: -10, bottomDBm: -120, points: points, minHz: options.minHz,
            maxHz: options.maxHz, maxSpanHz: options.maxSpanHz, mode: options.mode, rbwHz: resolutionBandwidth(step: step))
    }

    /// The RBW the emulator measures with and reports [Hz]: the sample step
    /// rounded up to whole kHz (the field's unit), at least 3 kHz. This is
    /// the emulator's rule; a real unit reports its own choice in the field.
    static func resolutionBandwidth(step: Double) -> Double {
        max(3, (step / 1e3).rounded(.up)) * 1e3
    }

    /// The unit restarts (power glitch, watchdog): it announces itself with
    /// the reset line, forgets the band the host set and stops streaming
    /// until asked again with `C0`.
    public func reboot() {
        replies.clear()
        received.removeAll()
        streaming = false
        configuration = Self.powerOnConfiguration(options)
        replies.append(Array((RFExplorerProtocol.resetPrefix + "2010-20\r\n").utf8))
    }

    public var intactSweeps: Int { replies.intactMessages }
    public var damagedSweeps: Int { replies.damagedMessages }

    public var deviceInfo: USBDeviceInfo {
        USBDeviceInfo(vendorID: CP210xBridge.vendorID, productID: CP210xBridge.productID, bcdDevice: 0x0100,
                      manufacturer: "Silicon Labs", product: "CP2102 USB to UART Bridge Controller",
                      serialNumber: options.serialNumber)
    }

    public func controlOut(_ setup: ControlSetup, data: [UInt8]) throws(USBError) {
        if replies.isUnplugged { throw .disconnected(device: "RF Explorer") }
        guard setup.requestType == .vendorInterfaceOut, setup.index == CP210xBridge.interface,
              let request = CP210xBridge.Request(rawValue: setup.request) else {
            throw .stalled(operation: "control request \(setup)")
        }
        switch request {
        case .ifcEnable: bridge.enabled = setup.value & 1 == 1
        case .setLineControl: bridge.lineControl = setup.value
        case .setModemHandshake: bridge.modemHandshake = setup.value
        case .purge:
            bridge.purges += 1
            replies.clear()
            received.removeAll()
        case .setBaudRate:
            guard data.count == 4 else { throw .stalled(operation: "SET_BAUDRATE with \(data.count) bytes") }
            bridge.baudRate = UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16 | UInt32(data[3]) << 24
        }
    }

    public func controlIn(_ setup: ControlSetup, length: Int) throws(USBError) -> [UInt8] {
        throw .stalled(operation: "control IN \(setup)")
    }

    public func bulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        guard endpoint == CP210xBridge.bulkInEndpoint else {
            throw .stalled(operation: "bulk IN on 0x\(String(endpoint, radix: 16))")
        }
        guard bridge.enabled else { return 0 }
        let now = clock.now
        if streaming, configuration.mode == RFExplorerConfiguration.spectrumAnalyzerMode, replies.isEmpty,
           now >= nextSweepAt {
            queueSweep()
            nextSweepAt = max(nextSweepAt + options.secondsPerSweep, now)
        }
        let count = try replies.fill(into: buffer, now: now)
        if !bridge.passesData {
            // wrong speed or framing: every byte arrives mangled
            for index in 0..<count { buffer[index] = buffer[index] ^ 0x5a | 0x80 }
        }
        return count
    }

    public func bulkOut(endpoint: UInt8, data: [UInt8]) throws(USBError) -> Int {
        if replies.isUnplugged { throw .disconnected(device: "RF Explorer") }
        guard endpoint == CP210xBridge.bulkOutEndpoint else {
            throw .stalled(operation: "bulk OUT on 0x\(String(endpoint, radix: 16))")
        }
        // the bytes reach the analyzer only through a correctly set UART
        guard bridge.passesData else { return data.count }
        received += data
        executeCommands()
        return data.count
    }

    /// Takes every complete `#`-framed command off the input.
    private func executeCommands() {
        while true {
            guard let start = received.firstIndex(of: UInt8(ascii: "#")) else {
                received.removeAll()
                return
            }
            if start > 0 { received.removeFirst(start) }
            guard received.count >= 2 else { return }
            let length = Int(received[1])
            guard length > 2 else {
                received.removeFirst(2)
                continue
            }
            guard received.count >= length else { return }
            execute(String(decoding: received[2..<length], as: UTF8.self))
            received.removeFirst(length)
        }
    }

    private func execute(_ command: String) {
        if command == "C0" {
            replies.append(Array("#C2-M:005,255,01.15\r\n".utf8))
            replies.append(Array((configuration.line + "\r\n").utf8))
            streaming = true
        } else if command == "CH" {
            streaming = false
        } else if command.hasPrefix("C2-F:") {
            setRange(command.dropFirst(5).split(separator: ","))
        }
    }

    /// `C2-F:start,end,top,bottom` [kHz, kHz, dBm, dBm]: the analyzer keeps
    /// its point count, clamps the band to what it can do and answers with
    /// the configuration it took.
    private func setRange(_ fields: [Substring]) {
        guard fields.count == 4, let startKHz = Int(fields[0]), let endKHz = Int(fields[1]),
              let top = Int(fields[2]), let bottom = Int(fields[3]), startKHz < endKHz else { return }
        var start = max(Double(startKHz) * 1e3, options.minHz)
        var end = min(Double(endKHz) * 1e3, options.maxHz)
        if end - start > options.maxSpanHz { end = start + options.maxSpanHz }
        // 112 kHz is the narrowest span (RFExplorer.py m_fMinSpanMHZ)
        if end - start < 112e3 { start = max(options.minHz, end - 112e3) }
        configuration.startHz = (start / 1e3).rounded(.down) * 1e3
        configuration.stepHz = ((end - configuration.startHz) / Double(configuration.points - 1)).rounded(.down)
        configuration.rbwHz = Self.resolutionBandwidth(step: configuration.stepHz)
        configuration.topDBm = top
        configuration.bottomDBm = bottom
        replies.clear()
        replies.append(Array((configuration.line + "\r\n").utf8))
        nextSweepAt = clock.now + options.secondsPerSweep
    }

    private func queueSweep() {
        let points = configuration.points
        var sweep: [UInt8] = [UInt8(ascii: "$")]
        if points <= 255 {
            sweep += [UInt8(ascii: "S"), UInt8(points)]
        } else if points % 16 == 0, points <= 4096 {
            sweep += [UInt8(ascii: "s"), UInt8(truncatingIfNeeded: points / 16)]
        } else {
            sweep += [UInt8(ascii: "z"), UInt8(points >> 8), UInt8(points & 0xff)]
        }
        for index in 0..<points {
            let frequency = configuration.startHz + Double(index) * configuration.stepHz
            let dBm = scene.levelDBm(at: frequency, rbwHz: configuration.rbwHz ?? configuration.stepHz)
            sweep.append(UInt8(clamping: Int((-2 * dBm).rounded())))
        }
        sweep += RFExplorerProtocol.lineEnd
        sweepsSent += 1
        replies.append(sweep, counted: true)
    }
}
