import Foundation
import Signals

/// Where a reader's bytes come from: a file read through `read(2)`, or bytes
/// already in memory (tests and fuzz harnesses). Readers see only `read`.
public final class ByteInput {
    /// what the input is called in error messages (a path, "<memory>")
    public let name: String
    /// size [bytes] if known up front (regular files, memory)
    public let totalBytes: Int?
    private let fd: Int32
    private let memory: UnsafeRawBufferPointer?
    private var memoryOffset = 0

    /// Opens a file for reading; a missing or unreadable file is a `CaptureError`.
    public init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CaptureError(file: path, "cannot open: \(String(cString: strerror(errno)))")
        }
        var status = stat()
        if fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw CaptureError(file: path, "is a directory, expected a capture file")
        }
        self.fd = fd
        self.name = path
        self.memory = nil
        let isRegular = fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        self.totalBytes = isRegular ? Int(status.st_size) : nil
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    /// Reads from bytes the caller keeps alive for the input's lifetime.
    public init(bytes: UnsafeRawBufferPointer, name: String = "<memory>") {
        self.fd = -1
        self.name = name
        self.memory = bytes
        self.totalBytes = bytes.count
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Reads up to `count` bytes into `destination`; 0 at the end.
    func read(into destination: UnsafeMutableRawPointer, count: Int) throws -> Int {
        if let memory {
            let n = min(count, memory.count - memoryOffset)
            if n > 0, let base = memory.baseAddress {
                destination.copyMemory(from: base + memoryOffset, byteCount: n)
            }
            memoryOffset += max(n, 0)
            return max(n, 0)
        }
        let n = SystemIO.read(fd, into: destination, count: count)
        if n >= 0 { return n }
        throw CaptureError(file: name, "read failed: \(String(cString: strerror(Int32(-n))))")
    }
}
