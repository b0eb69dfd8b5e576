import Foundation

/// Between the bulk stream (which never stops) and the hop loop: after
/// `arm`, skips the bytes that may still carry the previous tuning, then
/// copies the next `bufferBytes` into a preallocated buffer and wakes the
/// hop loop. Bytes arriving while not armed are dropped on purpose (the
/// dongle keeps streaming while the loop retunes and computes).
final class RTLSDRHopCollector: @unchecked Sendable {
    let bufferBytes: Int
    private let buffer: UnsafeMutableRawBufferPointer
    private let condition = NSCondition()
    private var armed = false
    private var discardRemaining = 0
    private var filled = 0
    private var ended = false
    private var endError: Error?

    init(bufferBytes: Int) {
        self.bufferBytes = bufferBytes
        buffer = .allocate(byteCount: bufferBytes, alignment: 64)
    }

    deinit { buffer.deallocate() }

    /// Starts collecting after skipping `discard` bytes.
    func arm(discard: Int) {
        condition.withLock {
            discardRemaining = discard
            filled = 0
            armed = true
        }
    }

    /// Called on the transport's thread with each transfer; never blocks for long.
    func ingest(_ data: UnsafeRawBufferPointer) {
        condition.lock()
        defer { condition.unlock() }
        guard armed, let base = data.baseAddress else { return }
        var offset = min(discardRemaining, data.count)
        discardRemaining -= offset
        guard offset < data.count else { return }
        let count = min(data.count - offset, bufferBytes - filled)
        (buffer.baseAddress! + filled).copyMemory(from: base + offset, byteCount: count)
        filled += count
        offset += count
        if filled == bufferBytes {
            armed = false
            condition.signal()
        }
    }

    /// The stream ended (error or stop); wakes a waiting hop loop.
    func end(_ error: Error?) {
        condition.withLock {
            ended = true
            endError = error
            condition.broadcast()
        }
    }

    enum Outcome {
        case filled(UnsafeRawBufferPointer)
        case stalled
        case ended(Error?)
    }

    /// Waits until the armed buffer is full, the stream ends, or `timeout` [s]
    /// passes without it filling.
    func wait(timeout: Double) -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while armed && !ended {
            if !condition.wait(until: deadline) { break }
        }
        if ended { return .ended(endError) }
        if armed { return .stalled }
        return .filled(UnsafeRawBufferPointer(buffer))
    }

    /// Wakes the hop loop as if the stream had ended without error (stop).
    func cancel() { end(nil) }
}
