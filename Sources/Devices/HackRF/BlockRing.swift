import Foundation

/// A bounded, preallocated ring of 16384-byte sweep blocks between the USB
/// thread (producer) and the DSP thread (consumer). When full, `push` drops
/// the oldest block and counts it: the USB side never waits.
final class BlockRing: @unchecked Sendable {
    let capacity: Int
    let blockSize: Int

    private let storage: UnsafeMutableRawPointer
    private let frequencies: UnsafeMutablePointer<UInt64>
    private let condition = NSCondition()
    private var head = 0  // next slot to read
    private var count = 0
    private var closed = false
    private var dropped = 0

    init(capacity: Int, blockSize: Int = HackRFProtocol.blockSize) {
        precondition(capacity > 0, "ring needs at least one slot")
        self.capacity = capacity
        self.blockSize = blockSize
        storage = .allocate(byteCount: capacity * blockSize, alignment: 16)
        frequencies = .allocate(capacity: capacity)
    }

    deinit {
        storage.deallocate()
        frequencies.deallocate()
    }

    /// blocks thrown away because the consumer fell behind
    var droppedCount: Int { condition.withLock { dropped } }

    /// Copies a block in; drops the oldest if full.
    func push(frequencyHz: UInt64, block: UnsafeRawBufferPointer) {
        condition.lock()
        if count == capacity {
            head = (head + 1) % capacity
            count -= 1
            dropped += 1
        }
        let slot = (head + count) % capacity
        let bytes = min(block.count, blockSize)
        if let base = block.baseAddress { (storage + slot * blockSize).copyMemory(from: base, byteCount: bytes) }
        frequencies[slot] = frequencyHz
        count += 1
        condition.signal()
        condition.unlock()
    }

    /// Waits for a block and copies it into `destination` (`blockSize` bytes).
    /// Returns its frequency, or nil once closed.
    func pop(into destination: UnsafeMutableRawBufferPointer) -> UInt64? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        guard count > 0, !closed else { return nil }
        if let base = destination.baseAddress {
            base.copyMemory(from: storage + head * blockSize, byteCount: min(destination.count, blockSize))
        }
        let frequency = frequencies[head]
        head = (head + 1) % capacity
        count -= 1
        return frequency
    }

    /// Wakes the consumer and makes `pop` return nil until `reset`.
    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// Empties the ring and reopens it (counters kept).
    func reset() {
        condition.withLock {
            head = 0
            count = 0
            closed = false
        }
    }
}
