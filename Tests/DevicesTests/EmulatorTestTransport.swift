import Foundation
import USBDriver
@testable import Devices

/// A `USBTransport` for tests that hosts a `FirmwareEmulator` directly:
/// control transfers are answered synchronously and recorded; a bulk stream
/// runs a thread that calls the emulator's `bulkIn` and hands each non-empty
/// transfer to `onData`.
final class EmulatorTestTransport: USBTransport, @unchecked Sendable {
    struct ControlRecord: Equatable, CustomStringConvertible {
        var setup: ControlSetup
        var data: [UInt8]
        var length: Int
        var description: String { "\(setup) data \(data) len \(length)" }
    }

    let emulator: FirmwareEmulator
    private let lock = NSLock()
    private var records: [ControlRecord] = []
    private var streamThread: Thread?
    private var stopRequested = false
    private let streamEnded = DispatchSemaphore(value: 0)
    /// replies to force for control IN requests (bRequest → bytes)
    var forcedReplies: [UInt8: [UInt8]] = [:]

    init(emulator: FirmwareEmulator) { self.emulator = emulator }

    var deviceInfo: USBDeviceInfo { emulator.deviceInfo }

    var controlRecords: [ControlRecord] { lock.withLock { records } }

    func controlOut(_ setup: ControlSetup, data: [UInt8], timeoutMS: UInt32) throws(USBError) {
        lock.lock()
        defer { lock.unlock() }
        records.append(ControlRecord(setup: setup, data: data, length: data.count))
        try emulator.controlOut(setup, data: data)
    }

    func controlIn(_ setup: ControlSetup, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        records.append(ControlRecord(setup: setup, data: [], length: length))
        if let forced = forcedReplies[setup.request] { return forced }
        return try emulator.controlIn(setup, length: length)
    }

    func bulkIn(endpoint: UInt8, length: Int, timeoutMS: UInt32) throws(USBError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
        defer { buffer.deallocate() }
        let n = try lockedBulkIn(endpoint: endpoint, into: buffer)
        return Array(buffer.prefix(n))
    }

    func bulkOut(endpoint: UInt8, data: [UInt8], timeoutMS: UInt32) throws(USBError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return try emulator.bulkOut(endpoint: endpoint, data: data)
    }

    private func lockedBulkIn(endpoint: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(USBError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return try emulator.bulkIn(endpoint: endpoint, into: buffer)
    }

    func startBulkStream(endpoint: UInt8, transferSize: Int, transfersInFlight: Int,
                         onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        guard streamThread == nil else { throw .busy(device: "test transport") }
        stopRequested = false
        let thread = Thread { [self] in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: transferSize, alignment: 16)
            defer { buffer.deallocate() }
            var endError: USBError?
            while !lock.withLock({ stopRequested }) {
                do {
                    let n = try lockedBulkIn(endpoint: endpoint, into: buffer)
                    if n > 0 { onData(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) } else { usleep(200) }
                } catch {
                    endError = error as? USBError
                    break
                }
            }
            onEnd(endError)
            streamEnded.signal()
        }
        streamThread = thread
        thread.start()
    }

    func stopBulkStream() {
        guard streamThread != nil else { return }
        lock.withLock { stopRequested = true }
        streamEnded.wait()
        streamThread = nil
    }

    func close() { stopBulkStream() }
}
