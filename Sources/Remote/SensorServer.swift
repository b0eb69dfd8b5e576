#if SensorLink
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

    /// - Parameters:
    ///   - token: the token a viewer needs to watch (nil: none)
    ///   - controlToken: the token a viewer needs to retune and change settings (nil: watching is enough)
    ///   - clock: paces each viewer's frames at the rate it asked for
    public init(hub: SensorHub, listen: RemoteEndpoint, token: String?, controlToken: String? = nil,
                certificate: SensorCertificate? = nil, clock: any MonotonicClock = SystemClock()) {
        self.hub = hub
        self.certificate = certificate
        let rights = ViewerRights(controlNeedsToken: controlToken != nil)
        address = listen.description
        let socket: GRPCNIOTransportCore.SocketAddress = listen.isIPv6
            ? .ipv6(host: listen.host, port: listen.port) : .ipv4(host: listen.host, port: listen.port)
        server = GRPCServer(transport: .http2NIOPosix(address: socket,
                                                  transportSecurity: certificate?.transportSecurity ?? .plaintext),
                            services: [SensorService(hub: hub, rights: rights, clock: clock)],
                            interceptors: token == nil && controlToken == nil ? []
                                : [BearerTokenCheck(token: token, controlToken: controlToken, rights: rights)])
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
    let rights: ViewerRights
    let clock: any MonotonicClock

    func describe(request: Tscope_Remote_V1_DescribeRequest, context: ServerContext) async throws
        -> Tscope_Remote_V1_SensorDescription {
        hub.description
    }

    func watch(request: RPCAsyncSequence<Tscope_Remote_V1_ViewRequest, any Error>,
               response: RPCWriter<Tscope_Remote_V1_SensorMessage>, context: ServerContext) async throws {
        guard let feed = hub.join(peer: context.remotePeer, mayControl: rights.mayControl(context.remotePeer)) else {
            throw RPCError(code: .unavailable, message: "the sensor is shutting down")
        }
        defer { hub.leave(feed) }
        let (hub, clock) = (hub, clock)
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
                // when the next frame may go [s, clock]
                var nextFrame = clock.now
                while true {
                    // a viewer with a rate waits here while newer frames merge into the one waiting
                    if feed.subscription.framesPerSecond > 0 { try await clock.sleep(until: nextFrame) }
                    guard let message = await feed.next() else { break }
                    try await response.write(message)
                    let rate = feed.subscription.framesPerSecond
                    if case .frame = message.message, rate > 0 { nextFrame = clock.now + 1 / rate }
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

/// What each connection's token allows, by its peer address ("ipv4:10.0.0.7:51234"): the check
/// below records it, the service reads it when the viewer joins.
final class ViewerRights: Sendable {
    private let control = Guarded<[String: Bool]>([:])
    let controlNeedsToken: Bool

    init(controlNeedsToken: Bool) { self.controlNeedsToken = controlNeedsToken }

    func record(_ peer: String, mayControl: Bool) { control.withLock { $0[peer] = mayControl } }

    /// Without a control token anyone watching may control; with one, only a connection that presented it.
    func mayControl(_ peer: String) -> Bool {
        guard controlNeedsToken else { return true }
        return control.withLock { $0[peer] } ?? false
    }
}

/// Checks `authorization: Bearer <token>`: the watch token (when set) or the control token lets a viewer in;
/// only the control token (when one is set) lets it retune and change settings. Both compared in constant time.
struct BearerTokenCheck: ServerInterceptor {
    let token: String?
    let controlToken: String?
    let rights: ViewerRights

    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>, context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        let given = request.metadata[stringValues: "authorization"].first(where: { _ in true })
        let isControl = controlToken.map { control in given.map { Self.same($0, "Bearer \(control)") } ?? false } ?? false
        let isWatch = token.map { watch in given.map { Self.same($0, "Bearer \(watch)") } ?? false } ?? false
        if !isControl && !isWatch {
            if token != nil && given == nil {
                throw RPCError(code: .unauthenticated, message: "this sensor needs a token (the viewer's --token-file)")
            }
            // no watch token: anyone watches; a token given must still be one of the sensor's
            if token != nil || given != nil { throw RPCError(code: .unauthenticated, message: "wrong token") }
        }
        rights.record(context.remotePeer, mayControl: isControl || (controlToken == nil && isWatch))
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
#endif
