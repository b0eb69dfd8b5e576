#if SensorLink
import Capture
import Foundation

/// A PostgreSQL capture store named by a URL:
/// `postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE[?session=ID|label=LABEL|sensor=SERIAL|sessions=all]`
/// (`postgres://` too). `session` picks a session by id, `label` the latest
/// with that label; without either a reader takes the latest session.
/// `sensor` and `sessions=all` choose many sessions — every session of the
/// sensor(s) with that serial (or, for a sensor without one, that device
/// name), or of every sensor — which only `occupancy` counts over (per
/// sensor, and in all of them).
/// `sslmode` and `sslrootcert` choose encryption as libpq's do (`PostgresTLS`).
public struct PostgresLocation: Sendable, Equatable {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    public var session: Int64?
    public var label: String?
    /// `sensor=SERIAL`: every session of the sensor with this serial (or device name, when it has no serial)
    public var sensor: String?
    /// `sessions=all`: every session of every sensor
    public var allSessions = false
    /// `sslmode=`: nil where the URL gives none (PGSSLMODE, else prefer)
    public var sslMode: PostgresTLS.Mode?
    /// `sslrootcert=FILE`: the CA a server's certificate is checked against
    public var sslRootCertificate: String?

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
            case "sensor":
                guard let value = item.value, !value.isEmpty else {
                    throw CaptureError(file: text, "sensor=: expected a sensor's serial (or its device name)")
                }
                sensor = value
            case "sessions":
                guard item.value == "all" else {
                    throw CaptureError(file: text, "sessions=\(item.value ?? ""): expected sessions=all (or session=ID for one)")
                }
                allSessions = true
            case "sslmode":
                guard let mode = item.value.flatMap(PostgresTLS.Mode.init(rawValue:)) else {
                    throw CaptureError(file: text, "sslmode=\(item.value ?? ""): expected one of \(PostgresTLS.modes)")
                }
                sslMode = mode
            case "sslrootcert":
                guard let value = item.value, !value.isEmpty else {
                    throw CaptureError(file: text, "sslrootcert=: expected a PEM file")
                }
                sslRootCertificate = value
            default:
                throw CaptureError(file: text, "unknown parameter \(item.name): expected session=ID, label=LABEL, "
                    + "sensor=SERIAL, sessions=all, sslmode=MODE or sslrootcert=FILE")
            }
        }
        let choices = [session.map { "session=\($0)" }, label.map { "label=\($0)" }, sensor.map { "sensor=\($0)" },
                       allSessions ? "sessions=all" : nil].compactMap { $0 }
        guard choices.count <= 1 else {
            throw CaptureError(file: text, "\(choices.joined(separator: " and ")): give one choice of sessions")
        }
    }

    /// whether the URL chooses many sessions (`sensor=`, `sessions=all`) rather than one
    public var choosesManySessions: Bool { sensor != nil || allSessions }

    /// the URL without the password or the session choice, for messages
    public var name: String { "postgresql://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" }
}
#endif
