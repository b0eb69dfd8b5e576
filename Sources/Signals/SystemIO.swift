#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads and writes on raw file descriptors, written once for every module:
/// partial transfers are continued, EINTR retried, and a non-blocking
/// descriptor's EAGAIN on write waited out (poll, up to 1 s at a time).
/// Failures come back as the errno, so callers word them for their file
/// and signal handlers may call the writers (async-signal-safe calls only).
public enum SystemIO {
    /// Writes all of `bytes` to `fd`; 0, or the errno that stopped it.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32 {
        transferAll(bytes) { cursor, remaining, _ in write(fd, cursor, remaining) } waitWritable: { waitWritable(fd) }
    }

    /// Writes all of `bytes` at byte `offset` of `fd` (pwrite: the file position
    /// is not moved); 0, or the errno that stopped it.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int) -> Int32 {
        transferAll(bytes) { cursor, remaining, done in pwrite(fd, cursor, remaining, off_t(offset + done)) }
            waitWritable: { waitWritable(fd) }
    }

    /// One read of up to `count` bytes, retried on EINTR: the bytes read (0 at
    /// the end), or the errno as a negative number.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        while true {
            let got = Glibc.read(fd, buffer, count)
            if got >= 0 { return got }
            if errno != EINTR { return -Int(errno) }
        }
    }

    private static func transferAll(_ bytes: UnsafeRawBufferPointer,
                                    _ write: (UnsafeRawPointer, Int, Int) -> Int,
                                    waitWritable: () -> Void) -> Int32 {
        guard let base = bytes.baseAddress else { return 0 }
        var done = 0
        while done < bytes.count {
            let written = write(base + done, bytes.count - done, done)
            if written >= 0 {
                done += written
                continue
            }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN: waitWritable()
            default: return code
            }
        }
        return 0
    }

    private static func waitWritable(_ fd: Int32) {
        var request = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&request, 1, 1000)
    }
}
