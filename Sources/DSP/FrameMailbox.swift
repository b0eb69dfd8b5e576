import Foundation
import Signals
import Synchronization
import ThreadKit

/// Hands spectrum frames from the DSP thread to the render loop without
/// either waiting on the other. Frames posted between two `take`s are
/// combined bin by bin with max (peak hold), so a burst seen in one frame is
/// never lost when frames arrive faster than the view draws them. A frame
/// with a different geometry (band or bin width) replaces what is pending.
///
/// It also averages, in linear power, the band power of every frame posted
/// (`measuredBand`), so a power meter reads all sweeps rather than the
/// peak-held drawn frames, which would read noise high.
///
/// The mailbox copies values into storage it owns and `take` copies them into
/// the caller's frame, so no array is ever shared between the threads: the
/// producer can reuse its buffers, and neither side allocates unless the
/// number of bins grows.
public final class FrameMailbox: Sendable {
    private struct State {
        var pending = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
        /// frames combined into `pending` since the last take
        var pendingCount = 0
        var bandAverage = BandPowerAverage()
        /// the plot's trace mode, applied to every frame posted (full sweep rate)
        var trace = TraceAccumulator(mode: .live)
    }

    private let state = Guarded(State())

    public init() {}

    /// What `takeTrace` gives: live (nothing), max/min hold or an average.
    /// Setting it starts the trace again.
    public var traceMode: TraceMode {
        get { state.withLock { $0.trace.mode } }
        set { state.withLock { $0.trace.setMode(newValue) } }
    }

    /// sweeps in the trace, and whether a retune restarted it
    public var traceState: (sweeps: Int, restartedByRetune: Bool) {
        state.withLock { ($0.trace.sweeps, $0.trace.restartedByRetune) }
    }

    /// Copies the trace (every frame posted since the mode was set, held or
    /// averaged per bin) into `frame`; false in live mode or before a frame.
    public func takeTrace(into frame: inout SpectrumFrame) -> Bool {
        state.withLock { state in
            guard state.trace.write(into: &frame) else { return false }
            frame.timestamp = state.pending.timestamp
            frame.noiseBandwidthHz = state.pending.noiseBandwidthHz
            frame.windowing = state.pending.windowing
            return true
        }
    }

    /// Called by the producer for every completed frame.
    public func post(_ frame: SpectrumFrame) {
        state.withLock { state in
            let sameGeometry = state.pendingCount > 0 && state.pending.startHz == frame.startHz
                && state.pending.binWidthHz == frame.binWidthHz && state.pending.powerDB.count == frame.powerDB.count
            state.pending.timestamp = frame.timestamp
            state.pending.noiseBandwidthHz = frame.noiseBandwidthHz
            state.pending.windowing = frame.windowing
            if sameGeometry {
                state.pending.powerDB.withUnsafeMutableBufferPointer { held in
                    frame.powerDB.withUnsafeBufferPointer { new in
                        for i in 0..<held.count where new[i] > held[i] || held[i].isNaN {
                            held[i] = new[i]
                        }
                    }
                }
            } else {
                state.pending.startHz = frame.startHz
                state.pending.binWidthHz = frame.binWidthHz
                Self.copy(frame.powerDB, into: &state.pending.powerDB)
            }
            state.pendingCount += 1
            state.bandAverage.add(frame)
            state.trace.add(frame)
        }
    }

    /// The band whose power `takeBandPower` averages [Hz]; nil = none.
    /// Changing it starts a new average.
    public var measuredBand: FrequencyRange? {
        get { state.withLock { $0.bandAverage.band } }
        set { state.withLock { $0.bandAverage.band = newValue } }
    }

    /// The mean power in `measuredBand` of every frame posted since the last
    /// call [dB] and how many frames; nil when none arrived.
    public func takeBandPower() -> (decibels: Double, frames: Int)? {
        state.withLock { $0.bandAverage.take() }
    }

    /// Called by the consumer: copies the peak-held frame since the last call
    /// into `frame` (reusing its storage) and returns how many frames it
    /// combines; 0 (and `frame` untouched) when nothing new arrived.
    public func take(into frame: inout SpectrumFrame) -> Int {
        state.withLock { state in
            guard state.pendingCount > 0 else { return 0 }
            frame.startHz = state.pending.startHz
            frame.binWidthHz = state.pending.binWidthHz
            frame.timestamp = state.pending.timestamp
            frame.noiseBandwidthHz = state.pending.noiseBandwidthHz
            frame.windowing = state.pending.windowing
            Self.copy(state.pending.powerDB, into: &frame.powerDB)
            let combined = state.pendingCount
            state.pendingCount = 0
            return combined
        }
    }

    /// Forgets what is pending (after a retune, old-band frames are stale).
    public func clear() {
        state.withLock { state in
            state.pendingCount = 0
            state.bandAverage.reset()
        }
    }

    /// Replaces `target`'s contents with `source`'s, keeping its capacity.
    private static func copy(_ source: [Float], into target: inout [Float]) {
        if target.count == source.count {
            target.withUnsafeMutableBufferPointer { out in
                source.withUnsafeBufferPointer { out.baseAddress!.update(from: $0.baseAddress!, count: $0.count) }
            }
        } else {
            target.removeAll(keepingCapacity: true)
            target.append(contentsOf: source)
        }
    }
}
