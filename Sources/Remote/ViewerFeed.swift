#if SensorLink
import DSP
import Foundation
import Signals
import ThreadKit

/// What one viewer asked to see.
struct ViewerSubscription: Sendable, Equatable {
    /// nil: whatever the analyzer sweeps
    var band: FrequencyRange?
    /// the coarsest bin the viewer needs [Hz]; 0: the analyzer's own bins
    var binWidthHz: Double
    /// at most this many frames a second; 0: every frame
    var framesPerSecond: Double
    /// the detector its levels are made with; nil: the sensor's own
    var detector: SpectrumDetector?

    init(band: FrequencyRange? = nil, binWidthHz: Double = 0, framesPerSecond: Double = 0,
         detector: SpectrumDetector? = nil) {
        self.band = band
        self.binWidthHz = binWidthHz
        self.framesPerSecond = framesPerSecond
        self.detector = detector
    }

    init(_ request: Tscope_Remote_V1_ViewRequest) {
        band = FrequencyRange(lowerHz: request.lowHz, upperHz: request.highHz)
        binWidthHz = request.fullResolution || !request.binWidthHz.isFinite ? 0 : max(0, request.binWidthHz)
        framesPerSecond = request.framesPerSecond.isFinite ? max(0, request.framesPerSecond) : 0
        detector = SpectrumDetector(rawValue: request.detector)
    }
}

/// What the sensor's analyzer makes its frames with, for cutting each viewer's share.
struct SensorDetection: Sendable {
    /// the detector of every frame's `powerDB`
    var detector: SpectrumDetector
    /// the sensor turns samples into levels (a detector choice means something; `AnalyzerKind.detectsFromSamples`)
    var fromSamples: Bool
    /// each detector's dwell and revisit in the running plan (none where the device detects); a
    /// dictionary, not a closure: no allocation per frame
    var timing: [SpectrumDetector: DwellTiming]
}

/// One viewer's outbox on the sensor. The analyzer's thread `offer`s every
/// frame: its levels by the viewer's detector (where the analyzer kept every
/// detector; else the sensor's own) are cut to the viewer's band and
/// decimated to its bin width at once, then merged into the frame still
/// waiting by that detector — peak by maximum, average and rms by the
/// linear mean, sample by the newest — so a viewer whose link (or rate) is
/// slower than the analyzer gets fewer frames, each the newest and standing
/// for all it replaced, never a partial or a stale one. The viewer's writer task takes
/// messages with `next()`; description and control changes go first.
final class ViewerFeed: Sendable {
    let id: Int
    /// the viewer's address, for the control holder's name
    let peer: String

    private struct State {
        var subscription = ViewerSubscription()
        var decimator = ColumnDecimator(detector: .peak)
        /// the latest frame cut for this viewer (reused: a merged frame allocates nothing)
        var scratch: [Float] = []
        var frame: Tscope_Remote_V1_Frame?
        var sensor: Tscope_Remote_V1_SensorDescription?
        var control: Tscope_Remote_V1_ControlState?
        var outage: String?
        /// what became of this viewer's settings request
        var notice: String?
        /// the viewer was told its detector is not served (once per subscription)
        var toldDetectorMissing = false
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
    }

    private let state = Guarded(State())

    /// whether its token lets it retune and change settings (not only watch)
    let mayControl: Bool

    init(id: Int, peer: String, mayControl: Bool = true) {
        self.id = id
        self.peer = peer
        self.mayControl = mayControl
    }

    var subscription: ViewerSubscription { state.withLock { $0.subscription } }

    /// A new subscription: the frame waiting (cut for the old one) is dropped.
    func subscribe(_ subscription: ViewerSubscription) {
        state.withLock {
            if $0.subscription.detector != subscription.detector { $0.toldDetectorMissing = false }
            $0.subscription = subscription
            $0.frame = nil
        }
    }

