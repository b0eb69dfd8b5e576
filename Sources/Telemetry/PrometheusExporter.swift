#if SensorLink
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus

/// Serves a Prometheus registry's metrics in the text exposition format at
/// `GET /metrics` on HOST:PORT (the format: prometheus.io/docs/instrumenting/
/// exposition_formats). Other paths answer 404, other methods 405. The
/// server runs on its own event loop; `stop` closes it.
public final class PrometheusExporter: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// the address it listens on (the port the system chose when 0 was asked)
    public let host: String
    public let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    /// Binds and starts serving. `address` is HOST:PORT (IPv4, or [IPv6]:PORT).
    public init(address: String, registry: PrometheusCollectorRegistry) throws {
        let (host, port) = try Self.split(address)
        self.registry = registry
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(MetricsHandler(registry: registry))
                }
            }
        do {
            channel = try bootstrap.bind(host: host, port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw TelemetryError("--prometheus \(address): cannot listen (\(error))")
        }
        self.host = host
        self.port = channel.localAddress?.port ?? port
    }

    /// Stops listening and ends the event loop. Call once.
    public func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// "127.0.0.1:9100" → ("127.0.0.1", 9100); "[::1]:9100" → ("::1", 9100)
    static func split(_ address: String) throws -> (String, Int) {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (0...65_535).contains(port) else {
            throw TelemetryError("--prometheus \(address): expected HOST:PORT, e.g. 127.0.0.1:9100")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw TelemetryError("--prometheus \(address): expected HOST:PORT, e.g. 127.0.0.1:9100") }
        return (host, port)
    }
}

/// A problem with what telemetry was asked to do: one line for the user.
public struct TelemetryError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ message: String) { description = message }
}

/// One HTTP/1.1 connection: answers each request with the registry's text.
private final class MetricsHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: PrometheusCollectorRegistry

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let request) = unwrapInboundIn(data) else { return }
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        let status: HTTPResponseStatus
        let body: [UInt8]
        let contentType: String
        if request.method != .GET && request.method != .HEAD {
            (status, body, contentType) = (.methodNotAllowed, Array("GET /metrics\n".utf8), "text/plain")
        } else if path == "/metrics" {
            (status, body, contentType) = (.ok, registry.emitToBuffer(), "text/plain; version=0.0.4; charset=utf-8")
        } else {
            (status, body, contentType) = (.notFound, Array("tscope serves /metrics\n".utf8), "text/plain")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: "\(body.count)")
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))),
                      promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            // the close runs on the channel's own event loop, where the context lives
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            done.whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}
#endif
