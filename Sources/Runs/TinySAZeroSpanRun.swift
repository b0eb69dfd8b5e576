import DSP
import Devices
import Foundation
import Signals
import Synchronization
import ThreadKit
import USBDriver

/// Zero span on a tinySA: the unit's own (`TinySAZeroSpan`: `rbw`,
/// `sweeptime`, `trigger`, then `scanraw F F N` per trace), read on a
/// thread of its own, each trace handed on with its number. The unit
/// triggers itself, so a trace starts at its trigger (no points before it:
/// `--pre-trigger` does not apply) and its levels are the unit's dBm.
final class TinySAZeroSpanSession: Sendable {
    /// each trace: levels [dBm], number (1 the first); on the session's thread
    typealias TraceHandler = @Sendable (UnsafeBufferPointer<Float>, Int) -> Void

    let plan: ZeroSpanPlan
    let triggerLevelDBm: Double?
    private let transport: USBTransport
    private let zeroSpan: TinySAZeroSpan
    private let stopping = Atomic<Bool>(false)
    private let worker = Guarded<WorkerThread?>(nil)
    private let failed = Guarded<String?>(nil)

    /// Opens the unit and sets it up for `settings`; throws one line a user acts on.
    /// - Parameter fitting: bring the RBW and sweep time into the unit's ranges (the view's steps) rather than refuse
    init(analyzer: SelectedAnalyzer, selection: DeviceSelection, settings: ZeroSpanSettings, fitting: Bool = false) throws {
        let transport = try selection.transport(for: analyzer)
        do {
            let driver = try TinySADriver(transport: transport)
            try driver.open()
            var rbw = settings.rbwHz, sweep = settings.sweepSeconds
            if fitting {
                let range = TinySAZeroSpan.rbwRangeKHz(driver.model)
                rbw = min(max(rbw, range.lowerBound * 1000), range.upperBound * 1000)
                sweep = min(max(sweep, TinySAZeroSpan.shortestSweepSeconds), TinySAZeroSpan.longestSweepSeconds)
            }
            let zeroSpan = try TinySAZeroSpan(driver: driver, frequencyHz: settings.frequencyHz, rbwHz: rbw,
                                              sweepSeconds: sweep,
                                              triggerLevelDBm: settings.trigger?.levelDB,
                                              triggerFalling: settings.trigger?.slope == .falling)
            try zeroSpan.configure()
            plan = ZeroSpanPlan(frequencyHz: settings.frequencyHz, rbwHz: zeroSpan.rbwHz, points: zeroSpan.points,
                                pointSeconds: zeroSpan.pointSeconds)
            triggerLevelDBm = settings.trigger?.levelDB
            self.zeroSpan = zeroSpan
        } catch {
            transport.close()
            throw CommandError("\(error)")
        }
        self.transport = transport
    }

    /// why the session stopped by itself, nil while it runs
    var failure: String? { failed.withLock { $0 } }

    /// Starts measuring: traces to `onTrace` until `stop` (or `count` traces; then `onDone`).
    /// `triggerWaitSeconds`: how long one trace waits for its trigger before asking again.
    func start(count: Int?, triggerWaitSeconds: Double, onTrace: @escaping TraceHandler,
               onDone: @escaping @Sendable (String?) -> Void) throws {
        guard let thread = WorkerThread({ [self] in
            loop(count: count, triggerWaitSeconds: triggerWaitSeconds, onTrace: onTrace, onDone: onDone)
        }) else {
            throw CommandError("zerospan: no thread could be started for the tinySA")
        }
        worker.withLock { $0 = thread }
    }

    private func loop(count: Int?, triggerWaitSeconds: Double, onTrace: TraceHandler, onDone: (String?) -> Void) {
        var levels: [Float] = []
        var number = 0
        while !stopping.load(ordering: .relaxed) {
            do {
                try zeroSpan.measure(into: &levels, triggerWaitSeconds: triggerWaitSeconds)
            } catch {
                // a trigger that did not come within the wait: ask again (the view waits on)
                if Self.isTimeout(error), triggerLevelDBm != nil, count == nil { continue }
                let message = error.description
                failed.withLock { $0 = message }
                onDone(message)
                return
            }
            number += 1
            levels.withUnsafeBufferPointer { onTrace($0, number) }
            if let count, number >= count {
                onDone(nil)
                return
            }
        }
    }

    private static func isTimeout(_ failure: TinySAZeroSpan.Failure) -> Bool {
        guard case .usb(let error) = failure, case .timeout = error else { return false }
        return true
    }

    /// Stops after the trace being measured, and closes the unit. Safe twice.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        worker.withLock { $0.take() }?.join()
        transport.close()
    }
}

extension ZeroSpanRun {
    /// `tscope zerospan` on a tinySA: its own zero span, one line per trace.
    static func runTinySA(_ request: ZeroSpanRequest, analyzer: SelectedAnalyzer) throws {
        let settings = ZeroSpanSettings(frequencyHz: request.frequencyHz, rbwHz: request.rbwHz,
                                        sweepSeconds: request.sweepSeconds, trigger: request.trigger,
                                        preTriggerPercent: 0)
        let session = try TinySAZeroSpanSession(analyzer: analyzer, selection: request.selection, settings: settings)
        defer { session.stop() }
        let output = ZeroSpanOutput(request: request, plan: session.plan, unit: .dBm, device: analyzer.name)
        let points = session.plan.points
        let latch = CompletionLatch<String?>()
        try session.start(count: request.count, triggerWaitSeconds: 5, onTrace: { levels, number in
            // the trace's time counts the points the unit measured before it (its trigger waits are not counted)
            output.trace(Array(levels), number: number, firstSample: (number - 1) * points, preTriggerPoints: 0,
                         droppedSamples: 0)
        }, onDone: { failure in latch.complete(failure) })
        // Ctrl-C ends the run cleanly, as on the radios
        let end: String? = latch.wait(onSignal: .some(nil))
        if let message = end { throw CommandError(message) }
    }
}
