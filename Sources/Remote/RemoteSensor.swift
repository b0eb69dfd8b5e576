#if SensorLink
import Analyzers
import Analyzers
import DSP
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Signals
import ThreadKit

/// A sensor as a viewer reaches it (`--remote HOST:PORT`): what it is
/// (`describe`), and a reconnectable `SpectrumSource` on its stream, so
/// `watch`, `meter` and `record` treat it like a local analyzer — the
/// reconnect supervisor reopens a lost stream and marks the gap.
public struct RemoteSensor: Sendable {
    public var endpoint: RemoteEndpoint
    /// the bearer token, when the sensor requires one
    public var token: String?
    /// at most this many frames a second from the sensor (0: every sweep)
    public var framesPerSecond: Double
    /// the analyzer's own bins (meter, record); false: peak-decimated by the sensor to the bin width asked for (a view)
    public var fullResolution: Bool
    /// TLS, and whom to trust (nil: plaintext)
    public var trust: SensorTrust?
    /// the analyzer's settings to change on the sensor ("lna-gain" → "24"), sent with the stream's first request
    public var settings: [String: String] = [:]
    /// the detector the viewer's levels are made with on the sensor (nil: the sensor's own)
    public var detector: SpectrumDetector?

    public init(endpoint: RemoteEndpoint, token: String? = nil, trust: SensorTrust? = nil, framesPerSecond: Double = 0,
                fullResolution: Bool = true) {
        self.endpoint = endpoint
        self.token = token
        self.trust = trust
        self.framesPerSecond = framesPerSecond
        self.fullResolution = fullResolution
    }

    /// What the sensor's analyzer is, as it answers now.
    public struct Description: Sendable, Equatable {
        public var deviceName: String
        /// the analyzer family as the sensor names it (`--device` id: "hackrf", "soapy"; a family this build may lack)
        public var kindID: String
        public var serial: String?
        public var unit: PowerUnit
        public var isDemo: Bool
        public var tunableRange: FrequencyRange?
        public var sweep: FrequencyRange?
        public var binWidthHz: Double
        public var stallSeconds: Double
        /// the sensor analyzer's settings and calibration line
        public var settings: String
        /// the same as `meter --json` fields, where the sensor gave well-formed ones
        public var settingsJSON: String?

        init(_ message: Tscope_Remote_V1_SensorDescription) {
            settings = message.settings
            settingsJSON = RemoteSensor.checkedJSONFields(message.settingsJson)
            deviceName = message.deviceName
            kindID = message.deviceKind
            serial = message.serial.isEmpty ? nil : message.serial
            // a unit this build does not know (a newer sensor) reads as the uncalibrated dB
            unit = PowerUnit(rawValue: message.unit) ?? .dB
            isDemo = message.demo
            tunableRange = FrequencyRange(lowerHz: message.tunableLowHz, upperHz: message.tunableHighHz)
            sweep = FrequencyRange(lowerHz: message.sweepLowHz, upperHz: message.sweepHighHz)
            binWidthHz = message.binWidthHz
            stallSeconds = message.stallSeconds
        }
    }

    var metadata: Metadata {
        var metadata: Metadata = [:]
        if let token { metadata.addString("Bearer \(token)", forKey: "authorization") }
        return metadata
    }

    func transport() throws -> HTTP2ClientTransport.Posix {
        try .http2NIOPosix(target: target, transportSecurity: trust?.transportSecurity ?? .plaintext)
    }

    /// An IP literal is dialled as an address, not a name: TLS may not send an
    /// IP address as the server name (SNI), so the certificate is checked
    /// against the address instead.
    private var target: any ResolvableTarget {
        if endpoint.isIPv6 { return ResolvableTargets.IPv6.ipv6(address: endpoint.host, port: endpoint.port) }
        var address = in_addr()
        if inet_pton(AF_INET, endpoint.host, &address) == 1 {
            return ResolvableTargets.IPv4.ipv4(address: endpoint.host, port: endpoint.port)
        }
        return ResolvableTargets.DNS.dns(host: endpoint.host, port: endpoint.port)
    }

    /// Asks the sensor what it is (from a plain thread; at most `timeoutSeconds`).
    public func describe(timeoutSeconds: Double = 5) throws -> Description {
        do {
            let transport = try transport()
            let metadata = metadata
            let message = try blockingAwait(timeoutSeconds: timeoutSeconds) {
                try await withGRPCClient(transport: transport) { client in
                    var options = CallOptions.defaults
                    options.timeout = .seconds(timeoutSeconds)
                    options.waitForReady = false
                    return try await Tscope_Remote_V1_Sensor.Client(wrapping: client)
                        .describe(Tscope_Remote_V1_DescribeRequest(), metadata: metadata, options: options)
                }
            }
            return Description(message)
        } catch {
            throw classify(error, whileConnecting: true)
        }
    }

