import Foundation

/// A bounded queue of raw blocks (up to `blockSize` bytes each) between a USB thread (`push`,
/// never blocks) and a writer thread (`pop`). Storage is allocated once; when
/// full, the oldest block is dropped and counted.
public final class RawBlockQueue: @unchecked Sendable {
    public let blockSize: Int
    private let capacity: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var frequencies: [UInt64]
    private var times: [Double]
    private var lengths: [Int]
    private var head = 0
    private var count = 0
    private var closed = false
    private var droppedCount = 0
    private let condition = NSCondition()

    public init(blockSize: Int, capacity: Int) {
        self.blockSize = blockSize
        self.capacity = max(1, capacity)
        storage = .allocate(byteCount: blockSize * self.capacity, alignment: 16)
        frequencies = [UInt64](repeating: 0, count: self.capacity)
        times = [Double](repeating: 0, count: self.capacity)
        lengths = [Int](repeating: 0, count: self.capacity)
    }

    deinit { storage.deallocate() }

    /// blocks dropped because the writer fell behind
    public var dropped: Int { condition.withLock { droppedCount } }

    /// Copies a block in (up to `blockSize` bytes). Ignored after `close`.
    public func push(frequencyHz: UInt64, timestamp: Double, block: UnsafeRawBufferPointer) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        if count == capacity {
            head = (head + 1) % capacity
            count -= 1
            droppedCount += 1
        }
        let slot = (head + count) % capacity
        let bytes = min(block.count, blockSize)
        if bytes > 0, let base = block.baseAddress {
            (storage.baseAddress! + slot * blockSize).copyMemory(from: base, byteCount: bytes)
        }
        frequencies[slot] = frequencyHz
        times[slot] = timestamp
        lengths[slot] = bytes
        count += 1
        condition.signal()
    }

    /// Waits for a block and copies it into `into` (`blockSize` bytes);
    /// returns its frequency, time and length [bytes], or nil once closed and empty.
    public func pop(into block: UnsafeMutableRawBufferPointer)
        -> (frequencyHz: UInt64, timestamp: Double, byteCount: Int)? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        guard count > 0 else { return nil }
        let slot = head
        block.baseAddress!.copyMemory(from: storage.baseAddress! + slot * blockSize, byteCount: min(block.count, blockSize))
        head = (head + 1) % capacity
        count -= 1
        return (frequencies[slot], times[slot], min(block.count, lengths[slot]))
    }

    public func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }
}
