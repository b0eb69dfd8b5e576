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
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: password.password,
            database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 1,
                logger: Self.logger).wait()
        } catch {
            // where the password came from (never the password): the usual cause of a refusal
            let from = password.source.map { " (password from \($0))" }
                ?? " (no password given: PGPASSWORD, PGPASSFILE or ~/.pgpass\(password.ignoredFile.map { "; \($0)" } ?? ""))"
            throw CaptureError(file: location.name, "cannot connect: \(Self.describe(error))\(from)")
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
