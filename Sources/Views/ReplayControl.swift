import Signals
import ViewModels

/// What the viewer needs to play a file instead of a live analyzer. The
/// viewer calls it on its own thread with the current monotonic time [s];
/// file times are Unix seconds, positions seconds from the first frame.
/// (Capture's `ReplayDriver` has this shape; the executable declares the
/// conformance, so Views does not depend on Capture.)
public protocol ReplayControl: AnyObject {
    var duration: Double { get }
    var speed: Double { get }
    var isPaused: Bool { get }
    /// file time at the playhead [s, Unix]: the waterfall's "now"
    func playhead(at wallClock: Double) -> Double
    /// the playhead [s from the first frame]
    func position(at wallClock: Double) -> Double
    func isFinished(at wallClock: Double) -> Bool
    /// hands `deliver` every frame reached by `wallClock`, in order
    func advance(to wallClock: Double, deliver: (SpectrumFrame) -> Void) throws
    func togglePause(at wallClock: Double)
    func stepSpeed(faster: Bool, at wallClock: Double)
    func skip(by seconds: Double, at wallClock: Double) throws
    func seek(toOffset offset: Double, at wallClock: Double) throws
    /// hands `deliver` the frames of the `seconds` before the playhead, oldest first
    func refill(seconds: Double, at wallClock: Double, deliver: (SpectrumFrame) -> Void) throws
}

extension ReplayControl {
    /// The status line's view of the replay at `wallClock`.
    func state(at wallClock: Double) -> ReplayState {
        ReplayState(speed: speed, isPaused: isPaused, position: position(at: wallClock), duration: duration,
                    isFinished: isFinished(at: wallClock))
    }

    /// Carries out a replay intent; returns whether the playhead jumped (the
    /// waterfall must then be refilled).
    func perform(_ intent: ReplayIntent, at wallClock: Double) throws -> Bool {
        switch intent {
        case .togglePause: togglePause(at: wallClock)
        case .stepSpeed(let faster): stepSpeed(faster: faster, at: wallClock)
        case .skip(let seconds): try skip(by: seconds, at: wallClock)
        case .seek(let offset): try seek(toOffset: offset, at: wallClock)
        case .toStart: try seek(toOffset: 0, at: wallClock)
        case .toEnd: try seek(toOffset: duration, at: wallClock)
        }
        switch intent {
        case .togglePause, .stepSpeed: return false
        case .skip, .seek, .toStart, .toEnd: return true
        }
    }
}
