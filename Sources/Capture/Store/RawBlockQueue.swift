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

    /// whether chunks of one frequency are packed into whole blocks (a raw
    /// sample stream) rather than kept one per block (HackRF sweep blocks)
    public let coalesce: Bool

    public init(blockSize: Int, capacity: Int, coalesce: Bool = false) {
        self.blockSize = blockSize
        self.coalesce = coalesce
        self.capacity = max(1, capacity)
        storage = .allocate(byteCount: blockSize * self.capacity, alignment: 16)
        frequencies = [UInt64](repeating: 0, count: self.capacity)
        times = [Double](repeating: 0, count: self.capacity)
        lengths = [Int](repeating: 0, count: self.capacity)
    }

    deinit { storage.deallocate() }

    /// blocks dropped because the writer fell behind
    public var dropped: Int { condition.withLock { droppedCount } }

    /// Copies a block in (up to `blockSize` bytes; with `coalesce`, small
    /// chunks of one frequency fill the newest block first and long ones go
    /// into as many blocks as they need). Ignored after `close`, and when
    /// empty (a paced transport returns empty transfers when ahead).
    public func push(frequencyHz: UInt64, timestamp: Double, block: UnsafeRawBufferPointer) {
        guard let source = block.baseAddress, !block.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        var offset = 0
        repeat {
            let tail = (head + count - 1 + capacity) % capacity
            let slot: Int
            if coalesce, count > 0, frequencies[tail] == frequencyHz, lengths[tail] < blockSize {
                slot = tail
            } else {
                if count == capacity {
                    head = (head + 1) % capacity
                    count -= 1
                    droppedCount += 1
                }
                slot = (head + count) % capacity
                frequencies[slot] = frequencyHz
                times[slot] = timestamp
                lengths[slot] = 0
                count += 1
            }
            let bytes = min(block.count - offset, blockSize - lengths[slot])
            (storage.baseAddress! + slot * blockSize + lengths[slot]).copyMemory(from: source + offset, byteCount: bytes)
            lengths[slot] += bytes
            offset += bytes
        } while coalesce && offset < block.count
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
