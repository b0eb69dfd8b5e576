import Foundation
import ThreadKit

/// A one-line progress bar on stderr, drawn only when stderr is a terminal:
/// `[#########...........]  45%  212.3 MB/s  ETA 0:03`, redrawn at most 10
/// times a second and erased at the end.
public final class ConvertProgress {
    private let enabled: Bool
    /// times the rate, the ETA and the redraws
    private let clock: any MonotonicClock
    private let started: Double
    private var lastDraw = 0.0
    static let barWidth = 30

    public init(enabled: Bool = isatty(STDERR_FILENO) == 1, clock: any MonotonicClock = SystemClock()) {
        self.enabled = enabled
        self.clock = clock
        started = clock.now
    }

    public func update(done: Int, total: Int?) {
        guard enabled else { return }
        let now = clock.now
        guard now - lastDraw >= 0.1 else { return }
        lastDraw = now
        FileHandle.standardError.write(Data(("\r" + Self.line(done: done, total: total, elapsed: now - started) + "\u{1B}[K").utf8))
    }

    public func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// The text of the bar for `done` of `total` bytes after `elapsed` seconds.
    public static func line(done: Int, total: Int?, elapsed: Double) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let rateText = String(format: "%.1f MB/s", rate / 1e6)
        guard let total, total > 0 else {
            return String(format: "%.1f MB  ", Double(done) / 1e6) + rateText
        }
        let fraction = min(1, Double(done) / Double(total))
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let eta = Int(remaining.rounded())
        return "[\(bar)] " + String(format: "%3d%%  ", Int(fraction * 100)) + rateText
            + String(format: "  ETA %d:%02d", eta / 60, eta % 60)
    }
}
