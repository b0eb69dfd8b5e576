import Foundation

/// A pseudo-terminal pair for serial tests. Glibc hides posix_openpt,
/// grantpt, unlockpt and ptsname from Swift (they need _XOPEN_SOURCE), so
/// they are looked up once by name.
struct PseudoTerminal {
    let master: Int32
    let slavePath: String

    private typealias OpenFunction = @convention(c) (Int32) -> Int32
    private typealias ControlFunction = @convention(c) (Int32) -> Int32
    private typealias NameFunction = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    private static func function<T>(_ name: String, as type: T.Type) -> T? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    /// nil when the system offers no pseudo-terminals
    init?() {
        guard let open = Self.function("posix_openpt", as: OpenFunction.self),
              let grant = Self.function("grantpt", as: ControlFunction.self),
              let unlock = Self.function("unlockpt", as: ControlFunction.self),
              let name = Self.function("ptsname", as: NameFunction.self) else { return nil }
        let master = open(O_RDWR | O_NOCTTY)
        guard master >= 0 else { return nil }
        guard grant(master) == 0, unlock(master) == 0, let path = name(master) else {
            close(master)
            return nil
        }
        self.master = master
        slavePath = String(cString: path)
    }
}
