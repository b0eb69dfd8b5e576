import Analyzers
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// A tinySA as a `SpectrumSource`: a thread of its own sends `scanraw` for
/// the current band with points = min(bins asked for, the model's limit),
/// waits for the reply the bulk stream parses, and hands each good sweep to
/// `onFrame`. A retune takes effect with the next sweep; a sweep is never
/// labelled with a band it was not measured for.
public final class TinySASpectrumSource: SpectrumSource, Sendable {
    public let driver: TinySADriver
    /// RBW and attenuation sent before the first sweep
    public let settings: TinySASettings
    private let onFrame: @Sendable (SpectrumFrame) -> Void
    private let onEnd: @Sendable (USBError?) -> Void

    /// the sweep the thread measures next
    private struct Request: Equatable {
        var startHz: UInt64
        var stopHz: UInt64
        var points: Int
        /// the input that receives the band
        var input: TinySAInput
    }

    private enum Outcome { case scan, corrupt }

    private struct State {
        var request: Request?
        var parser: TinySAScanParser
        /// set while a reply is awaited; the parser's events only count then
        var awaiting = false
        var outcome: Outcome?
    }

    private let state: Guarded<State>
    private let replied = DispatchSemaphore(value: 0)
    /// the sweep thread, joined by `stop`
    private let sweepThread = Guarded<WorkerThread?>(nil)
    private let running = Atomic<Bool>(false)

    private let frames = Atomic<Int>(0)
    private let corrupt = Atomic<Int>(0)
    private let unanswered = Atomic<Int>(0)
    private let abandoned = Atomic<Int>(0)
    private let commands = Atomic<Int>(0)

    /// Opens the port and identifies the model (see `TinySADriver.open`).
    public init(transport: USBTransport, settings: TinySASettings = .init(),
                onFrame: @escaping @Sendable (SpectrumFrame) -> Void,
                onEnd: @escaping @Sendable (USBError?) -> Void = { _ in }) throws(USBError) {
        self.settings = settings
        driver = try TinySADriver(transport: transport)
        try driver.open()
        self.onFrame = onFrame
        self.onEnd = onEnd
        state = Guarded(State(parser: TinySAScanParser(maxPoints: driver.model.maxPoints, zeroLevelDB: driver.model.zeroLevelDB)))
    }

    public var model: TinySAModel { driver.model }

    public var tunableRange: FrequencyRange {
        FrequencyRange(lowerHz: model.tunableLowerHz, upperHz: model.tunableUpperHz)!
    }

    /// bad blocks: corrupt replies and replies that never came
    public var counters: SpectrumSourceCounters {
        SpectrumSourceCounters(frames: frames.load(ordering: .relaxed),
                               badBlocks: corrupt.load(ordering: .relaxed) + unanswered.load(ordering: .relaxed))
    }

    /// Per-command accounting: every scanraw sent ends as exactly one of
    /// a frame, a corrupt reply, no reply in time, or abandoned (the source
    /// stopped or the device went away while waiting).
    public var accounting: (commands: Int, frames: Int, corrupt: Int, unanswered: Int, abandoned: Int) {
        (commands.load(ordering: .relaxed), frames.load(ordering: .relaxed), corrupt.load(ordering: .relaxed),
         unanswered.load(ordering: .relaxed), abandoned.load(ordering: .relaxed))
    }

    /// How many points a sweep of `band` gets for bins about `binWidthHz` wide.
    public static func points(band: FrequencyRange, binWidthHz: Double, model: TinySAModel) -> Int {
        let wanted = binWidthHz > 0 ? (band.spanHz / binWidthHz).rounded(.up) : Double(model.maxPoints)
        return Int(min(max(wanted, 2), Double(model.maxPoints)))
    }

    public func start(band: FrequencyRange, binWidthHz: Double) throws(USBError) {
        try retune(to: band, binWidthHz: binWidthHz)
        if sweepThread.withLock({ $0 != nil }) {
            if running.load(ordering: .acquiring) { return }
            stop()
        }
        // a wake-up left over from the last stop
        while replied.wait(timeout: .now()) == .success {}
        running.store(true, ordering: .releasing)
        do {
            try driver.startStream(onData: { [self] bytes in ingest(bytes) },
                                   onEnd: { [self] error in if let error { end(error) } })
        } catch {
            running.store(false, ordering: .releasing)
            throw error
        }
        guard let thread = WorkerThread({ [self] in sweepLoop() }) else {
            running.store(false, ordering: .releasing)
            driver.stopStream()
            throw .io(operation: "tinySA sweep thread", detail: "no thread could be started")
        }
        sweepThread.withLock { $0 = thread }
    }

