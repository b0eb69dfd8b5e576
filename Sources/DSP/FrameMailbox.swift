import Foundation
import Signals

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
public final class FrameMailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = SpectrumFrame(startHz: 0, binWidthHz: 0, timestamp: 0, powerDB: [])
    /// frames combined into `pending` since the last take
    private var pendingCount = 0
    private var bandAverage = BandPowerAverage()
    /// the plot's trace mode, applied to every frame posted (full sweep rate)
    private var trace = TraceAccumulator(mode: .live)

    public init() {}

    /// What `takeTrace` gives: live (nothing), max/min hold or an average.
    /// Setting it starts the trace again.
    public var traceMode: TraceMode {
        get { lock.withLock { trace.mode } }
        set { lock.withLock { trace.setMode(newValue) } }
    }

    /// sweeps in the trace, and whether a retune restarted it
    public var traceState: (sweeps: Int, restartedByRetune: Bool) {
        lock.withLock { (trace.sweeps, trace.restartedByRetune) }
    }

    /// Copies the trace (every frame posted since the mode was set, held or
    /// averaged per bin) into `frame`; false in live mode or before a frame.
    public func takeTrace(into frame: inout SpectrumFrame) -> Bool {
        lock.withLock {
            guard trace.write(into: &frame) else { return false }
            frame.timestamp = pending.timestamp
            frame.noiseBandwidthHz = pending.noiseBandwidthHz
            return true
        }
    }

    /// Called by the producer for every completed frame.
    public func post(_ frame: SpectrumFrame) {
        lock.lock()
        defer { lock.unlock() }
        let sameGeometry = pendingCount > 0 && pending.startHz == frame.startHz
            && pending.binWidthHz == frame.binWidthHz && pending.powerDB.count == frame.powerDB.count
        pending.timestamp = frame.timestamp
        pending.noiseBandwidthHz = frame.noiseBandwidthHz
        if sameGeometry {
            pending.powerDB.withUnsafeMutableBufferPointer { held in
                frame.powerDB.withUnsafeBufferPointer { new in
                    for i in 0..<held.count where new[i] > held[i] || held[i].isNaN {
                        held[i] = new[i]
                    }
                }
            }
        } else {
            pending.startHz = frame.startHz
            pending.binWidthHz = frame.binWidthHz
            Self.copy(frame.powerDB, into: &pending.powerDB)
        }
        pendingCount += 1
        bandAverage.add(frame)
        trace.add(frame)
    }

    /// The band whose power `takeBandPower` averages [Hz]; nil = none.
    /// Changing it starts a new average.
    public var measuredBand: FrequencyRange? {
        get { lock.withLock { bandAverage.band } }
        set { lock.withLock { bandAverage.band = newValue } }
    }

    /// The mean power in `measuredBand` of every frame posted since the last
    /// call [dB] and how many frames; nil when none arrived.
    public func takeBandPower() -> (decibels: Double, frames: Int)? {
        lock.withLock { bandAverage.take() }
    }

    /// Called by the consumer: copies the peak-held frame since the last call
    /// into `frame` (reusing its storage) and returns how many frames it
    /// combines; 0 (and `frame` untouched) when nothing new arrived.
    public func take(into frame: inout SpectrumFrame) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard pendingCount > 0 else { return 0 }
        frame.startHz = pending.startHz
        frame.binWidthHz = pending.binWidthHz
        frame.timestamp = pending.timestamp
        frame.noiseBandwidthHz = pending.noiseBandwidthHz
        Self.copy(pending.powerDB, into: &frame.powerDB)
        let combined = pendingCount
        pendingCount = 0
        return combined
    }

    /// Forgets what is pending (after a retune, old-band frames are stale).
    public func clear() {
        lock.lock()
        pendingCount = 0
        bandAverage.reset()
        lock.unlock()
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
