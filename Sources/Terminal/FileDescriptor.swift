#if canImport(Glibc)
import Glibc
#endif

/// System calls on raw file descriptors, wrapped once.
package enum FileDescriptor {
    /// Writes all of `bytes` to `fd`, continuing after partial writes and EINTR,
    /// and waiting (poll, up to 1 s at a time) when a non-blocking descriptor
    /// reports EAGAIN.
    package static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(TerminalError) {
        let failure = bytes.withUnsafeBytes { writeAll($0, to: fd) }
        if failure != 0 { throw .systemCall("write", errno: failure) }
    }

    /// Same as above over raw memory; returns 0 or the errno that stopped it.
    /// Only async-signal-safe calls, so signal handlers may use it.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32 {
        guard var cursor = bytes.baseAddress else { return 0 }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Glibc.write(fd, cursor, remaining)
            if written >= 0 {
                cursor += written
                remaining -= written
                continue
            }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EAGAIN:
                var request = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&request, 1, 1000)
            default:
                return code
            }
        }
        return 0
    }
}
