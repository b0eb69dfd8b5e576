#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal pair for tests: the session under test gets `replica`, the
/// test reads what it wrote and types into it through `controller`.
final class PseudoTerminal {
    let controller: Int32
    let replica: Int32

    /// Linux ioctls behind unlockpt/ptsname (asm-generic/ioctls.h: TIOCSPTLCK =
    /// _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, unsigned int)); glibc's
    /// posix_openpt family is not visible to Swift without _XOPEN_SOURCE.
    private static let setPTYLock: UInt = 0x4004_5431
    private static let getPTYNumber: UInt = 0x8004_5430

    init?() {
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard controller >= 0 else { return nil }
        guard ioctl(controller, PseudoTerminal.setPTYLock, &unlock) == 0,
              ioctl(controller, PseudoTerminal.getPTYNumber, &number) == 0 else { close(controller); return nil }
        let replica = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard replica >= 0 else { close(controller); return nil }
        self.controller = controller
        self.replica = replica
    }

    deinit {
        close(replica)
        close(controller)
    }

    /// Everything the replica side wrote within `timeoutMS` of quiet.
    func drain(timeoutMS: Int32 = 300) -> [UInt8] {
        var collected: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            var request = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, timeoutMS) > 0 else { return collected }
            let count = chunk.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
            guard count > 0 else { return collected }
            collected += chunk[0..<count]
        }
    }

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
    }

    var localFlags: tcflag_t {
        var attributes = termios()
        _ = tcgetattr(replica, &attributes)
        return attributes.c_lflag
    }
}
