import Foundation

/// Splits an input into lines through one buffer that is reused: a line is a
/// view into that buffer, valid until the next call. The buffer starts at
/// `initialCapacity` and doubles only for a longer line, up to `maxLineBytes`
/// (beyond that the file is refused: constant memory whatever the input).
final class LineReader {
    /// one line without its terminator ("\n" or "\r\n")
    struct Line {
        var bytes: UnsafeBufferPointer<UInt8>
        /// 1-based line number
        var number: Int
        /// file offset of the line's first byte
        var offset: Int
        /// false for a last line cut off without "\n" (a truncated file)
        var terminated: Bool
        /// ended by "\r\n"
        var crlf = false
    }

    let input: ByteInput
    let maxLineBytes: Int
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// first unconsumed byte in `buffer`
    private var start = 0
    /// end of valid bytes in `buffer`
    private var end = 0
    /// file offset of `buffer[0]`
    private var bufferOffset = 0
    private var atEnd = false
    private var lineNumber = 0
    private var last: Line?
    private var replayLast = false

    init(input: ByteInput, initialCapacity: Int = 1 << 20, maxLineBytes: Int = 64 << 20) {
        self.input = input
        self.maxLineBytes = maxLineBytes
        capacity = max(initialCapacity, 64)
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// bytes consumed so far (through the last line returned)
    var consumedBytes: Int { bufferOffset + start }

    /// A damage report naming this input and `line`.
    func error(at line: Line, _ detail: String) -> CaptureError {
        CaptureError(file: input.name, location: .line(line.number), detail)
    }

    /// Makes the next `next()` return the last line again (it is still in the buffer).
    func pushBack() {
        assert(last != nil, "nothing to push back")
        replayLast = true
    }

    /// The next line, or nil at the end of the input.
    func next() throws -> Line? {
        if replayLast, let last {
            replayLast = false
            return last
        }
        while true {
            if let newline = findNewline() {
                var length = newline - start
                let crlf = length > 0 && buffer[start + length - 1] == UInt8(ascii: "\r")
                if crlf { length -= 1 }
                return emit(length: length, consumed: newline + 1 - start, terminated: true, crlf: crlf)
            }
            if atEnd {
                guard end > start else { return nil }
                return emit(length: end - start, consumed: end - start, terminated: false)
            }
            try refill()
        }
    }

    @inline(__always)
    private func findNewline() -> Int? {
        guard end > start else { return nil }
        guard let hit = memchr(buffer + start, Int32(UInt8(ascii: "\n")), end - start) else { return nil }
        return UnsafeMutableRawPointer(hit).assumingMemoryBound(to: UInt8.self) - buffer
    }

    private func emit(length: Int, consumed: Int, terminated: Bool, crlf: Bool = false) -> Line {
        lineNumber += 1
        let line = Line(bytes: UnsafeBufferPointer(start: buffer + start, count: length),
                        number: lineNumber, offset: bufferOffset + start, terminated: terminated, crlf: crlf)
        start += consumed
        last = line
        return line
    }

    /// Moves the partial line to the front and reads more; grows for long lines.
    private func refill() throws {
        if start > 0 {
            let pending = end - start
            if pending > 0 { buffer.update(from: buffer + start, count: pending) }
            bufferOffset += start
            end = pending
            start = 0
        }
        if end == capacity {
            guard capacity < maxLineBytes else {
                throw CaptureError(file: input.name, location: .line(lineNumber + 1),
                                   "line longer than \(maxLineBytes) bytes, expected a text capture")
            }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: min(capacity * 2, maxLineBytes))
            grown.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = grown
            capacity = min(capacity * 2, maxLineBytes)
        }
        let n = try input.read(into: buffer + end, count: capacity - end)
        if n == 0 { atEnd = true }
        end += n
    }
}
