import Foundation
import Signals
import USBDriver

/// Speaks to a tinySA's shell over any `USBTransport`: sets up the CDC-ACM
/// port (line coding, DTR/RTS), tells basic from Ultra by `version`, sends
/// command lines on bulk OUT and streams bulk IN to a handler.
///
/// `open`, `send` and the stream calls come from one thread; the data
/// handler runs on the transport's thread.
public final class TinySADriver: @unchecked Sendable {
    public let transport: USBTransport
    /// the model `identify()` found
    public private(set) var model: TinySAModel = .basic
    /// the `version` line the device answered with
    public private(set) var versionLine = ""

    /// bytes per bulk IN transfer of the stream, and transfers kept queued
    static let transferSize = 512
    static let transfersInFlight = 4

    public init(transport: USBTransport) throws(USBError) {
        let info = transport.deviceInfo
        guard info.vendorID == TinySAProtocol.vendorID, info.productID == TinySAProtocol.productID else {
            throw .unsupported("device \(info.idString) is not a tinySA (0483:5740)")
        }
        self.transport = transport
    }

    /// Sets the port up, then asks `version` and reads up to the prompt.
    /// Throws `.unsupported` when the STM32 serial device on the other end
    /// is not a tinySA (a NanoVNA shares its USB ids).
    public func open(timeoutSeconds: Double = 2) throws(USBError) {
        try transport.controlOut(ControlSetup(requestType: .classInterfaceOut, request: TinySAProtocol.setLineCoding,
                                              index: TinySAProtocol.controlInterface),
                                 data: TinySAProtocol.lineCoding, timeoutMS: TinySAProtocol.controlTimeoutMS)
        try transport.controlOut(ControlSetup(requestType: .classInterfaceOut,
                                              request: TinySAProtocol.setControlLineState,
                                              value: TinySAProtocol.dtrAndRTS, index: TinySAProtocol.controlInterface),
                                 data: [], timeoutMS: TinySAProtocol.controlTimeoutMS)
        // a CR first ends any half-typed line; its prompt is read with the reply
        try send(Array("\rversion\r".utf8))
        let reply = try readUntilPrompt(count: 2, timeoutSeconds: timeoutSeconds)
        // bytes, not Characters: "\r\n" is one Character
        let lines = reply.split(whereSeparator: { $0 == 0x0d || $0 == 0x0a }).map { String(decoding: $0, as: UTF8.self) }
        guard let line = lines.first(where: { TinySAModel(versionLine: $0) != nil }),
              let found = TinySAModel(versionLine: line) else {
            throw .unsupported("the device at 0483:5740 did not answer `version` as a tinySA does "
                + "(a NanoVNA or another STM32 serial device?); got \(reply.count) bytes")
        }
        model = found
        versionLine = line
    }

    /// Writes one command line (or raw bytes) to bulk OUT.
    public func send(_ bytes: [UInt8]) throws(USBError) {
        var offset = 0
        while offset < bytes.count {
            let written = try transport.bulkOut(endpoint: TinySAProtocol.bulkOutEndpoint,
                                                data: Array(bytes[offset...]), timeoutMS: TinySAProtocol.writeTimeoutMS)
            guard written > 0 else {
                throw .io(operation: "tinySA command write", detail: "the device took no bytes")
            }
            offset += written
        }
    }

    /// Starts delivering bulk IN bytes to `onData` (transport thread).
    public func startStream(onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        try transport.startBulkStream(endpoint: TinySAProtocol.bulkInEndpoint, transferSize: Self.transferSize,
                                      transfersInFlight: Self.transfersInFlight, onData: onData, onEnd: onEnd)
    }

    public func stopStream() {
        transport.stopBulkStream()
    }

    /// Synchronous reads until `count` prompts have arrived (before the stream runs).
    private func readUntilPrompt(count: Int, timeoutSeconds: Double) throws(USBError) -> [UInt8] {
        let deadline = monotonicSeconds() + timeoutSeconds
        var received: [UInt8] = []
        var prompts = 0
        var matched = 0
        let prompt = TinySAProtocol.prompt
        while prompts < count {
            let left = deadline - monotonicSeconds()
            guard left > 0 else {
                throw .timeout(operation: "tinySA `version` reply", milliseconds: UInt32(timeoutSeconds * 1000))
            }
            let chunk: [UInt8]
            do {
                chunk = try transport.bulkIn(endpoint: TinySAProtocol.bulkInEndpoint, length: Self.transferSize,
                                             timeoutMS: UInt32(max(1, min(left, 0.1) * 1000)))
            } catch {
                if case .timeout = error { continue }
                throw error
            }
            for byte in chunk {
                received.append(byte)
                matched = byte == prompt[matched] ? matched + 1 : (byte == prompt[0] ? 1 : 0)
                if matched == prompt.count {
                    prompts += 1
                    matched = 0
                }
            }
        }
        return received
    }
}