    /// Cuts and decimates `frame` for this viewer and merges it into the one waiting.
    func offer(_ frame: SpectrumFrame, identity: FrameIdentity, sequence: UInt64, detection: SensorDetection) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.closed else { return nil }
            // the viewer's detector where the analyzer kept it, else the sensor's own
            var levels = frame
            var detector = detection.detector
            if let wanted = state.subscription.detector, wanted != detector {
                if let plane = frame.levels(by: wanted) {
                    levels.powerDB = plane
                    detector = wanted
                } else if !state.toldDetectorMissing && !(wanted.isPowerMean && detector.isPowerMean)
                            && detection.fromSamples {
                    // (an analyzer that detects by itself, as the tinySA, ignores --detector locally too)
                    state.toldDetectorMissing = true
                    state.notice = "detector \(wanted.rawValue) not served: this sensor's analyzer makes "
                        + "\(detector.rawValue) levels only (its `serve --detector`); these frames are \(detector.rawValue)"
                }
            }
            state.decimator.detector = detector.columnDetector
            guard let cut = Self.cut(levels, for: state.subscription, decimator: state.decimator,
                                     into: &state.scratch) else { return nil }
            if var waiting = state.frame, waiting.startHz == cut.startHz, waiting.binWidthHz == cut.binWidthHz,
               waiting.power.count == state.scratch.count, waiting.detector == detector.rawValue {
                state.frame = nil  // one owner of the array while merging
                let mergedBefore = Float(waiting.merged)
                state.scratch.withUnsafeBufferPointer { new in
                    waiting.power.withUnsafeMutableBufferPointer { held in
                        Self.merge(new, into: held, heldFrames: mergedBefore, by: detector)
                    }
                }
                waiting.merged += 1
                waiting.sequence = sequence
                waiting.timestamp = frame.timestamp
                state.frame = waiting
            } else {
                var message = Tscope_Remote_V1_Frame()
                message.sequence = sequence
                message.merged = 1
                message.timestamp = frame.timestamp
                message.startHz = cut.startHz
                message.binWidthHz = cut.binWidthHz
                message.power = state.scratch
                message.detector = detector.rawValue
                state.frame = message
            }
            if let timing = detection.timing[detector] {
                state.frame?.dwell = Self.message(timing)
            } else {
                state.frame?.clearDwell()
            }
            state.frame?.noiseBandwidthHz = frame.noiseBandwidthHz ?? 0
            state.frame?.deviceName = identity.deviceName
            state.frame?.serial = identity.serial
            state.frame?.unit = identity.unit.rawValue
            state.frame?.badBlocks = identity.badBlocks
            state.frame?.droppedBlocks = identity.droppedBlocks
            return state.waiter.take()
        }
        waiter?.resume()
    }

    func send(sensor: Tscope_Remote_V1_SensorDescription) {
        post { $0.sensor = sensor }
    }

    func send(control: Tscope_Remote_V1_ControlState) {
        post { $0.control = control }
    }

    func send(outage: String) {
        post { $0.outage = outage }
    }

    func send(notice: String) {
        post { $0.notice = notice }
    }

    /// Ends `next()`: the viewer is leaving or the sensor stopping.
    func close() {
        post { $0.closed = true }
    }

    private func post(_ change: (inout State) -> Void) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            change(&state)
            return state.waiter.take()
        }
        waiter?.resume()
    }

    /// The next message for the viewer, waiting for one; nil once closed
    /// (or the waiting task was cancelled).
    func next() async -> Tscope_Remote_V1_SensorMessage? {
        while true {
            let ready = state.withLock { state -> Tscope_Remote_V1_SensorMessage.OneOf_Message?? in
                if state.closed { return .some(nil) }
                if let sensor = state.sensor.take() { return .sensor(sensor) }
                if let control = state.control.take() { return .control(control) }
                if let outage = state.outage.take() { return .outage(outage) }
                if let notice = state.notice.take() { return .notice(notice) }
                if let frame = state.frame.take() { return .frame(frame) }
                return nil
            }
            switch ready {
            case .some(.some(let message)):
                var envelope = Tscope_Remote_V1_SensorMessage()
                envelope.message = message
                return envelope
            case .some(.none):
                return nil
            case .none:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let resumeNow = state.withLock { state -> Bool in
                            if state.closed || state.frame != nil || state.sensor != nil || state.control != nil
                                || state.outage != nil || state.notice != nil {
                                return true
                            }
                            state.waiter = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    close()
                }
            }
        }
    }

    /// Merges a new frame's levels into those held for `heldFrames` frames
    /// [dB, in place], as the detector combines a longer dwell: peak keeps
    /// the larger, average and rms the linear mean of power over all the
    /// frames, the CISPR average the linear mean of voltage (10^(dB/20)),
    /// sample the newest. A NaN bin takes the other's level.
    static func merge(_ new: UnsafeBufferPointer<Float>, into held: UnsafeMutableBufferPointer<Float>,
                      heldFrames: Float, by detector: SpectrumDetector) {
        switch detector {
        case .peak:
            for index in held.indices where held[index].isNaN || new[index] > held[index] {
                held[index] = new[index]
            }
        case .average, .rms:
            mergeMeans(new, into: held, heldFrames: heldFrames, decibelsPerDecade: 10)
        case .cisprAverage:
            mergeMeans(new, into: held, heldFrames: heldFrames, decibelsPerDecade: 20)
        case .sample:
            for index in held.indices where !new[index].isNaN { held[index] = new[index] }
        }
    }

    /// The running linear mean of the held frames and the new one, per bin: of power
    /// (`decibelsPerDecade` 10) or of voltage (20). A NaN bin takes the other's level.
    private static func mergeMeans(_ new: UnsafeBufferPointer<Float>, into held: UnsafeMutableBufferPointer<Float>,
                                   heldFrames: Float, decibelsPerDecade: Float) {
        let weight = max(1, heldFrames)
        for index in held.indices {
            let old = held[index], incoming = new[index]
            if old.isNaN {
                held[index] = incoming
            } else if !incoming.isNaN {
                let mean = (weight * powf(10, old / decibelsPerDecade) + powf(10, incoming / decibelsPerDecade))
                    / (weight + 1)
                held[index] = decibelsPerDecade * log10f(mean)
            }
        }
    }

    static func message(_ timing: DwellTiming) -> Tscope_Remote_V1_DwellTiming {
        var message = Tscope_Remote_V1_DwellTiming()
        message.dwellSeconds = timing.dwellSeconds
        message.revisitSeconds = timing.revisitSeconds
        if let realtime = timing.realtime {
            message.realtime = true
            message.fftSize = UInt32(clamping: realtime.fftSize)
            message.overlap = realtime.overlap
            message.sampleRateHz = realtime.sampleRateHz
            message.frameSeconds = realtime.frameSeconds
        }
        return message
    }

    /// Writes into `power` the part of `frame` the subscription covers, at
    /// its resolution: the analyzer's bins copied where the viewer wants them
    /// as fine or finer, else peak-decimated (`ColumnDecimator`) to whole
    /// columns no narrower than asked; returns their geometry. A band that
    /// misses the frame gets the whole frame.
    static func cut(_ frame: SpectrumFrame, for subscription: ViewerSubscription, decimator: ColumnDecimator,
                    into power: inout [Float]) -> (startHz: Double, binWidthHz: Double)? {
        let count = frame.powerDB.count
        guard count > 0, frame.binWidthHz > 0, frame.binWidthHz.isFinite else { return nil }
        var first = 0
        var end = count
        if let band = subscription.band {
            let lower = Int(((band.lowerHz - frame.startHz) / frame.binWidthHz).rounded(.down))
            let upper = Int(((band.upperHz - frame.startHz) / frame.binWidthHz).rounded(.up))
            let clampedFirst = min(max(lower, 0), count)
            let clampedEnd = min(max(upper, 0), count)
            if clampedFirst < clampedEnd {
                first = clampedFirst
                end = clampedEnd
            }
        }
        let bins = end - first
        let startHz = frame.startHz + Double(first) * frame.binWidthHz
        let spanHz = Double(bins) * frame.binWidthHz
        let columns = subscription.binWidthHz > frame.binWidthHz
            ? max(1, Int((spanHz / subscription.binWidthHz).rounded(.down))) : bins
        power.removeAll(keepingCapacity: true)
        if columns >= bins {
            power.append(contentsOf: frame.powerDB[first..<end])
            return (startHz, frame.binWidthHz)
        }
        guard let visible = FrequencyRange(lowerHz: startHz, upperHz: startHz + spanHz) else { return nil }
        power.append(contentsOf: repeatElement(Float.nan, count: columns))
        power.withUnsafeMutableBufferPointer { out in
            frame.powerDB.withUnsafeBufferPointer { all in
                decimator.process(startHz: frame.startHz, binWidthHz: frame.binWidthHz, bins: all,
                                  visible: visible, into: out)
            }
        }
        return (startHz, spanHz / Double(columns))
    }
}

/// What every frame says about the analyzer it came from.
struct FrameIdentity: Sendable {
    var deviceName: String
    var serial: String
    var unit: PowerUnit
    var badBlocks: UInt64
    var droppedBlocks: UInt64
}
#endif
