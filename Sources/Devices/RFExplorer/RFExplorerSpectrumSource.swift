import Foundation
import Signals
import Synchronization
import USBDriver

/// An RF Explorer as a `SpectrumSource`. The analyzer streams sweeps on its
/// own; the bulk stream's thread parses them and hands each good one to
/// `onFrame`, labelled with the configuration in force when it arrived
/// (a retune sends `C2-F`, and the analyzer confirms with a new
/// configuration line before sweeping the new band). The analyzer keeps its
/// own number of points; the view reduces them to columns.
public final class RFExplorerSpectrumSource: SpectrumSource, @unchecked Sendable {
    public let driver: RFExplorerDriver
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (USBError?) -> Void

    /// parser and configuration, touched on the transport thread
    private let lock = NSLock()
    private var parser = RFExplorerStreamParser()
    private var configuration: RFExplorerConfiguration
    private var streaming = false
    /// the last `C2-F` sent, sent again when the unit restarts (guarded by `lock`)
    private var rangeCommand: [UInt8]?
    /// times the unit announced a restart and was set up again
    private let restarts = Atomic<Int>(0)

    private let frames = Atomic<Int>(0)
    private let corrupt = Atomic<Int>(0)
    /// sweeps whose length did not match the configuration's points
    private let mismatched = Atomic<Int>(0)

    /// Configures the bridge and reads the analyzer's configuration.
    public init(transport: USBTransport, onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                onEnd: @escaping @Sendable (USBError?) -> Void = { _ in }) throws(USBError) {
        driver = try RFExplorerDriver(transport: transport)
        try driver.open()
        guard let configuration = driver.configuration else {
            throw .unsupported("RF Explorer sent no configuration")
        }
        self.configuration = configuration
        self.onFrame = onFrame
        self.onEnd = onEnd
    }

    public var tunableRange: FrequencyRange {
        let configuration = lock.withLock { self.configuration }
        return FrequencyRange(lowerHz: configuration.minHz, upperHz: configuration.maxHz)
            ?? FrequencyRange(lowerHz: 15e6, upperHz: 2_700e6)!
    }

    public var currentConfiguration: RFExplorerConfiguration { lock.withLock { configuration } }

    public var counters: SpectrumSourceCounters {
        SpectrumSourceCounters(frames: frames.load(ordering: .relaxed),
                               badBlocks: corrupt.load(ordering: .relaxed) + mismatched.load(ordering: .relaxed))
    }

    public func start(band: FrequencyRange, binWidthHz: Double) throws(USBError) {
        try retune(to: band, binWidthHz: binWidthHz)
        guard !lock.withLock({ streaming }) else { return }
        try driver.startStream(onData: { [self] bytes in ingest(bytes) },
                               onEnd: { [self] error in if let error { onEnd(error) } })
        lock.withLock { streaming = true }
    }

    /// Sends `C2-F` for `band` clipped to the analyzer's limits and span;
    /// the bin width is what the analyzer's points give.
    public func retune(to band: FrequencyRange, binWidthHz: Double) throws(USBError) {
        let configuration = lock.withLock { self.configuration }
        var lower = max(band.lowerHz, configuration.minHz)
        let upper = min(band.upperHz, configuration.maxHz)
        guard lower < upper else {
            throw .unsupported("RF Explorer tunes \(tunableRange), not \(band)")
        }
        if upper - lower > configuration.maxSpanHz { lower = upper - configuration.maxSpanHz }
        let command = RFExplorerProtocol.setRange(startKHz: Int((lower / 1e3).rounded(.down)),
                                                  endKHz: Int((upper / 1e3).rounded(.up)),
                                                  topDBm: configuration.topDBm, bottomDBm: configuration.bottomDBm)
        lock.withLock { rangeCommand = command }
        try driver.send(command)
    }

    /// restarts of the unit seen while streaming
    public var restartCount: Int { restarts.load(ordering: .relaxed) }

    public func stop() {
        guard lock.withLock({ streaming }) else { return }
        try? driver.send(RFExplorerProtocol.hold)
        driver.stopStream()
        lock.withLock { streaming = false }
    }

    /// Transport thread: parse; configuration lines relabel what follows.
    private func ingest(_ bytes: UnsafeRawBufferPointer) {
        lock.lock()
        var ready: [SpectrumFrame] = []
        var restarted = false
        parser.feed(bytes) { event, sweep in
            switch event {
            case .line(let line):
                if let found = RFExplorerConfiguration(line: line) { configuration = found }
                if line.hasPrefix(RFExplorerProtocol.resetPrefix) { restarted = true }
            case .corruptSweep:
                corrupt.add(1, ordering: .relaxed)
            case .sweep(let count):
                guard count == configuration.points else {
                    mismatched.add(1, ordering: .relaxed)
                    return
                }
                // the RBW the configuration reports; without it, one step
                let noiseBandwidth = configuration.rbwHz.map(ResolutionFilter.noiseBandwidth(rbwHz:))
                ready.append(SpectrumFrame(startHz: configuration.startHz - configuration.stepHz / 2,
                                           binWidthHz: configuration.stepHz, timestamp: unixTimeNow(),
                                           powerDB: Array(sweep), noiseBandwidthHz: noiseBandwidth))
            }
        }
        let resend = restarted ? rangeCommand : nil
        lock.unlock()
        if restarted {
            // the unit forgot its band and stopped streaming: ask again, off
            // the transport's thread (a synchronous write must not wait on it)
            restarts.add(1, ordering: .relaxed)
            let driver = driver
            DispatchQueue.global().async {
                try? driver.send(RFExplorerProtocol.requestConfig + (resend ?? []))
            }
        }
        for frame in ready {
            frames.add(1, ordering: .relaxed)
            onFrame(frame)
        }
    }
}
