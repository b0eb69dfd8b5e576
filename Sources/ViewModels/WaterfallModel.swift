import Signals

/// The history rows one pixel row of the waterfall shows: sequences
/// `first ..< end`, combined by max (empty when no data covers the pixel).
public struct WaterfallRowSpan: Sendable, Equatable {
    public var first: Int
    public var end: Int

    public init(first: Int, end: Int) {
        self.first = first
        self.end = end
    }

    public static let empty = WaterfallRowSpan(first: 0, end: 0)
    public var isEmpty: Bool { first >= end }
}

/// The waterfall's state: its history, the period the screen height shows,
/// and how far back from now the view is scrolled.
///
/// The offset is relative: the top of the view is always `now − offset`, so
/// while scrolled back 10 s the picture keeps moving exactly as it looked 10 s
/// ago. Pixel rows sit on a fixed time grid (multiples of the seconds per
/// pixel) so a row keeps its shape while it moves down the screen.
public final class WaterfallModel {
    /// history periods offered [s]: a geometric list from 5 s to 10 min
    public static let periods: [Double] = [5, 10, 20, 30, 45, 60, 120, 300, 600]
    /// the period shown first (30 s)
    public static let defaultPeriodIndex = 3

    public let history: WaterfallHistory
    public private(set) var periodIndex: Int
    /// how far the top of the view is behind now [s]; 0 = live
    public private(set) var offsetSeconds: Double = 0

    public init(history: WaterfallHistory = WaterfallHistory(), periodIndex: Int = WaterfallModel.defaultPeriodIndex) {
        self.history = history
        self.periodIndex = min(max(periodIndex, 0), Self.periods.count - 1)
    }

    /// seconds from the top to the bottom of the view
    public var periodSeconds: Double { Self.periods[periodIndex] }

    public func add(_ frame: SpectrumFrame) { history.add(frame) }

    // MARK: intents

    /// Longer (+) or shorter (−) period, by steps through the list.
    public func stepPeriod(by steps: Int) {
        periodIndex = min(max(periodIndex + steps, 0), Self.periods.count - 1)
    }

    /// Moves the view back (positive) or towards now (negative) [s], no
    /// further back than the oldest row at the bottom of the view.
    public func scroll(bySeconds seconds: Double, now: Double) {
        guard seconds.isFinite else { return }
        offsetSeconds = min(max(offsetSeconds + seconds, 0), maximumOffset(now: now))
    }

    /// Home/End: back to live.
    public func scrollToNow() { offsetSeconds = 0 }

    /// The farthest back the view can go at `now` [s].
    public func maximumOffset(now: Double) -> Double {
        guard history.count > 0, now.isFinite else { return 0 }
        let oldest = history.info(history.startSequence).timestamp
        return max(0, now - oldest - periodSeconds)
    }

    // MARK: geometry

    /// seconds one pixel row covers
    public func secondsPerPixel(pixelRows: Int) -> Double { periodSeconds / Double(max(pixelRows, 1)) }

    /// The time at the top edge of the view [s]: `now − offset`, snapped up
    /// to the pixel grid so the top pixel row holds the newest data.
    public func topTime(now: Double, pixelRows: Int) -> Double {
        let step = secondsPerPixel(pixelRows: pixelRows)
        return ((now - offsetSeconds) / step).rounded(.up) * step
    }

    /// Seconds before now at the top edge of pixel row `row` (for the time axis).
    public func secondsBeforeNow(atPixelRow row: Int, pixelRows: Int) -> Double {
        offsetSeconds + Double(row) * secondsPerPixel(pixelRows: pixelRows)
    }

    /// For each pixel row (0 = top, newest) the history rows it shows: those
    /// whose centre time falls inside the pixel's time interval (rows thinner
    /// than a pixel share it and are combined by max), else the row whose time
    /// slot covers the pixel's centre (rows thicker than a pixel), else none.
    public func mapRows(now: Double, into spans: UnsafeMutableBufferPointer<WaterfallRowSpan>) {
        let rows = spans.count
        guard rows > 0 else { return }
        let step = secondsPerPixel(pixelRows: rows)
        let top = topTime(now: now, pixelRows: rows)
        let half = history.rowSeconds / 2
        // Row starts at or after this time have their centre at or after the pixel's upper edge.
        var end = history.firstSequence(startingAtOrAfter: top - half)
        for y in 0..<rows {
            let lower = top - Double(y + 1) * step
            let first = history.firstSequence(startingAtOrAfter: lower - half)
            if first < end {
                spans[y] = WaterfallRowSpan(first: first, end: end)
            } else if let covering = history.sequence(covering: lower + step / 2) {
                spans[y] = WaterfallRowSpan(first: covering, end: covering + 1)
            } else {
                spans[y] = .empty
            }
            end = first
        }
    }
}
