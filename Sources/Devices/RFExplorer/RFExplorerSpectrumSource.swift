import Analyzers
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// An RF Explorer as a `SpectrumSource`. The analyzer streams sweeps on its
/// own; the bulk stream's thread parses them and hands each good one to
/// `onFrame`, labelled with the configuration in force when it arrived
/// (a retune sends `C2-F`, and the analyzer confirms with a new
/// configuration line before sweeping the new band). The analyzer keeps its
/// own number of points; the view reduces them to columns.
public final class RFExplorerSpectrumSource: SpectrumSource, Sendable {
    public let driver: RFExplorerDriver
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (USBError?) -> Void

    /// parser and configuration, touched on the transport thread
    private struct State {
        var parser = RFExplorerStreamParser()
        var configuration: RFExplorerConfiguration
        var streaming = false
        /// the last `C2-F` sent, sent again when the unit restarts
        var rangeCommand: [UInt8]?
    }

    private let state: Guarded<State>
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
        state = Guarded(State(configuration: configuration))
        self.onFrame = onFrame
        self.onEnd = onEnd
    }

    public var tunableRange: FrequencyRange {
        let configuration = currentConfiguration
        return FrequencyRange(lowerHz: configuration.minHz, upperHz: configuration.maxHz)
            ?? FrequencyRange(lowerHz: 15e6, upperHz: 2_700e6)!
    }

    public var currentConfiguration: RFExplorerConfiguration { state.withLock { $0.configuration } }

    public var counters: SpectrumSourceCounters {
        SpectrumSourceCounters(frames: frames.load(ordering: .relaxed),
                               badBlocks: corrupt.load(ordering: .relaxed) + mismatched.load(ordering: .relaxed))
    }

    public func start(band: FrequencyRange, binWidthHz: Double) throws(USBError) {
        try retune(to: band, binWidthHz: binWidthHz)
        guard !state.withLock({ $0.streaming }) else { return }
        try driver.startStream(onData: { [self] bytes in ingest(bytes) },
                               onEnd: { [self] error in if let error { onEnd(error) } })
        state.withLock { $0.streaming = true }
    }

    /// Sends `C2-F` for `band` clipped to the analyzer's limits and span;
    /// the bin width is what the analyzer's points give.
    public func retune(to band: FrequencyRange, binWidthHz: Double) throws(USBError) {
        let configuration = currentConfiguration
        var lower = max(band.lowerHz, configuration.minHz)
        let upper = min(band.upperHz, configuration.maxHz)
        guard lower < upper else {
            throw .unsupported("RF Explorer tunes \(tunableRange), not \(band)")
        }
        if upper - lower > configuration.maxSpanHz { lower = upper - configuration.maxSpanHz }
        let command = RFExplorerProtocol.setRange(startKHz: Int((lower / 1e3).rounded(.down)),
                                                  endKHz: Int((upper / 1e3).rounded(.up)),
                                                  topDBm: configuration.topDBm, bottomDBm: configuration.bottomDBm)
        state.withLock { $0.rangeCommand = command }
        try driver.send(command)
    }

    /// restarts of the unit seen while streaming
    public var restartCount: Int { restarts.load(ordering: .relaxed) }

    public func stop() {
        guard state.withLock({ $0.streaming }) else { return }
        try? driver.send(RFExplorerProtocol.hold)
        driver.stopStream()
        state.withLock { $0.streaming = false }
    }

    /// Transport thread: parse; configuration lines relabel what follows.
    private func ingest(_ bytes: UnsafeRawBufferPointer) {
        // The transfer's bytes enter the lock as an address: they are read only
        // during this synchronous call, which the compiler cannot see of a pointer.
        let address = UInt(bitPattern: bytes.baseAddress), byteCount = bytes.count
        let (ready, resend) = state.withLock { state -> ([SpectrumFrame], [UInt8]??) in
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: byteCount)
            var ready: [SpectrumFrame] = []
            var restarted = false
            var configuration = state.configuration
            state.parser.feed(bytes) { event, sweep in
                switch event {
                case .line(let line):
                    if let found = RFExplorerConfiguration(line: line) { configuration = found }
                    if line.hasPrefix(RFExplorerProtocol.resetPrefix) { restarted = true }
                case .corruptSweep:
                    self.corrupt.add(1, ordering: .relaxed)
                case .sweep(let count):
                    guard count == configuration.points else {
                        self.mismatched.add(1, ordering: .relaxed)
                        return
                    }
                    // the RBW the configuration reports; without it, one step
                    let noiseBandwidth = configuration.rbwHz.map(ResolutionFilter.noiseBandwidth(rbwHz:))
                    ready.append(SpectrumFrame(startHz: configuration.startHz - configuration.stepHz / 2,
                                               binWidthHz: configuration.stepHz, timestamp: unixTimeNow(),
                                               powerDB: Array(sweep), noiseBandwidthHz: noiseBandwidth))
                }
            }
            state.configuration = configuration
            // a restart resends the last range (Optional(nil) when none was sent yet)
            return (ready, restarted ? .some(state.rangeCommand) : nil)
        }
        if let resend {
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
