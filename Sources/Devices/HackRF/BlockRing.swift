import ThreadKit

/// A bounded ring of 16384-byte sweep blocks between the USB thread
/// (producer) and the DSP thread (consumer), its slots allocated once. When
/// full, `push` drops the oldest block and counts it: the USB side never
/// waits. Closing discards what is queued: after a stop or a retune those
/// blocks belong to the old band.
final class BlockRing: Sendable {
    private struct Slot {
        var bytes: [UInt8]
        var frequencyHz: UInt64 = 0
    }

    let capacity: Int
    let blockSize: Int
    private let ring: DropOldestRing<Slot>

    init(capacity: Int, blockSize: Int = HackRFProtocol.blockSize) {
        precondition(capacity > 0, "ring needs at least one slot")
        self.capacity = capacity
        self.blockSize = blockSize
        ring = DropOldestRing(capacity: capacity, onClose: .discard) { Slot(bytes: [UInt8](repeating: 0, count: blockSize)) }
    }

    /// blocks thrown away because the consumer fell behind
    var droppedCount: Int { ring.dropped }

    /// Copies a block in; drops the oldest if full.
    func push(frequencyHz: UInt64, block: UnsafeRawBufferPointer) {
        ring.push { slot in
            slot.frequencyHz = frequencyHz
            slot.bytes.withUnsafeMutableBytes { target in
                let bytes = min(block.count, target.count)
                if let base = block.baseAddress, bytes > 0 { target.baseAddress!.copyMemory(from: base, byteCount: bytes) }
            }
        }
    }

    /// Waits for a block and copies it into `destination` (`blockSize` bytes).
    /// Returns its frequency, or nil once closed.
    func pop(into destination: UnsafeMutableRawBufferPointer) -> UInt64? {
        var frequency: UInt64?
        let taken = ring.pop { slot in
            frequency = slot.frequencyHz
            slot.bytes.withUnsafeBytes { source in
                if let base = destination.baseAddress {
                    base.copyMemory(from: source.baseAddress!, byteCount: min(destination.count, source.count))
                }
            }
        }
        return taken == .item ? frequency : nil
    }

    /// Wakes the consumer and makes `pop` return nil until `reset`.
    func close() { ring.close() }

    /// Empties the ring and reopens it (counters kept).
    func reset() { ring.reopen() }
}