    /// Picks the input that receives `band` (`TinySAModel.input(for:)`; a
    /// band reaching over both of the basic's inputs is clipped to the one
    /// holding most of it) and sweeps it from the next command on.
    public func retune(to band: FrequencyRange, binWidthHz: Double) throws(USBError) {
        guard let (input, clipped) = model.input(for: band) else {
            throw .unsupported("\(model.displayName) tunes \(tunableRange), not \(band)")
        }
        let next = Request(startHz: UInt64(clipped.lowerHz.rounded()), stopHz: UInt64(clipped.upperHz.rounded()),
                           points: Self.points(band: clipped, binWidthHz: binWidthHz, model: model), input: input)
        state.withLock { $0.request = next }
    }

    public func stop() {
        running.store(false, ordering: .releasing)
        guard let thread = sweepThread.withLock({ $0.take() }) else { return }
        replied.signal()
        thread.join()
        driver.stopStream()
    }

    /// Transport thread: parse, and wake the sweep thread at a reply's end.
    private func ingest(_ bytes: UnsafeRawBufferPointer) {
        // The transfer's bytes enter the lock as an address: they are read only
        // during this synchronous call, which the compiler cannot see of a pointer.
        let address = UInt(bitPattern: bytes.baseAddress), byteCount = bytes.count
        let wake = state.withLock { state -> Bool in
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: byteCount)
            var ended: Outcome?
            state.parser.feed(bytes) { event in
                switch event {
                case .scan: ended = .scan
                case .corrupt: ended = .corrupt
                case .needMore: break
                }
            }
            guard state.awaiting, ended != nil else { return false }
            state.outcome = ended
            state.awaiting = false
            return true
        }
        if wake { replied.signal() }
    }

    private func end(_ error: USBError) {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        replied.signal()
        onEnd(error)
    }

    /// The RBW each point is measured with [Hz]: the settings' fixed
    /// filter, or the firmware's automatic one for the step.
    public func rbwHz(stepHz: Double) -> Double {
        if case .fixed(let kHz)? = settings.rbw { return model.rbwFilterHz(requestedHz: kHz * 1000) }
        return model.autoRBWHz(stepHz: stepHz)
    }

    private func sweepLoop() {
        // the input the device is known to measure through; nil until set
        // (the first sweep always selects one: the unit may be anywhere)
        var deviceInput: TinySAInput?
        // RBW and attenuation go with the first sweep, and again until the shell has taken them
        var settingsTaken = settings.commands.isEmpty
        while running.load(ordering: .acquiring) {
            var setup: [String] = []
            let model = model
            let settingLines = settingsTaken ? [] : settings.commands
            guard let (current, commandsFirst) = state.withLock({ state -> (Request, [String])? in
                guard let request = state.request else { return nil }
                let setup = settingLines + (request.input != deviceInput ? model.commands(selecting: request.input) : [])
                state.parser.expect(points: request.points, after: setup)
                state.awaiting = true
                state.outcome = nil
                return (request, setup)
            }) else { return }
            setup = commandsFirst
            commands.add(1, ordering: .relaxed)
            do {
                // one write: the shell takes the lines in turn
                try driver.send(setup.flatMap(TinySAProtocol.command)
                    + TinySAProtocol.scanCommand(startHz: current.startHz, stopHz: current.stopHz,
                                                 points: current.points))
            } catch {
                abandoned.add(1, ordering: .relaxed)
                end(error)
                return
            }
            // a real sweep takes up to a few seconds at narrow RBW; the
            // reconnect supervisor decides when silence means a dead device
            _ = replied.wait(timeout: .now() + .milliseconds(2_000 + 10 * current.points))
            let (result, setupAnswered, measured) = state.withLock { state -> (Outcome?, Bool, [Float]?) in
                let result = state.outcome
                state.awaiting = false
                state.outcome = nil
                return (result, state.parser.preambleAnswered,
                        result == .scan ? Array(state.parser.values.prefix(current.points)) : nil)
            }
            // a setup the shell took holds even when the sweep after it was spoilt
            if !setup.isEmpty {
                deviceInput = setupAnswered && setup.count > settingLines.count ? current.input
                    : (setupAnswered ? deviceInput : nil)
                if setupAnswered { settingsTaken = true }
            }
            switch result {
            case .scan:
                let step = Double(current.stopHz - current.startHz) / Double(current.points)
                frames.add(1, ordering: .relaxed)
                // the firmware measured each point through its auto RBW filter, or the one --rbw chose
                let noiseBandwidth = ResolutionFilter.noiseBandwidth(rbwHz: rbwHz(stepHz: step))
                onFrame(SpectrumFrame(startHz: Double(current.startHz) - step / 2, binWidthHz: step,
                                      timestamp: unixTimeNow(), powerDB: measured ?? [],
                                      noiseBandwidthHz: noiseBandwidth))
            case .corrupt:
                corrupt.add(1, ordering: .relaxed)
            case nil:
                if running.load(ordering: .acquiring) {
                    unanswered.add(1, ordering: .relaxed)
                } else {
                    abandoned.add(1, ordering: .relaxed)
                }
            }
        }
    }
}
