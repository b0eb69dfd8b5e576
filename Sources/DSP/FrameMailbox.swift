import Foundation
import Signals

/// Hands spectrum frames from the DSP thread to the render loop without
/// either waiting on the other. Frames posted between two `take`s are
/// combined bin by bin with max (peak hold), so a burst seen in one frame is
/// never lost when frames arrive faster than the view draws them. A frame
/// with a different geometry (band or bin width) replaces what is pending.
///
/// Storage is reused: in steady state neither side allocates.
public final class FrameMailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: SpectrumFrame?
    /// frames combined into `pending` since the last take
    private var pendingCount = 0
    /// frames posted since creation
    public private(set) var postedCount = 0

    public init() {}

    /// Called by the producer for every completed frame.
    public func post(_ frame: SpectrumFrame) {
        lock.lock()
        defer { lock.unlock() }
        postedCount += 1
        if pendingCount > 0, var current = pending,
           current.startHz == frame.startHz, current.binWidthHz == frame.binWidthHz,
           current.powerDB.count == frame.powerDB.count {
            pending = nil // keep `current` uniquely referenced while mutating
            current.timestamp = frame.timestamp
            current.powerDB.withUnsafeMutableBufferPointer { held in
                frame.powerDB.withUnsafeBufferPointer { new in
                    for i in 0..<held.count where new[i] > held[i] || held[i].isNaN {
                        held[i] = new[i]
                    }
                }
            }
            pending = current
        } else {
            pending = frame
        }
        pendingCount += 1
    }

    /// Called by the consumer: the peak-held frame since the last call and
    /// how many frames it combines, or nil when nothing new arrived.
    public func take() -> (frame: SpectrumFrame, combined: Int)? {
        lock.lock()
        defer { lock.unlock() }
        guard pendingCount > 0, let frame = pending else { return nil }
        let combined = pendingCount
        pendingCount = 0
        return (frame, combined)
    }

    /// Forgets what is pending (after a retune, old-band frames are stale).
    public func clear() {
        lock.lock()
        pending = nil
        pendingCount = 0
        lock.unlock()
    }
}
