import Foundation
import ThreadKit

/// A `USBTransport` that hosts a `FirmwareEmulator` in-process: drivers talk
/// to emulated firmware exactly as they would to a device through libusb.
public final class EmulatedTransport: USBTransport, Sendable {
    /// every call into the emulator, serialised (emulators need not be thread-safe; the transport owns it)
    private let emulator: Guarded<FirmwareEmulator>
    private struct State {
        var stream: EmulatedBulkStream?
        var closed = false
    }
    private let state = Guarded(State())

    public init(emulator: consuming sending FirmwareEmulator) {
        self.emulator = Guarded(emulator)
    }

    deinit { close() }

    public var deviceInfo: USBDeviceInfo {
        emulator.withLock { $0.deviceInfo }
    }

    private var deviceName: String { deviceInfo.product ?? "emulated \(deviceInfo.idString)" }

    /// Runs `body` with the emulator while no transfer touches it (tests:
    /// an event on the device side, such as a restart).
    public func withEmulator<Result: Sendable>(_ body: (FirmwareEmulator) -> Result) -> Result {
        emulator.withLock { body($0) }
    }

    private func ensureOpen() throws(USBError) {
        if state.withLock({ $0.closed }) { throw .disconnected(device: deviceName) }
    }

    public func controlOut(_ setup: ControlSetup, data: [UInt8], timeoutMS: UInt32) throws(USBError) {
        try ensureOpen()
        try emulator.withLock { (emulator) throws(USBError) in try emulator.controlOut(setup, data: data) }
    }

    public func controlIn(_ setup: ControlSetup, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        try ensureOpen()
        let reply = try emulator.withLock { (emulator) throws(USBError) in try emulator.controlIn(setup, length: length) }
        return reply.count > length ? Array(reply.prefix(max(0, length))) : reply
    }

    public func bulkIn(endpoint: UInt8, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        try ensureOpen()
        guard length >= 0 else { throw .io(operation: "bulk IN", detail: "negative length \(length)") }
        var buffer = [UInt8](repeating: 0, count: length)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMS) * 1_000_000
        while true {
            let outcome = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(USBError) -> Int in try fill(endpoint: endpoint, into: bytes) }
            }
            let count = try outcome.get()
            if count > 0 {
                buffer.removeSubrange(count...)
                return buffer
            }
            if timeoutMS != 0 && DispatchTime.now().uptimeNanoseconds >= deadline {
                throw .timeout(operation: "bulk IN", milliseconds: timeoutMS)
            }
            usleep(EmulatedBulkStream.nakRetryMicroseconds)
        }
    }

    public func bulkOut(endpoint: UInt8, data: [UInt8], timeoutMS: UInt32) throws(USBError) -> Int {
        try ensureOpen()
        return try emulator.withLock { (emulator) throws(USBError) in try emulator.bulkOut(endpoint: endpoint, data: data) }
    }

    /// One emulator bulk IN call under the lock; the count is clamped to the buffer.
    func fill(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        // The caller's buffer goes in by address: it is only written during the call, never kept by the
        // emulator, so it need not join the emulator's isolation region (which a pointer would otherwise do).
        let address = UInt(bitPattern: buffer.baseAddress), size = buffer.count
        let count = try emulator.withLock { (emulator) throws(USBError) in
            try emulator.bulkIn(endpoint: endpoint,
                                into: UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: address), count: size))
        }
        return min(max(count, 0), buffer.count)
    }

    public func startBulkStream(endpoint: UInt8, transferSize: Int, transfersInFlight: Int,
                                onData: @escaping BulkDataHandler,
                                onEnd: @escaping BulkEndHandler) throws(USBError) {
        try state.withLock { (state) throws(USBError) in
            if state.closed { throw .disconnected(device: deviceName) }
            if let running = state.stream {
                guard running.hasEnded else { throw .streamAlreadyRunning }
                running.stop()
                state.stream = nil
            }
            state.stream = try EmulatedBulkStream(
                transport: self, endpoint: endpoint, transferSize: transferSize,
                transferCount: transfersInFlight, onData: onData, onEnd: onEnd)
        }
    }

    public func stopBulkStream() {
        let running = state.withLock { state in
            defer { state.stream = nil }
            return state.stream
        }
        running?.stop()
    }

    public func close() {
        stopBulkStream()
        state.withLock { $0.closed = true }
    }
}