    /// A user-facing error for what gRPC threw.
    /// `,"key":value` fields from a sensor, kept only when they are JSON
    /// members with plain keys (they go verbatim into this machine's output)
    public static func checkedJSONFields(_ fields: String) -> String? {
        guard fields.hasPrefix(","), let data = ("{" + fields.dropFirst() + "}").data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], !object.isEmpty,
              object.keys.allSatisfy({ key in !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } })
        else { return nil }
        return fields
    }

    func classify(_ error: any Error, whileConnecting: Bool) -> RemoteError {
        if let error = error as? RemoteError { return error }
        if let error = error as? RPCError {
            if error.code == .unauthenticated { return .unauthenticated(endpoint, error.message) }
            var why = error.code == .unavailable ? "unavailable (\(error.message))" : "\(error.code): \(error.message)"
            if let problem = tlsProblem(error) { why = problem }
            return whileConnecting ? .unreachable(endpoint, why) : .lost(endpoint, why)
        }
        let why = error is RemoteTimeout ? "\(error)" : SensorServer.reason(error)
        return whileConnecting ? .unreachable(endpoint, why) : .lost(endpoint, why)
    }

    /// What went wrong with TLS, in words, when that is what failed: read
    /// from SwiftNIO SSL's handshake error (BoringSSL's reason names), or a
    /// plaintext viewer hung up on by a sensor that speaks TLS.
    private func tlsProblem(_ error: RPCError) -> String? {
        let cause = error.cause.map { String(describing: $0) } ?? ""
        let trusted = switch trust {
        case .certificate(let path): "--tls-ca \(path)"
        case .systemRoots: "the system's trust store (--tls)"
        case nil: ""
        }
        if cause.contains("CERTIFICATE_VERIFY_FAILED") {
            return "TLS: its certificate is not signed by \(trusted)"
        }
        if cause.contains("failedToValidateHostname") || cause.contains("HOSTNAME") {
            return "TLS: its certificate does not name \(endpoint.host)"
        }
        if cause.contains("WRONG_VERSION_NUMBER") {
            return "TLS: the sensor does not speak TLS (serve without --tls-cert); drop --tls-ca/--tls"
        }
        if cause.contains("handshakeFailed") { return "TLS handshake failed (\(cause))" }
        if trust == nil, error.message.contains("before completing the HTTP/2 connection preface") {
            return "it hung up before HTTP/2 began: a sensor serving TLS? (give --tls-ca FILE or --tls)"
        }
        return nil
    }
}

/// One stream from a sensor: frames of the band asked for (cut and
/// decimated by the sensor, at most `framesPerSecond`), delivered on the
/// stream's task. `retune` sends the new band and asks for control: the
/// analyzer follows when no other viewer holds it; otherwise the sensor cuts
/// its current sweep to the band. A lost stream, or a sensor whose own
/// analyzer is reconnecting, ends the source through `onEnd`.
public final class RemoteSpectrumSource: SpectrumSource {
    private let sensor: RemoteSensor
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (any Error) -> Void

    private struct State {
        var requests: AsyncStream<Tscope_Remote_V1_ViewRequest>.Continuation?
        var task: Task<Void, Never>?
        var finished: DispatchSemaphore?
        var stopping = false
        var counters = SpectrumSourceCounters()
        var controlHeld = false
        var controlHolder = ""
        var sweep: FrequencyRange?
        var tunable: FrequencyRange?
        /// the sensor analyzer's settings line (and as JSON fields), as last described
        var settings: String?
        var settingsJSON: String?
        /// what became of the settings request, not yet taken
        var notice: String?
        /// the newest frame's dwell and revisit, as the sensor stated them
        var dwell: DwellTiming?
    }

    private let state = Guarded(State())

    /// set on the stream's own task, where `stop` must not wait for it
    @TaskLocal private static var onStreamTask = false

    /// `tunableRange`: what the sensor last described (until its stream says); nil for unknown yet
    public init(sensor: RemoteSensor, tunableRange: FrequencyRange? = nil,
                onFrame: @escaping @Sendable (SpectrumFrame) -> Void, onEnd: @escaping @Sendable (any Error) -> Void) {
        self.sensor = sensor
        self.onFrame = onFrame
        self.onEnd = onEnd
        state.withLock { $0.tunable = tunableRange }
    }

    /// what the sensor's analyzer can tune, as last described; before any description, anything
    /// (the sensor checks each band it is asked for and answers with what it did)
    public var tunableRange: FrequencyRange {
        state.withLock { $0.tunable } ?? Self.unknownTunableRange
    }

    static let unknownTunableRange = FrequencyRange(lowerHz: 0, upperHz: 1e12)!

    public var counters: SpectrumSourceCounters { state.withLock { $0.counters } }

    /// whether this viewer retunes the sensor's analyzer, and who does otherwise
    public var control: (held: Bool, holder: String) { state.withLock { ($0.controlHeld, $0.controlHolder) } }

    /// the sensor analyzer's settings and calibration as it last described them
    public var settingsLine: String? { state.withLock { $0.settings } }

    /// the sensor analyzer's settings as `meter --json` fields, as last described (nil: none well-formed)
    public var settingsJSON: String? { state.withLock { $0.settingsJSON } }

    /// the dwell and revisit of the detector the sensor made the newest frame with
    public var dwellTiming: DwellTiming? { state.withLock { $0.dwell } }

