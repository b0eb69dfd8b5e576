import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Signals
import ThreadKit

/// `tscope serve`'s network side: a gRPC server (grpc-swift-2 on SwiftNIO's
/// HTTP/2) offering the hub's analyzer to any number of viewers, with a
/// bearer token required when one is set, over TLS when it has a
/// certificate (plaintext HTTP/2 otherwise). `start` returns once it listens;
/// `stop` ends every viewer's stream and waits for the server to finish.
public final class SensorServer: Sendable {
    private let hub: SensorHub
    private let server: GRPCServer<HTTP2ServerTransport.Posix>
    private let address: String
    private let certificate: SensorCertificate?
    private let serving = Guarded<Task<Void, any Error>?>(nil)

    public init(hub: SensorHub, listen: RemoteEndpoint, token: String?, certificate: SensorCertificate? = nil) {
        self.hub = hub
        self.certificate = certificate
        address = listen.description
        let socket: GRPCNIOTransportCore.SocketAddress = listen.isIPv6
            ? .ipv6(host: listen.host, port: listen.port) : .ipv4(host: listen.host, port: listen.port)
        server = GRPCServer(transport: .http2NIOPosix(address: socket,
                                                  transportSecurity: certificate?.transportSecurity ?? .plaintext),
                            services: [SensorService(hub: hub)],
                            interceptors: token.map { [BearerTokenCheck(token: $0)] } ?? [])
    }

    /// Starts listening; returns the address bound (the port chosen when 0 was asked).
    public func start() throws -> RemoteEndpoint {
        let server = server
        let task = Task(executorPreference: RemoteExecutor.shared) { try await server.serve() }
        serving.withLock { $0 = task }
        let address = address
        do {
            return try blockingAwait {
                guard let bound = try await server.listeningAddress else {
                    throw RemoteError.cannotListen(address, "the server stopped before it listened")
                }
                if let ipv4 = bound.ipv4 { return RemoteEndpoint(host: ipv4.host, port: ipv4.port) }
                if let ipv6 = bound.ipv6 { return RemoteEndpoint(host: ipv6.host, port: ipv6.port) }
                throw RemoteError.cannotListen(address, "bound to \(bound), not an IP address")
            }
        } catch let error as RemoteError {
            stop()
            throw error
        } catch {
            // the server's own error says why (a key that does not match the certificate, a port in use)
            let why = Self.reason(servingError() ?? error)
            stop()
            throw RemoteError.cannotListen(address, certificate?.explain(why) ?? why)
        }
    }

    /// The error the serving task ended with, if it has ended with one.
    private func servingError() -> (any Error)? {
        guard let task = serving.withLock({ $0 }) else { return nil }
        do {
            try blockingAwait(timeoutSeconds: 2) { try await task.value }
            return nil
        } catch is RemoteTimeout {
            return nil
        } catch {
            return error
        }
    }

    /// Ends every viewer's stream and the server; waits until it has finished.
    public func stop() {
        hub.close()
        server.beginGracefulShutdown()
        guard let task = serving.withLock({ $0.take() }) else { return }
        _ = try? blockingAwait(timeoutSeconds: 5) { _ = try await task.value }
        task.cancel()
    }

    /// The words in a transport error, without gRPC's wrapping.
    static func reason(_ error: any Error) -> String {
        if let error = error as? RuntimeError {
            return error.cause.map { "\($0)" } ?? error.message
        }
        if let error = error as? RPCError { return error.message }
        return "\(error)"
    }
}

/// The service itself: `Describe` answers from the hub; `Watch` joins the
/// viewer to the hub, applies its requests as they come and writes what its
/// feed holds, no faster than the rate it asked for.
struct SensorService: Tscope_Remote_V1_Sensor.SimpleServiceProtocol {
    let hub: SensorHub

    func describe(request: Tscope_Remote_V1_DescribeRequest, context: ServerContext) async throws
        -> Tscope_Remote_V1_SensorDescription {
        hub.description
    }

    func watch(request: RPCAsyncSequence<Tscope_Remote_V1_ViewRequest, any Error>,
               response: RPCWriter<Tscope_Remote_V1_SensorMessage>, context: ServerContext) async throws {
        guard let feed = hub.join(peer: context.remotePeer) else {
            throw RPCError(code: .unavailable, message: "the sensor is shutting down")
        }
        defer { hub.leave(feed) }
        let hub = hub
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for try await viewRequest in request {
                    do {
                        try hub.apply(viewRequest, from: feed)
                    } catch {
                        throw RPCError(code: .failedPrecondition, message: "the analyzer could not be retuned: \(error)")
                    }
                }
                return false  // the viewer sends nothing more; it still watches
            }
            group.addTask {
                let clock = ContinuousClock()
                var nextFrame = clock.now
                while true {
                    // a viewer with a rate waits here while newer frames merge into the one waiting
                    if feed.subscription.framesPerSecond > 0 { try await clock.sleep(until: nextFrame) }
                    guard let message = await feed.next() else { break }
                    try await response.write(message)
                    let rate = feed.subscription.framesPerSecond
                    if case .frame = message.message, rate > 0 { nextFrame = clock.now + .seconds(1 / rate) }
                }
                return true
            }
            while let writerEnded = try await group.next() {
                if writerEnded {
                    group.cancelAll()
                    return
                }
            }
        }
    }
}

/// Refuses every call without `authorization: Bearer <token>`.
struct BearerTokenCheck: ServerInterceptor {
    let token: String

    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>, context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        let given = request.metadata[stringValues: "authorization"].first(where: { _ in true })
        guard let given else {
            throw RPCError(code: .unauthenticated, message: "this sensor needs a token (the viewer's --token-file)")
        }
        guard Self.same(given, "Bearer \(token)") else {
            throw RPCError(code: .unauthenticated, message: "wrong token")
        }
        return try await next(request, context)
    }

    /// Compares without stopping at the first difference (no timing hint).
    static func same(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        var difference = left.count ^ right.count
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= Int(x ^ y)
        }
        return difference == 0
    }
}
