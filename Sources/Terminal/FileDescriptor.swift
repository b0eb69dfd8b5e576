import Signals

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
        SystemIO.writeAll(bytes, to: fd)
    }
}
