import Foundation

/// Writes a whole output file the user named. A regular file (or a new one) is written to a temporary
/// file beside it and renamed over it, so a reader never sees half of it; a path that exists and is not a
/// regular file (`/dev/null`, `/dev/stdout`, a FIFO, a terminal) is written in place, since renaming over
/// it would replace the device or pipe itself with a file — as root, `/dev/null` for every program.
public enum OutputFile {
    /// Writes `bytes` to `path`; false when it cannot be written (no such directory, no permission).
    public static func write(_ bytes: Data, to path: String) -> Bool {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            return bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += written
                }
                return true
            }
        }
        return FileManager.default.createFile(atPath: path, contents: bytes)
    }
}
