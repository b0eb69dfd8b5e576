/// A rectangle of cells; `x`, `y` are the top-left column and row (0-based).
public struct Rect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// Negative sizes are stored as zero so an empty rect never iterates.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public var isEmpty: Bool { width == 0 || height == 0 }
    /// one past the last column (saturating, so extreme coordinates never trap)
    public var maxX: Int { Rect.saturatingSum(x, width) }
    /// one past the last row (saturating)
    public var maxY: Int { Rect.saturatingSum(y, height) }

    private static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }

    /// The overlap of two rects; empty (at the clamped origin) when they do not meet.
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        let (width, wOverflow) = right.subtractingReportingOverflow(left)
        let (height, hOverflow) = bottom.subtractingReportingOverflow(top)
        return Rect(x: left, y: top, width: wOverflow ? 0 : width, height: hOverflow ? 0 : height)
    }
}
