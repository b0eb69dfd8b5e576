/// Reads fixed-layout binary records through one reused buffer. `take`
/// returns a view valid until the next call; memory is bounded by the largest
/// record the caller accepts.
final class RecordReader {
    let input: ByteInput
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0
    private var bufferOffset = 0
    private var atEnd = false

    init(input: ByteInput, initialCapacity: Int = 1 << 20) {
        self.input = input
        capacity = max(initialCapacity, 64)
        buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// file offset of the next byte `take` returns
    var offset: Int { bufferOffset + start }

    /// true when no byte is left
    func isAtEnd() throws -> Bool {
        if end > start { return false }
        try fill(1)
        return end == start
    }

    /// The next `count` bytes, or fewer if the input ends first (a truncated record).
    func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        if end - start < count { try fill(count) }
        let n = min(count, end - start)
        let view = UnsafeRawBufferPointer(start: buffer + start, count: n)
        start += n
        return view
    }

    /// Reads until `count` bytes are buffered or the input ends.
    private func fill(_ count: Int) throws {
        if start > 0 {
            let pending = end - start
            if pending > 0 { buffer.copyMemory(from: buffer + start, byteCount: pending) }
            bufferOffset += start
            end = pending
            start = 0
        }
        if count > capacity {
            let grown = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
            grown.copyMemory(from: buffer, byteCount: end)
            buffer.deallocate()
            buffer = grown
            capacity = count
        }
        while end < count && !atEnd {
            let n = try input.read(into: buffer + end, count: capacity - end)
            if n == 0 { atEnd = true }
            end += n
        }
    }
}
