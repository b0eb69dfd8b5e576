import DSP
import Devices
import Foundation
import Signals
import ThreadKit

/// `watch`'s zero-span view on the analyzer (a HackRF, an RTL-SDR, a
/// SoapySDR device, a tinySA's own): the same radio, filter,
/// detector and trace assembly as `tscope zerospan` (`ZeroSpanRadio`,
/// `ZeroSpanPipeline`), started when the view asks for zero span and stopped
/// when it leaves, each trace posted to a `ZeroSpanMailbox` the UI takes
/// from. The spectrum source is stopped meanwhile (the radio streams one
/// tuning), and restarted by the viewer's next retune.
///
/// An RBW wider than the radio takes is narrowed to its widest, and a sweep
/// too short for the trace's points lengthened to the shortest (the trace's
/// info says what was measured with); what cannot be done at all (an
/// analyzer with no I/Q, a remote sensor) is one line thrown by `start`.
public final class LiveZeroSpan: Sendable {
    public let mailbox = ZeroSpanMailbox()
    private let selection: DeviceSelection
    private let analyzer: SelectedAnalyzer
    private enum Running {
        case radio(ZeroSpanRadio, ZeroSpanPipeline)
        case tinySA(TinySAZeroSpanSession)
    }
    private let running = Guarded<Running?>(nil)

    public init(selection: DeviceSelection, analyzer: SelectedAnalyzer) {
        self.selection = selection
        self.analyzer = analyzer
    }

    /// Starts (or restarts) zero span with `settings`.
    public func start(_ settings: ZeroSpanSettings) throws {
        stop()
        if selection.isRemote {
            throw CommandError("zero span drives the analyzer itself: not over --remote (run `tscope zerospan` on the sensor's host)")
        }
        if analyzer.kind.id == AnalyzerKind.tinysa.id {
            try startTinySA(settings)
            return
        }
        let (radio, plan) = try ZeroSpanRun.openRadio(analyzer: analyzer, selection: selection,
                                                      frequencyHz: settings.frequencyHz, rbwHz: settings.rbwHz,
                                                      sweepSeconds: settings.sweepSeconds, fitting: true)
        let (unit, offsetDB) = ZeroSpanRun.levelScale(analyzer: analyzer, selection: selection, plan: plan)
        let mailbox = self.mailbox
        let trigger = settings.trigger
        let pipeline = ZeroSpanPipeline(plan: plan, format: radio.format, offsetDB: offsetDB, trigger: trigger,
                                        preTriggerPercent: settings.preTriggerPercent,
                                        count: nil) { levels, number, _, preTriggerPoints, dropped in
            mailbox.post(levels, info: ZeroSpanTraceInfo(
                frequencyHz: plan.frequencyHz, rbwHz: plan.rbwHz, pointSeconds: plan.pointSeconds,
                sampleSeconds: 1 / plan.sampleRateHz, trigger: trigger, preTriggerPoints: preTriggerPoints,
                unit: unit, number: number, droppedSamples: dropped, source: "RBW filter on I/Q"))
        }
        do {
            try pipeline.start(radio: radio)
        } catch {
            radio.close()
            throw error
        }
        mailbox.clear()
        running.withLock { $0 = .radio(radio, pipeline) }
    }

    /// The tinySA's own zero span: the unit triggers itself (no points before the trigger).
    private func startTinySA(_ settings: ZeroSpanSettings) throws {
        let session = try TinySAZeroSpanSession(analyzer: analyzer, selection: selection, settings: settings, fitting: true)
        let mailbox = self.mailbox
        let plan = session.plan
        let trigger = settings.trigger
        do {
            try session.start(count: nil, triggerWaitSeconds: 1, onTrace: { levels, number in
                mailbox.post(levels, info: ZeroSpanTraceInfo(
                    frequencyHz: plan.frequencyHz, rbwHz: plan.rbwHz, pointSeconds: plan.pointSeconds,
                    sampleSeconds: plan.pointSeconds, trigger: trigger, preTriggerPoints: 0, unit: .dBm,
                    number: number, droppedSamples: 0, source: "the tinySA's own zero span"))
            }, onDone: { _ in })
        } catch {
            session.stop()
            throw error
        }
        mailbox.clear()
        running.withLock { $0 = .tinySA(session) }
    }

    /// a failure of the running stream (unplugged), for the status line
    public var failure: String? {
        running.withLock { state -> String? in
            switch state {
            case .radio(_, let pipeline)?: return pipeline.failure
            case .tinySA(let session)?: return session.failure
            case nil: return nil
            }
        }
    }

    /// Stops the stream and gives the analyzer back. Safe to call when stopped.
    public func stop() {
        switch running.withLock({ $0.take() }) {
        case .radio(let radio, let pipeline)?:
            pipeline.stop(radio: radio)
            radio.close()
        case .tinySA(let session)?: session.stop()
        case nil: break
        }
    }
}
