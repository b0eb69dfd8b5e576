import Foundation

/// A `USBTransport` that hosts a `FirmwareEmulator` in-process: drivers talk
/// to emulated firmware exactly as they would to a device through libusb.
// @unchecked: the emulator (a non-Sendable protocol) is only touched under
// `emulatorLock`, the stream and `closed` only under `stateLock`.
public final class EmulatedTransport: USBTransport, @unchecked Sendable {
    private let emulator: FirmwareEmulator
    /// serialises every call into the emulator (emulators need not be thread-safe)
    private let emulatorLock = NSLock()
    /// guards `stream` and `closed`
    private let stateLock = NSLock()
    private var stream: EmulatedBulkStream?
    private var closed = false

    public init(emulator: FirmwareEmulator) {
        self.emulator = emulator
    }

    deinit { close() }

    public var deviceInfo: USBDeviceInfo {
        emulatorLock.lock()
        defer { emulatorLock.unlock() }
        return emulator.deviceInfo
    }

    private var deviceName: String { deviceInfo.product ?? "emulated \(deviceInfo.idString)" }

    /// Runs `body` with the emulator while no transfer touches it (tests:
    /// an event on the device side, such as a restart).
    public func withEmulator<Result>(_ body: (FirmwareEmulator) -> Result) -> Result {
        emulatorLock.lock()
        defer { emulatorLock.unlock() }
        return body(emulator)
    }

    private func ensureOpen() throws(USBError) {
        stateLock.lock()
        let isClosed = closed
        stateLock.unlock()
        if isClosed { throw .disconnected(device: deviceName) }
    }

    public func controlOut(_ setup: ControlSetup, data: [UInt8], timeoutMS: UInt32) throws(USBError) {
        try ensureOpen()
        emulatorLock.lock()
        defer { emulatorLock.unlock() }
        try emulator.controlOut(setup, data: data)
    }

    public func controlIn(_ setup: ControlSetup, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        try ensureOpen()
        emulatorLock.lock()
        defer { emulatorLock.unlock() }
        let reply = try emulator.controlIn(setup, length: length)
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
        emulatorLock.lock()
        defer { emulatorLock.unlock() }
        return try emulator.bulkOut(endpoint: endpoint, data: data)
    }

    /// One emulator bulk IN call under the lock; the count is clamped to the buffer.
    func fill(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        emulatorLock.lock()
        defer { emulatorLock.unlock() }
        let count = try emulator.bulkIn(endpoint: endpoint, into: buffer)
        return min(max(count, 0), buffer.count)
    }

    public func startBulkStream(endpoint: UInt8, transferSize: Int, transfersInFlight: Int,
                                onData: @escaping BulkDataHandler,
                                onEnd: @escaping BulkEndHandler) throws(USBError) {
        stateLock.lock()
        defer { stateLock.unlock() }
        if closed { throw .disconnected(device: deviceName) }
        if let running = stream {
            guard running.hasEnded else { throw .streamAlreadyRunning }
            running.stop()
            stream = nil
        }
        let newStream = try EmulatedBulkStream(
            transport: self, endpoint: endpoint, transferSize: transferSize,
            transferCount: transfersInFlight, onData: onData, onEnd: onEnd)
        stream = newStream
    }

    public func stopBulkStream() {
        stateLock.lock()
        let running = stream
        stream = nil
        stateLock.unlock()
        running?.stop()
    }

    public func close() {
        stopBulkStream()
        stateLock.lock()
        closed = true
        stateLock.unlock()
    }
}
