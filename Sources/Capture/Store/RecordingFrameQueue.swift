import Foundation
import Signals

/// A bounded queue of spectrum frames between the DSP thread (`post`, never
/// blocks) and a writer thread (`take`). Slots and their bin storage are
/// reused: `post` copies into a slot, `take` swaps the slot's frame with the
/// caller's, so neither side allocates once the slots have grown to the
/// frame size. When full, the oldest frame is dropped and counted.
final class RecordingFrameQueue: @unchecked Sendable {
    enum Taken { case frame, timedOut, closed }

    private let condition = NSCondition()
    private var slots: [SpectrumFrame]
    private var head = 0
    private var count = 0
    private var closed = false
    private var droppedCount = 0

    /// - Parameters:
    ///   - capacity: frames held at most (≥ 1)
    ///   - binCapacity: bins reserved per slot up front
    init(capacity: Int, binCapacity: Int = 0) {
        slots = (0..<max(1, capacity)).map { _ in
            var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
            frame.powerDB.reserveCapacity(binCapacity)
            return frame
        }
    }

    /// frames dropped because the writer fell behind
    var dropped: Int { condition.withLock { droppedCount } }

    /// Copies `frame` in; drops the oldest queued frame if full. Ignored after `close`.
    func post(_ frame: SpectrumFrame) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        if count == slots.count {
            head = (head + 1) % slots.count
            count -= 1
            droppedCount += 1
        }
        let index = (head + count) % slots.count
        slots[index].startHz = frame.startHz
        slots[index].binWidthHz = frame.binWidthHz
        slots[index].timestamp = frame.timestamp
        slots[index].powerDB.removeAll(keepingCapacity: true)
        slots[index].powerDB.append(contentsOf: frame.powerDB)
        count += 1
        condition.signal()
    }

    /// Waits up to `timeout` [s] for a frame and swaps it into `frame`.
    /// Frames queued before `close` are still handed out; then `.closed`.
    func take(into frame: inout SpectrumFrame, timeout: Double) -> Taken {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while count == 0 && !closed {
            if !condition.wait(until: deadline) { break }
        }
        guard count > 0 else { return closed ? .closed : .timedOut }
        swap(&slots[head], &frame)
        head = (head + 1) % slots.count
        count -= 1
        return .frame
    }

    /// Stops accepting frames and wakes the writer.
    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }
}