    /// What the sensor said of the settings asked for, once.
    public func takeNotice() -> String? { state.withLock { $0.notice.take() } }

    public func start(band: FrequencyRange, binWidthHz: Double) throws {
        stop()
        let (requests, continuation) = AsyncStream.makeStream(of: Tscope_Remote_V1_ViewRequest.self,
                                                              bufferingPolicy: .bufferingNewest(4))
        var first = request(band: band, binWidthHz: binWidthHz)
        first.settings = sensor.settings
        continuation.yield(first)
        let finished = DispatchSemaphore(value: 0)
        let task = Task(executorPreference: RemoteExecutor.shared) { [self] in
            await Self.$onStreamTask.withValue(true) { await stream(requests) }
            finished.signal()
        }
        state.withLock { state in
            state.stopping = false
            state.requests = continuation
            state.task = task
            state.finished = finished
        }
    }

    public func retune(to band: FrequencyRange, binWidthHz: Double) throws {
        let continuation = state.withLock { $0.requests }
        continuation?.yield(request(band: band, binWidthHz: binWidthHz))
    }

    public func stop() {
        let (continuation, task, finished) = state.withLock { state in
            state.stopping = true
            return (state.requests.take(), state.task.take(), state.finished.take())
        }
        continuation?.finish()
        task?.cancel()
        // from a frame callback (the stream's own task) the task ends by itself after returning
        if !Self.onStreamTask { _ = finished?.wait(timeout: .now() + 5) }
    }

    private func request(band: FrequencyRange, binWidthHz: Double) -> Tscope_Remote_V1_ViewRequest {
        var request = Tscope_Remote_V1_ViewRequest()
        request.lowHz = band.lowerHz
        request.highHz = band.upperHz
        request.binWidthHz = binWidthHz
        request.framesPerSecond = sensor.framesPerSecond
        request.control = true
        request.fullResolution = sensor.fullResolution
        request.detector = sensor.detector?.rawValue ?? ""
        return request
    }

    private func stream(_ requests: AsyncStream<Tscope_Remote_V1_ViewRequest>) async {
        let endpoint = sensor.endpoint
        let ending: (any Error)?
        do {
            let transport = try sensor.transport()
            let metadata = sensor.metadata
            try await withGRPCClient(transport: transport) { client in
                try await Tscope_Remote_V1_Sensor.Client(wrapping: client).watch(
                    metadata: metadata,
                    requestProducer: { writer in
                        for await request in requests { try await writer.write(request) }
                    },
                    onResponse: { [self] response in
                        for try await message in response.messages {
                            if let outage = handle(message) { throw RemoteError.sensorOutage(endpoint, outage) }
                        }
                    })
            }
            ending = RemoteError.lost(endpoint, "the sensor ended the stream")
        } catch {
            ending = sensor.classify(error, whileConnecting: false)
        }
        if let ending, !state.withLock({ $0.stopping }) { onEnd(ending) }
    }

    static func timing(_ message: Tscope_Remote_V1_DwellTiming) -> DwellTiming {
        let realtime = message.realtime
            ? RealtimeAnalysis(fftSize: Int(message.fftSize), overlap: message.overlap,
                               sampleRateHz: message.sampleRateHz, frameSeconds: message.frameSeconds)
            : nil
        return DwellTiming(dwellSeconds: message.dwellSeconds, revisitSeconds: message.revisitSeconds,
                           realtime: realtime)
    }

    /// Acts on one message; returns the text of a sensor outage.
    private func handle(_ message: Tscope_Remote_V1_SensorMessage) -> String? {
        switch message.message {
        case .frame(let frame):
            let spectrum = SpectrumFrame(startHz: frame.startHz, binWidthHz: frame.binWidthHz,
                                         timestamp: frame.timestamp, powerDB: frame.power,
                                         noiseBandwidthHz: frame.noiseBandwidthHz > 0 ? frame.noiseBandwidthHz : nil)
            let dwell = frame.hasDwell ? Self.timing(frame.dwell) : nil
            let stopping = state.withLock { state -> Bool in
                state.dwell = dwell
                state.counters.frames += 1
                state.counters.badBlocks = Int(clamping: frame.badBlocks)
                state.counters.droppedBlocks = Int(clamping: frame.droppedBlocks)
                return state.stopping
            }
            if !stopping { onFrame(spectrum) }
        case .sensor(let description):
            state.withLock { state in
                state.sweep = FrequencyRange(lowerHz: description.sweepLowHz, upperHz: description.sweepHighHz)
                state.tunable = FrequencyRange(lowerHz: description.tunableLowHz, upperHz: description.tunableHighHz)
                state.settings = description.settings
                state.settingsJSON = RemoteSensor.checkedJSONFields(description.settingsJson)
            }
        case .control(let control):
            state.withLock { state in
                state.controlHeld = control.held
                state.controlHolder = control.holder
            }
        case .outage(let text):
            return text
        case .notice(let text):
            state.withLock { $0.notice = text }
        case nil:
            break
        }
        return nil
    }
}
#endif
