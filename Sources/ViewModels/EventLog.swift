import DSP
import Foundation
import Signals

/// The events `watch` has seen (its --above/--mask/--over-baseline condition,
/// decided on every sweep by a tracker on the DSP side): the last ones for
/// the status line and their start times for ticks on the waterfall. Bounded.
public struct EventLog: Sendable, Equatable {
    /// most events kept
    public static let capacity = 1000

    /// events that ended, oldest first
    public private(set) var closed: [DetectedEvent] = []
    /// the event in progress, if any
    public private(set) var open: DetectedEvent?
    /// events seen since the start (also those dropped from `closed`)
    public private(set) var count = 0

    public init() {}

    /// Applies what the tracker reported; returns true if an event started (for the bell).
    @discardableResult
    public mutating func apply(_ outputs: [SweepEventTracker.Output]) -> Bool {
        var started = false
        for output in outputs {
            switch output {
            case .opened(let event):
                open = event
                count += 1
                started = true
            case .closed(let event):
                open = nil
                closed.append(event)
                if closed.count > Self.capacity { closed.removeFirst(closed.count - Self.capacity) }
            }
        }
        return started
    }

    /// start times of every kept event and the open one [s since the Unix epoch]
    public var startTimes: [Double] { closed.map(\.start) + (open.map { [$0.start] } ?? []) }

    /// "events 3 │ last 98.39 MHz −8.1 dB" (nil before the first)
    public var summary: String? {
        guard count > 0 else { return nil }
        let latest = open ?? closed.last
        var text = "events \(count)"
        if open != nil { text += " (one open)" }
        if let latest {
            text += " │ last \(FrequencyFormat.label(latest.peakHz, maxFractionDigits: 3)) "
                + String(format: "%.1f", latest.peakDB).replacingOccurrences(of: "-", with: "−") + " dB"
        }
        return text
    }
}
