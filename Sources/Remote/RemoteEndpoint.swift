#if SensorLink
import Foundation

/// A sensor's address as the user writes it: `HOST:PORT`, `[v6]:PORT`.
public struct RemoteEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (an IPv6 address in brackets); port 0 (any free port) only where allowed.
    public init(parsing text: String, allowPortZero: Bool = false) throws {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw RemoteError.badAddress(text) }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw RemoteError.badAddress(text) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), port >= (allowPortZero ? 0 : 1), port <= 65_535 else {
            throw RemoteError.badAddress(text)
        }
        self.host = String(host)
        self.port = port
    }

    /// IPv6 literals contain a colon; everything else is a name or an IPv4 address.
    public var isIPv6: Bool { host.contains(":") }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The shared secret of `--token-file`: the file's first line, trimmed.
public enum BearerToken {
    public static func read(path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RemoteError.tokenFile(path, "cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw RemoteError.tokenFile(path, "is not UTF-8 text")
        }
        let token = text.split(whereSeparator: \.isNewline).first.map {
            $0.trimmingCharacters(in: .whitespaces)
        } ?? ""
        guard !token.isEmpty else { throw RemoteError.tokenFile(path, "is empty (the token is its first line)") }
        return token
    }
}

/// What goes wrong between a sensor and its viewers, in words for the user.
public enum RemoteError: Error, CustomStringConvertible, Sendable, Equatable {
    case badAddress(String)
    case tokenFile(String, String)
    case tlsFile(String, String)
    /// the sensor could not be reached or answered with an error
    case unreachable(RemoteEndpoint, String)
    /// the sensor refused the token (or none was sent)
    case unauthenticated(RemoteEndpoint, String)
    /// an open stream was lost
    case lost(RemoteEndpoint, String)
    /// the sensor's own analyzer is reconnecting
    case sensorOutage(RemoteEndpoint, String)
    case cannotListen(String, String)

    public var description: String {
        switch self {
        case .badAddress(let text):
            return "\(text): expected HOST:PORT (e.g. 127.0.0.1:7373, sensor.local:7373, [::1]:7373)"
        case .tokenFile(let path, let problem):
            return "token file \(path) \(problem)"
        case .tlsFile(let path, let problem):
            return "TLS file \(path) \(problem)"
        case .unreachable(let endpoint, let why):
            return "cannot reach the sensor at \(endpoint): \(why)"
        case .unauthenticated(let endpoint, let why):
            return "the sensor at \(endpoint) refused this viewer: \(why)"
        case .lost(let endpoint, let why):
            return "lost the sensor at \(endpoint): \(why)"
        case .sensorOutage(let endpoint, let why):
            return "the sensor at \(endpoint) lost its analyzer: \(why)"
        case .cannotListen(let address, let why):
            return "cannot listen on \(address): \(why)"
        }
    }
}
#endif
