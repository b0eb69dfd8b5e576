import Foundation
import Signals

/// A buffered byte writer to a file descriptor: one preallocated buffer,
/// flushed when full and on `flush()`. Writes loop over partial writes and
/// EINTR; a failed write (disk full, closed pipe) is reported as an error
/// naming the destination.
public final class OutputSink {
    public let fd: Int32
    /// what the destination is called in error messages ("stdout", a path)
    public let name: String
    private var buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var count = 0
    private let ownsDescriptor: Bool

    public init(fd: Int32, name: String, capacity: Int = 1 << 20, ownsDescriptor: Bool = false) {
        self.fd = fd
        self.name = name
        self.capacity = max(capacity, 256)
        self.buffer = .allocate(capacity: self.capacity)
        self.ownsDescriptor = ownsDescriptor
    }

    /// Opens (creating or truncating) a file for writing.
    public static func file(path: String) throws -> OutputSink {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw OutputError(destination: path, detail: String(cString: strerror(errno)))
        }
        return OutputSink(fd: fd, name: path, ownsDescriptor: true)
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { Foundation.close(fd) }
    }

    /// Space guaranteed by `reserve` [bytes]; callers writing records larger than
    /// this go through `write(_:)`.
    public var reservableCapacity: Int { capacity }

    /// Makes room for `bytes` more bytes and returns where to write them; the
    /// caller then calls `commit(bytes:)` with what it actually wrote.
    @inline(__always)
    public func reserve(_ bytes: Int) throws -> UnsafeMutablePointer<UInt8> {
        precondition(bytes <= capacity, "record larger than the output buffer")
        if count + bytes > capacity { try flush() }
        return buffer + count
    }

    /// `reserve` for one text line of `values` values that needs at most
    /// `worstCase` bytes; a line no buffer could hold is an error, not a trap.
    func reserveLine(_ worstCase: Int, values: Int) throws -> UnsafeMutablePointer<UInt8> {
        guard worstCase <= capacity else {
            throw OutputError(destination: name, detail: "line of \(values) values exceeds the output buffer")
        }
        return try reserve(worstCase)
    }

    @inline(__always)
    public func commit(bytes: Int) { count += bytes }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if count + bytes.count > capacity { try flush() }
        if bytes.count > capacity {
            try writeAll(bytes.baseAddress!, bytes.count)
            return
        }
        if let base = bytes.baseAddress {
            (buffer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        }
        count += bytes.count
    }

    public func write(_ text: String) throws {
        var copy = text
        try copy.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    public func flush() throws {
        guard count > 0 else { return }
        let pending = count
        count = 0
        try writeAll(UnsafeRawPointer(buffer), pending)
    }

    private func writeAll(_ base: UnsafeRawPointer, _ length: Int) throws {
        let failure = SystemIO.writeAll(UnsafeRawBufferPointer(start: base, count: length), to: fd)
        if failure != 0 { throw OutputError(destination: name, detail: String(cString: strerror(failure))) }
    }
}

/// Writing output failed.
public struct OutputError: Error, CustomStringConvertible {
    public var destination: String
    public var detail: String
    public var description: String { "cannot write \(destination): \(detail)" }
}
