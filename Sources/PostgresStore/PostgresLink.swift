#if SensorLink
import Capture
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection to the server, used synchronously from one thread at a
/// time (a recording's writer thread, a reader's caller): each call waits
/// for its answer. Errors become one line naming the store.
final class PostgresLink: Sendable {
    let location: PostgresLocation
    private let connection: PostgresConnection
    private static let logger = Logger(label: "tscope.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    init(_ location: PostgresLocation) throws(CaptureError) {
        self.location = location
        let password = PostgresPassword.resolve(for: location)
        let tls = try PostgresTLS.resolve(for: location)
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: password.password,
            database: location.database, tls: try tls.configuration())
        configuration.options.connectTimeout = .seconds(5)
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1,
                logger: Self.logger).wait()
        } catch {
            throw CaptureError(file: location.name, "cannot connect: " + Self.refusal(error, password: password, tls: tls))
        }
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws(CaptureError) -> [PostgresRow] {
        do {
            return try connection.query(query, logger: Self.logger).wait().rows
        } catch {
            throw CaptureError(file: location.name, Self.describe(error))
        }
    }

    var isClosed: Bool { connection.isClosed }

    func close() {
        try? connection.close().wait()
    }

    /// Why a connection failed, in words: a certificate problem as such (with
    /// the encryption mode and where it came from), else the server's answer
    /// and where the password came from (never the password itself).
    static func refusal(_ error: any Error, password: PostgresPassword, tls: PostgresTLS) -> String {
        let text = describe(error) + " \(error)"
        let encryption = "encryption: \(tls.mode.rawValue), from \(tls.source)"
            + (tls.rootCertificate.map { ", root certificate \($0)" } ?? "")
        if text.contains("failedToValidateHostname") {
            return "the server's certificate does not name the host dialled (\(encryption))"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "the server's certificate is not signed by the root certificate (\(encryption))"
        }
        if (error as? PSQLError)?.code == .sslUnsupported {
            return "the server does not offer encryption (\(encryption); sslmode=prefer uses it only where offered)"
        }
        let from = password.source.map { " (password from \($0))" }
            ?? " (no password given: PGPASSWORD, PGPASSFILE or ~/.pgpass\(password.ignoredFile.map { "; \($0)" } ?? ""))"
        let aboutTLS = ["SSL", "TLS", "handshake", "encryption"].contains { text.contains($0) }
        return describe(error) + from + (aboutTLS || tls.mode != .prefer ? " (\(encryption))" : "")
    }

    /// The server's own message when there is one ("relation … does not exist"), else the error.
    static func describe(_ error: any Error) -> String {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] { return "server: \(message)" }
            switch psql.code {
            case .connectionError, .serverClosedConnection, .uncleanShutdown:
                return "connection lost (\(psql.underlying.map { "\($0)" } ?? "closed by the server"))"
            default:
                return "\(psql.code)\(psql.underlying.map { ": \($0)" } ?? "")"
            }
        }
        return "\(error)"
    }
}
#endif
