import Dispatch
import Synchronization
import ThreadKit

/// Between the bulk stream (which never stops) and the hop loop: after
/// `arm`, skips the bytes that may still carry the previous tuning, then
/// copies the next `bufferBytes` into a preallocated buffer and wakes the
/// hop loop. Bytes arriving while not armed are dropped on purpose (the
/// dongle keeps streaming while the loop retunes and computes).
final class RTLSDRHopCollector: Sendable {
    let bufferBytes: Int
    /// Written by `ingest` (under `state`'s lock) only while armed; read by
    /// the hop loop only after `wait` saw it full and before the next `arm`.
    /// That hand-over is what makes the unchecked access safe.
    nonisolated(unsafe) private let buffer: UnsafeMutableRawBufferPointer

    private struct State {
        var armed = false
        var discardRemaining = 0
        var filled = 0
        var ended = false
        var endError: Error?
    }

    private let state = Guarded(State())
    /// signalled when the armed buffer fills or the stream ends; `wait` re-checks the state
    private let wake = DispatchSemaphore(value: 0)

    init(bufferBytes: Int) {
        self.bufferBytes = bufferBytes
        buffer = .allocate(byteCount: bufferBytes, alignment: 64)
    }

    deinit { buffer.deallocate() }

    /// Starts collecting after skipping `discard` bytes.
    func arm(discard: Int) {
        // signals of earlier fills nobody waited for (the state says what they said)
        while wake.wait(timeout: .now()) == .success {}
        state.withLock {
            $0.discardRemaining = discard
            $0.filled = 0
            $0.armed = true
        }
    }

    /// Called on the transport's thread with each transfer; never blocks for long.
    func ingest(_ data: UnsafeRawBufferPointer) {
        guard let base = data.baseAddress else { return }
        let completed = state.withLock { state -> Bool in
            guard state.armed else { return false }
            let skipped = min(state.discardRemaining, data.count)
            state.discardRemaining -= skipped
            guard skipped < data.count else { return false }
            let count = min(data.count - skipped, bufferBytes - state.filled)
            (buffer.baseAddress! + state.filled).copyMemory(from: base + skipped, byteCount: count)
            state.filled += count
            guard state.filled == bufferBytes else { return false }
            state.armed = false
            return true
        }
        if completed { wake.signal() }
    }

    /// The stream ended (error or stop); wakes a waiting hop loop.
    func end(_ error: Error?) {
        state.withLock {
            $0.ended = true
            $0.endError = error
        }
        wake.signal()
    }

    enum Outcome {
        case filled(UnsafeRawBufferPointer)
        case stalled
        case ended(Error?)
    }

    private enum Seen {
        case filled, waiting, ended(Error?)
    }

    /// Waits until the armed buffer is full, the stream ends, or `timeout` [s]
    /// passes without it filling.
    func wait(timeout: Double) -> Outcome {
        let deadline = DispatchTime.now() + timeout
        while true {
            let seen = state.withLock { state -> Seen in
                if state.ended { return .ended(state.endError) }
                return state.armed ? .waiting : .filled
            }
            switch seen {
            case .ended(let error): return .ended(error)
            case .filled: return .filled(UnsafeRawBufferPointer(buffer))
            case .waiting:
                // a signal left over from an earlier fill only costs one more look
                if wake.wait(timeout: deadline) == .timedOut {
                    return state.withLock { $0.armed && !$0.ended } ? .stalled : wait(timeout: 0)
                }
            }
        }
    }

    /// Wakes the hop loop as if the stream had ended without error (stop).
    func cancel() { end(nil) }
}
