import ThreadKit
import Foundation
import Synchronization

/// The stream of an `EmulatedTransport`: a thread fills preallocated transfer
/// buffers from the emulator in turn and hands each to `onData` in order.
// @unchecked: the transfer storage is a raw buffer written and handed on by
// the stream thread alone; `stop` joins that thread (under `endLock`) before
// the storage can be freed.
final class EmulatedBulkStream: @unchecked Sendable {
    /// pause after the emulator had nothing (a NAK) before asking again [µs]
    static let nakRetryMicroseconds: UInt32 = 1_000

    private let onEnd: BulkEndHandler
    /// transferCount buffers of transferSize bytes, one allocation
    private let storage: UnsafeMutableRawBufferPointer
    private let stopRequested = Atomic<Bool>(false)
    /// onEnd was called with an error by the stream thread
    private let endedByError = Atomic<Bool>(false)
    private let endLock = NSLock()
    private var stopped = false
    private var thread: WorkerThread?

    init(transport: EmulatedTransport, endpoint: UInt8, transferSize: Int, transferCount: Int,
         onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        guard transferSize > 0, (1...64).contains(transferCount) else {
            throw .io(operation: "start bulk stream",
                      detail: "need 1…64 transfers of a positive size (got \(transferCount) × \(transferSize) bytes)")
        }
        self.onEnd = onEnd
        self.storage = UnsafeMutableRawBufferPointer.allocate(byteCount: transferSize * transferCount, alignment: 64)
        guard let thread = WorkerThread({ [self] in
            pump(transport: transport, endpoint: endpoint, transferSize: transferSize,
                 transferCount: transferCount, onData: onData)
        }) else {
            // deinit frees storage: every stored property is set by now
            throw .io(operation: "start bulk stream", detail: "could not start the emulator stream thread")
        }
        self.thread = thread
    }

    deinit { storage.deallocate() }

    var hasEnded: Bool { endedByError.load(ordering: .acquiring) }

    private func pump(transport: EmulatedTransport, endpoint: UInt8, transferSize: Int, transferCount: Int,
                      onData: BulkDataHandler) {
        var index = 0
        while !stopRequested.load(ordering: .acquiring) {
            let buffer = UnsafeMutableRawBufferPointer(
                rebasing: storage[(index * transferSize)..<((index + 1) * transferSize)])
            let count: Int
            do {
                count = try transport.fill(endpoint: endpoint, into: buffer)
            } catch {
                endedByError.store(true, ordering: .releasing)
                onEnd(error)
                return
            }
            if count == 0 {
                usleep(Self.nakRetryMicroseconds)
                continue
            }
            onData(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            index = (index + 1) % transferCount
        }
    }

    /// Stops and joins the thread; then onEnd(nil) unless an error ended the
    /// stream. Idempotent.
    func stop() {
        endLock.lock()
        defer { endLock.unlock() }
        guard !stopped else { return }
        stopped = true
        stopRequested.store(true, ordering: .releasing)
        if let thread, !thread.isCurrent { thread.join() }
        thread = nil
        if !endedByError.load(ordering: .acquiring) { onEnd(nil) }
    }
}
