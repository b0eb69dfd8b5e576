import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// Speaks to a tinySA's shell over any `USBTransport`: sets up the CDC-ACM
/// port (line coding, DTR/RTS), tells basic from Ultra by `version`, sends
/// command lines on bulk OUT and streams bulk IN to a handler.
///
/// `open`, `send` and the stream calls come from one thread; the data
/// handler runs on the transport's thread.
public final class TinySADriver: Sendable {
    public let transport: USBTransport
    /// times the waits for the device's replies (tests may hand in a `ManualClock`)
    private let clock: any MonotonicClock
    /// what `open()` found: the model and the `version` line it answered with
    private let identity = Guarded((model: TinySAModel.basic, versionLine: ""))
    public var model: TinySAModel { identity.withLock { $0.model } }
    public var versionLine: String { identity.withLock { $0.versionLine } }

    /// bytes per bulk IN transfer of the stream, and transfers kept queued
    static let transferSize = 512
    static let transfersInFlight = 4

    public init(transport: USBTransport, clock: any MonotonicClock = SystemClock()) throws(USBError) {
        let info = transport.deviceInfo
        guard info.vendorID == TinySAProtocol.vendorID, info.productID == TinySAProtocol.productID else {
            throw .unsupported("device \(info.idString) is not a tinySA (0483:5740)")
        }
        self.transport = transport
        self.clock = clock
    }

    /// Sets the port up, then asks `version` and reads its reply: the
    /// firmware prints a banner (`\r\ntinySA Shell\r\nch> `) once when the
    /// USB link comes up, and answers a bare CR with `?` and a prompt, so
    /// everything before the echo of `version` is drained unread and the
    /// reply is the lines between that echo and the next prompt.
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
        // a CR first ends any half-typed line (the shell answers it with `?`)
        try send(Array("\r".utf8) + TinySAProtocol.command("version"))
        let reply = try readReply(to: "version", timeoutSeconds: timeoutSeconds)
        // bytes, not Characters: "\r\n" is one Character
        let lines = reply.split(whereSeparator: { $0 == 0x0d || $0 == 0x0a }).map { String(decoding: $0, as: UTF8.self) }
        guard let line = lines.first, let found = TinySAModel(versionLine: line) else {
            throw .unsupported("the device at 0483:5740 did not answer `version` as a tinySA does "
                + "(a NanoVNA or another STM32 serial device?); it answered \(lines.first.map { "\"\($0)\"" } ?? "nothing")")
        }
        identity.withLock { $0 = (found, line) }
    }

    /// Sends one command line and returns its reply, echo and prompt
    /// removed (before the stream runs).
    public func execute(_ command: String, timeoutSeconds: Double = 2) throws(USBError) -> [UInt8] {
        try send(TinySAProtocol.command(command))
        return try readReply(to: command, timeoutSeconds: timeoutSeconds)
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

    /// Synchronous reads until the echo of `command` and the prompt after
    /// it have arrived; returns the bytes between them. Whatever comes
    /// before the echo (the banner, earlier prompts) is dropped.
    private func readReply(to command: String, timeoutSeconds: Double) throws(USBError) -> [UInt8] {
        let deadline = clock.now + timeoutSeconds
        let echo = Array(command.utf8) + [0x0d, 0x0a]
        var received: [UInt8] = []
        while true {
            if let echoEnd = Self.end(of: echo, in: received, from: 0),
               let promptEnd = Self.end(of: TinySAProtocol.prompt, in: received, from: echoEnd) {
                return Array(received[echoEnd..<(promptEnd - TinySAProtocol.prompt.count)])
            }
            let left = deadline - clock.now
            guard left > 0 else {
                if received.isEmpty {
                    throw .timeout(operation: "tinySA `\(command)` reply", milliseconds: UInt32(timeoutSeconds * 1000))
                }
                let text = String(decoding: received.suffix(60), as: UTF8.self)
                    .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
                throw .unsupported("the device at 0483:5740 did not answer `\(command)` as a tinySA shell does "
                    + "(echo, reply, `ch> `) within \(timeoutSeconds) s (a NanoVNA or another STM32 serial "
                    + "device?); last bytes: \"\(text)\"")
            }
            do {
                received += try transport.bulkIn(endpoint: TinySAProtocol.bulkInEndpoint, length: Self.transferSize,
                                                 timeoutMS: UInt32(max(1, min(left, 0.1) * 1000)))
            } catch {
                if case .timeout = error { continue }
                throw error
            }
        }
    }

    /// Index just past the first occurrence of `pattern` in `bytes` at or
    /// after `start`; nil when absent.
    static func end(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !pattern.isEmpty, bytes.count - start >= pattern.count else { return nil }
        for index in start...(bytes.count - pattern.count)
        where bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
            return index + pattern.count
        }
        return nil
    }
}
