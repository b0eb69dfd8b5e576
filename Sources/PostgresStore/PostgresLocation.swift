import Capture
import Foundation

/// A PostgreSQL capture store named by a URL:
/// `postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE[?session=ID|label=LABEL]`
/// (`postgres://` too). `session` picks a session by id, `label` the latest
/// with that label; without either a reader takes the latest session.
public struct PostgresLocation: Sendable, Equatable {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    public var session: Int64?
    public var label: String?

    /// whether `text` names a PostgreSQL store rather than a file
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    public init(url text: String) throws(CaptureError) {
        guard Self.isURL(text), let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw CaptureError(file: text, "expected postgresql://USER@HOST:PORT/DATABASE")
        }
        guard let user = components.user, !user.isEmpty else {
            throw CaptureError(file: text, "no user: expected postgresql://USER@HOST:PORT/DATABASE")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw CaptureError(file: text, "no database: expected postgresql://USER@HOST:PORT/DATABASE")
        }
        self.user = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.host = host
        port = components.port ?? 5432
        self.database = database
        for item in components.queryItems ?? [] {
            switch item.name {
            case "session":
                guard let id = item.value.flatMap(Int64.init), id > 0 else {
                    throw CaptureError(file: text, "session=\(item.value ?? ""): expected a session id (1, 2, …)")
                }
                session = id
            case "label":
                guard let value = item.value, !value.isEmpty else { throw CaptureError(file: text, "label=: expected a label") }
                label = value
            default:
                throw CaptureError(file: text, "unknown parameter \(item.name): expected session=ID or label=LABEL")
            }
        }
    }

    /// the URL without the password or the session choice, for messages
    public var name: String { "postgresql://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" }
}
