import Capture
import Foundation
import Signals
import ThreadKit

/// The first fatal error the device reported (set on a USB thread, read by
/// the run's loop).
public final class DeviceFailure: Sendable {
    private let first = FirstValue<String>()

    public init() {}

    public func record(_ message: String) { first.record(message) }

    public var message: String? { first.value }
}

/// The device's dropped- and bad-block counters, readable before the source exists.
public final class DeviceBlockCounters: Sendable {
    private let reader = Locked<@Sendable () -> (dropped: Int, bad: Int)>({ (0, 0) })

    public init() {}

    /// where the counts come from once the source exists
    public var read: @Sendable () -> (dropped: Int, bad: Int) {
        get { reader.value }
        set { reader.value = newValue }
    }

    public var value: (dropped: Int, bad: Int) { read() }
}

/// Plays a capture's frames at `speed` times their own pace (nil: as fast as
/// they read): waits until each frame's file time is due on the wall clock.
public struct FilePacer {
    public let speed: Double?
    private var start: (file: Double, wall: Double)?
    /// what "due" is measured and waited on
    private let clock: any MonotonicClock
    private let nobodyRings = Doorbell()

    public init(speed: Double?, clock: any MonotonicClock = SystemClock()) {
        self.speed = speed
        self.clock = clock
    }

    public mutating func wait(for fileTime: Double) {
        guard let speed else { return }
        let origin = start ?? (fileTime, clock.now)
        start = origin
        let wait = origin.wall + (fileTime - origin.file) / speed - clock.now
        // at most 10 s [s] at a time, as before
        if wait > 0 { clock.wait(until: clock.now + min(wait, 10), orUntilRung: nobodyRings) }
    }
}

/// After reading a capture: what was skipped or missing, one line each on stderr.
public func reportSkips(_ reader: SpectrumFrameReader) {
    if let missing = (reader as? MissingValueReporting)?.missingValues, missing > 0 {
        printError("note: \(missing) value(s) were nan (not measured): kept as no data")
    }
    guard reader.skipped > 0 else { return }
    let first = (reader as? DamageReporting)?.firstSkipped.map { " (first: \($0))" } ?? ""
    printError("warning: skipped \(reader.skipped) damaged line(s) or record(s)\(first); --strict makes this fatal")
}
