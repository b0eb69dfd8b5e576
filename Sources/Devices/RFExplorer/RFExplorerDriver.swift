import Signals
import Synchronization
import ThreadKit
import USBDriver

/// Speaks to an RF Explorer over any `USBTransport`: configures the CP210x
/// bridge's UART, asks for the configuration (`C0`), sets ranges (`C2-F`)
/// and streams what the analyzer sends to a handler.
///
/// `open`, `send` and the stream calls come from one thread; the data
/// handler runs on the transport's thread.
public final class RFExplorerDriver: Sendable {
    public let transport: USBTransport
    /// times the waits for the device's replies (tests may hand in a `ManualClock`)
    private let clock: any MonotonicClock
    /// what `open()` read: the configuration, and the `#C2-M:` model line if the analyzer sent one
    private let found = Guarded<(configuration: RFExplorerConfiguration?, modelLine: String?)>((nil, nil))
    public var configuration: RFExplorerConfiguration? { found.withLock { $0.configuration } }
    public var modelLine: String? { found.withLock { $0.modelLine } }

    static let transferSize = 512
    static let transfersInFlight = 4
    static let writeTimeoutMS: UInt32 = 500

    public init(transport: USBTransport, clock: any MonotonicClock = SystemClock()) throws(USBError) {
        let info = transport.deviceInfo
        guard info.vendorID == CP210xBridge.vendorID, info.productID == CP210xBridge.productID else {
            throw .unsupported("device \(info.idString) is not an RF Explorer's CP210x bridge (10c4:ea60)")
        }
        self.transport = transport
        self.clock = clock
    }

    /// Configures the bridge (500 kbit/s 8N1), sends `C0` and reads until the
    /// configuration line arrives.
    public func open(timeoutSeconds: Double = 2) throws(USBError) {
        try CP210xBridge.configure(transport, baudRate: RFExplorerProtocol.baudRate)
        try send(RFExplorerProtocol.requestConfig)
        var parser = RFExplorerStreamParser()
        let deadline = clock.now + timeoutSeconds
        var configuration: RFExplorerConfiguration?
        var modelLine: String?
        while configuration == nil {
            let left = deadline - clock.now
            guard left > 0 else {
                throw .unsupported("the device at 10c4:ea60 did not answer as an RF Explorer within "
                    + "\(Int(timeoutSeconds)) s: check that it is switched on in spectrum analyzer mode with "
                    + "the serial speed set to 500 Kbps (Menu → Config)")
            }
            let chunk: [UInt8]
            do {
                chunk = try transport.bulkIn(endpoint: CP210xBridge.bulkInEndpoint, length: Self.transferSize,
                                             timeoutMS: UInt32(max(1, min(left, 0.1) * 1000)))
            } catch {
                if case .timeout = error { continue }
                throw error
            }
            chunk.withUnsafeBytes { bytes in
                parser.feed(bytes) { event, _ in
                    guard case .line(let line) = event else { return }
                    if line.hasPrefix("#C2-M:") { modelLine = line }
                    if let found = RFExplorerConfiguration(line: line) { configuration = found }
                }
            }
        }
        found.withLock { $0 = (configuration, modelLine) }
        if let configuration, configuration.mode != RFExplorerConfiguration.spectrumAnalyzerMode {
            throw .unsupported("the RF Explorer is in \(configuration.modeName) mode, which sends no spectrum sweeps: "
                + "switch it to spectrum analyzer mode on the unit")
        }
    }

    public func send(_ bytes: [UInt8]) throws(USBError) {
        var offset = 0
        while offset < bytes.count {
            let written = try transport.bulkOut(endpoint: CP210xBridge.bulkOutEndpoint, data: Array(bytes[offset...]),
                                                timeoutMS: Self.writeTimeoutMS)
            guard written > 0 else { throw .io(operation: "RF Explorer command write", detail: "the bridge took no bytes") }
            offset += written
        }
    }

    public func startStream(onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        try transport.startBulkStream(endpoint: CP210xBridge.bulkInEndpoint, transferSize: Self.transferSize,
                                      transfersInFlight: Self.transfersInFlight, onData: onData, onEnd: onEnd)
    }

    public func stopStream() {
        transport.stopBulkStream()
    }
}
