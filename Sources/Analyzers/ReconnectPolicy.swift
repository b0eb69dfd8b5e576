import Signals

/// When a supervised analyzer counts as lost and how reconnecting proceeds.
public struct ReconnectPolicy: Sendable, Equatable {
    /// no frame for this long means the device stalled [s]
    public var stallSeconds: Double
    /// wait before the first retry [s]; doubles per failed attempt
    public var initialBackoffSeconds: Double
    /// longest wait between attempts [s]
    public var maxBackoffSeconds: Double
    /// give up when the device has been gone this long [s]; nil = never (the viewer)
    public var giveUpAfterSeconds: Double?

    public init(stallSeconds: Double = 1, initialBackoffSeconds: Double = 0.1, maxBackoffSeconds: Double = 2,
                giveUpAfterSeconds: Double? = nil) {
        self.stallSeconds = stallSeconds
        self.initialBackoffSeconds = initialBackoffSeconds
        self.maxBackoffSeconds = maxBackoffSeconds
        self.giveUpAfterSeconds = giveUpAfterSeconds
    }

    /// Wait before attempt `attempt` (1 = the first retry) [s].
    public func backoff(attempt: Int) -> Double {
        var wait = initialBackoffSeconds
        for _ in 1..<max(1, attempt) {
            wait *= 2
            if wait >= maxBackoffSeconds { break }
        }
        return min(wait, maxBackoffSeconds)
    }
}

/// What a supervised analyzer is doing, for the status line.
public enum ReconnectState: Sendable, Equatable {
    case stopped
    case running
    /// lost; `attempt` retries made so far; `reason` says why it was lost
    case reconnecting(attempt: Int, reason: String)
    /// gave up (headless `--reconnect-timeout` passed)
    case failed(String)

    /// the status-line text, nil while all is well
    public var statusMessage: String? {
        switch self {
        case .stopped, .running: return nil
        case .reconnecting(let attempt, let reason):
            return attempt == 0 ? "reconnecting… (\(reason))" : "reconnecting… (\(reason); attempt \(attempt + 1))"
        case .failed(let message): return message
        }
    }
}

/// A stretch of time without frames: from the last frame before the device
/// was lost to the first one after it came back. A recorder marks it.
public struct ReconnectGap: Sendable, Equatable {
    /// timestamp of the last frame before the loss [s since the Unix epoch]
    public var fromTimestamp: Double
    /// timestamp of the first frame after reconnecting [s since the Unix epoch]
    public var toTimestamp: Double
    /// why the device was lost ("no data for 1 s", "HackRF One disconnected")
    public var reason: String

    public init(fromTimestamp: Double, toTimestamp: Double, reason: String) {
        self.fromTimestamp = fromTimestamp
        self.toTimestamp = toTimestamp
        self.reason = reason
    }

    public var seconds: Double { toTimestamp - fromTimestamp }
}

/// A live analyzer a factory opened, and how to release its device.
public struct ConnectedSpectrumSource: Sendable {
    public var source: any SpectrumSource
    /// closes the transport after `source.stop()`
    public var close: @Sendable () -> Void

    public init(source: any SpectrumSource, close: @escaping @Sendable () -> Void) {
        self.source = source
        self.close = close
    }
}

/// Opens the device afresh and builds its `SpectrumSource`, delivering
/// frames to `onFrame` and a fatal stream error to `onEnd`.
public typealias SpectrumSourceFactory = @Sendable (
    _ onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
    _ onEnd: @escaping @Sendable (any Error) -> Void
) throws -> ConnectedSpectrumSource
