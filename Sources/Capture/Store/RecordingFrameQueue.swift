import Signals
import ThreadKit

/// A bounded queue of spectrum frames between the DSP thread (`post`, never
/// blocks) and a writer thread (`take`). Slots and their bin storage are
/// reused: `post` copies into a slot, `take` swaps the slot's frame with the
/// caller's, so neither side allocates once the slots have grown to the
/// frame size. When full, the oldest frame is dropped and counted; closing
/// drains (every frame posted before it reaches the file).
final class RecordingFrameQueue: Sendable {
    enum Taken { case frame, timedOut, closed }

    private let ring: DropOldestRing<SpectrumFrame>

    /// - Parameters:
    ///   - capacity: frames held at most (≥ 1)
    ///   - binCapacity: bins reserved per slot up front
    init(capacity: Int, binCapacity: Int = 0) {
        ring = DropOldestRing(capacity: capacity, onClose: .drain) {
            var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
            frame.powerDB.reserveCapacity(binCapacity)
            return frame
        }
    }

    /// frames dropped because the writer fell behind
    var dropped: Int { ring.dropped }

    /// Copies `frame` in; drops the oldest queued frame if full. Ignored after `close`.
    func post(_ frame: SpectrumFrame) {
        ring.push { slot in
            slot.startHz = frame.startHz
            slot.binWidthHz = frame.binWidthHz
            slot.timestamp = frame.timestamp
            slot.noiseBandwidthHz = frame.noiseBandwidthHz
            slot.windowing = frame.windowing
            slot.powerDB.removeAll(keepingCapacity: true)
            slot.powerDB.append(contentsOf: frame.powerDB)
        }
    }

    /// Waits up to `timeout` [s] for a frame and swaps it into `frame`.
    /// Frames queued before `close` are still handed out; then `.closed`.
    func take(into frame: inout SpectrumFrame, timeout: Double) -> Taken {
        switch ring.pop(timeout: timeout, { swap(&$0, &frame) }) {
        case .item: return .frame
        case .timedOut: return .timedOut
        case .closed: return .closed
        }
    }

    /// Stops accepting frames and wakes the writer.
    func close() { ring.close() }
}
