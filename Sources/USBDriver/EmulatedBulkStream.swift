import ThreadKit
import Foundation
import Synchronization

/// The stream of an `EmulatedTransport`: a thread fills preallocated transfer
/// buffers from the emulator in turn and hands each to `onData` in order. The
/// buffers belong to that thread (allocated and freed by it), so nothing here
/// is shared but the flags and the thread handle.
final class EmulatedBulkStream: Sendable {
    /// pause after the emulator had nothing (a NAK) before asking again [µs]
    static let nakRetryMicroseconds: UInt32 = 1_000

    private let onEnd: BulkEndHandler
    private let stopRequested = Atomic<Bool>(false)
    /// onEnd was called with an error by the stream thread
    private let endedByError = Atomic<Bool>(false)
    /// stopped once (`stop` is idempotent), and the thread to join
    private let ending: Guarded<(stopped: Bool, thread: WorkerThread?)> = Guarded((false, nil))

    init(transport: EmulatedTransport, endpoint: UInt8, transferSize: Int, transferCount: Int,
         onData: @escaping BulkDataHandler, onEnd: @escaping BulkEndHandler) throws(USBError) {
        guard transferSize > 0, (1...64).contains(transferCount) else {
            throw .io(operation: "start bulk stream",
                      detail: "need 1…64 transfers of a positive size (got \(transferCount) × \(transferSize) bytes)")
        }
        self.onEnd = onEnd
        guard let thread = WorkerThread({ [self] in
            pump(transport: transport, endpoint: endpoint, transferSize: transferSize,
                 transferCount: transferCount, onData: onData)
        }) else {
            throw .io(operation: "start bulk stream", detail: "could not start the emulator stream thread")
        }
        ending.withLock { $0.thread = thread }
    }

    var hasEnded: Bool { endedByError.load(ordering: .acquiring) }

    /// The stream thread: transferCount buffers of transferSize bytes, one allocation, filled in turn.
    private func pump(transport: EmulatedTransport, endpoint: UInt8, transferSize: Int, transferCount: Int,
                      onData: BulkDataHandler) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: transferSize * transferCount, alignment: 64)
        defer { storage.deallocate() }
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
        ending.withLock { ending in
            guard !ending.stopped else { return }
            ending.stopped = true
            stopRequested.store(true, ordering: .releasing)
            if let thread = ending.thread, !thread.isCurrent { thread.join() }
            ending.thread = nil
            if !endedByError.load(ordering: .acquiring) { onEnd(nil) }
        }
    }
}
