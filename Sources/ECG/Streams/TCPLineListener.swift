import Foundation

/// Listens on a TCP address (IPv4 `HOST:PORT`, e.g. `127.0.0.1:7000`) for one
/// client — a phone or BLE bridge — whose lines `LineStreamSource` reads.
public final class TCPLineListener {
    public let host: String
    /// the port bound (the one asked for, or the kernel's choice for 0)
    public let port: UInt16
    private let descriptor: Int32

    /// Binds and listens; throws a one-line error for a bad address or a port in use.
    public init(address: String) throws {
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let wanted = UInt16(parts[1]) else {
            throw ECGError(file: address, "expected HOST:PORT, e.g. 127.0.0.1:7000")
        }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = wanted.bigEndian
        guard inet_pton(AF_INET, String(parts[0]), &socketAddress.sin_addr) == 1 else {
            throw ECGError(file: address, "expected an IPv4 address such as 127.0.0.1 before the port")
        }
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ECGError(file: address, "cannot open a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 1) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw ECGError(file: address, "cannot listen: \(reason)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        host = String(parts[0])
        port = UInt16(bigEndian: actual.sin_port)
        descriptor = socket
    }

    deinit { close(descriptor) }

    /// Waits for one client and returns a source reading its lines; the source ends when the client closes.
    public func accept(sampleRate: Double, parser: LineSampleParser) throws -> LineStreamSource {
        while true {
            let client = Foundation.accept(descriptor, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                return LineStreamSource(descriptor: client, name: "\(host):\(port)", sampleRate: sampleRate,
                                        parser: parser, closesDescriptor: true)
            }
            if errno == EINTR { continue }
            throw ECGError(file: "\(host):\(port)", "accept failed: \(String(cString: strerror(errno)))")
        }
    }
}
