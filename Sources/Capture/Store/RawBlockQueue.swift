import ThreadKit

/// A bounded queue of raw blocks (up to `blockSize` bytes each) between a
/// USB thread (`push`, never blocks) and a writer thread (`pop`). Slots are
/// allocated once; when full, the oldest block is dropped and counted.
/// Closing drains: blocks queued before `close` still reach the file.
public final class RawBlockQueue: Sendable {
    private struct Slot {
        var bytes: [UInt8]
        var frequencyHz: UInt64 = 0
        var timestamp = 0.0
        var length = 0
    }

    public let blockSize: Int
    private let ring: DropOldestRing<Slot>

    /// whether chunks of one frequency are packed into whole blocks (a raw
    /// sample stream) rather than kept one per block (HackRF sweep blocks)
    public let coalesce: Bool

    public init(blockSize: Int, capacity: Int, coalesce: Bool = false) {
        self.blockSize = blockSize
        self.coalesce = coalesce
        ring = DropOldestRing(capacity: capacity, onClose: .drain) { Slot(bytes: [UInt8](repeating: 0, count: blockSize)) }
    }

    /// blocks dropped because the writer fell behind
    public var dropped: Int { ring.dropped }

    /// Copies a block in (up to `blockSize` bytes; with `coalesce`, small
    /// chunks of one frequency fill the newest block first and long ones go
    /// into as many blocks as they need). Ignored after `close`, and when
    /// empty (a paced transport returns empty transfers when ahead).
    public func push(frequencyHz: UInt64, timestamp: Double, block: UnsafeRawBufferPointer) {
        guard let source = block.baseAddress, !block.isEmpty else { return }
        let blockSize = blockSize
        var offset = 0
        /// appends what fits of the rest of `block` to `slot`
        func append(to slot: inout Slot) {
            let bytes = min(block.count - offset, blockSize - slot.length)
            slot.bytes.withUnsafeMutableBytes { target in
                (target.baseAddress! + slot.length).copyMemory(from: source + offset, byteCount: bytes)
            }
            slot.length += bytes
            offset += bytes
        }
        if coalesce,
           ring.extendNewest(if: { $0.frequencyHz == frequencyHz && $0.length < blockSize }, { append(to: &$0) }),
           offset == block.count {
            return
        }
        repeat {
            let accepted = ring.push { slot in
                slot.frequencyHz = frequencyHz
                slot.timestamp = timestamp
                slot.length = 0
                append(to: &slot)
            }
            guard accepted else { return }
        } while coalesce && offset < block.count
    }

    /// Waits for a block and copies it into `into` (`blockSize` bytes);
    /// returns its frequency, time and length [bytes], or nil once closed and empty.
    public func pop(into block: UnsafeMutableRawBufferPointer)
        -> (frequencyHz: UInt64, timestamp: Double, byteCount: Int)? {
        var popped: (frequencyHz: UInt64, timestamp: Double, byteCount: Int)?
        _ = ring.pop { slot in
            slot.bytes.withUnsafeBytes { source in
                block.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: min(block.count, source.count))
            }
            popped = (slot.frequencyHz, slot.timestamp, min(block.count, slot.length))
        }
        return popped
    }

    /// Stops accepting blocks and wakes the writer, which still gets what is queued.
    public func close() { ring.close() }
}
