/// What starts a zero-span trace: the level crossing its power makes.
public struct ZeroSpanTrigger: Sendable, Equatable, CustomStringConvertible {
    public enum Slope: String, Sendable, CaseIterable { case rising, falling }
    /// [dB, or dBm when calibrated]
    public var levelDB: Double
    public var slope: Slope

    public init(levelDB: Double, slope: Slope = .rising) {
        self.levelDB = levelDB
        self.slope = slope
    }

    /// "-40", "-40:rising", "-40:falling"; nil when malformed
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let level = Double(parts[0]), level.isFinite else { return nil }
        var slope = Slope.rising
        if parts.count == 2 {
            guard let named = Slope(rawValue: parts[1].lowercased()) else { return nil }
            slope = named
        }
        self.init(levelDB: level, slope: slope)
    }

    public var description: String { "\(levelDB):\(slope.rawValue)" }

    /// whether going from `previous` to `current` crosses the level the trigger's way
    func fires(from previous: Float, to current: Float) -> Bool {
        let level = Float(levelDB)
        switch slope {
        case .rising: return previous < level && current >= level
        case .falling: return previous > level && current <= level
        }
    }
}

/// Zero span's trace assembly: points in, whole traces out. Free-running
/// (no trigger) each `points` points are a trace. Triggered, the newest
/// points are kept in a ring; when a point crosses the trigger level, the
/// trace is the `preTriggerPoints` before it, the point itself and as many
/// after as fill it, so the crossing sits `preTriggerPoints` from its start.
/// After a trace the trigger re-arms. Storage is made in `init`.
public struct ZeroSpanTraceBuilder: Sendable {
    public let points: Int
    public let preTriggerPoints: Int
    public let trigger: ZeroSpanTrigger?
    /// the ring of the newest points [dB] and each one's first sample
    private var ring: [Float]
    private var ringSamples: [Int]
    private var newest = -1
    private var stored = 0
    /// points still wanted after a trigger; nil while armed
    private var remaining: Int?
    private var previous: Float?
    /// the finished trace [dB] and the index of its first point's first sample
    public private(set) var levelsDB: [Float]
    public private(set) var firstSample = 0
    /// traces finished
    public private(set) var traces = 0

    public init(points: Int, preTriggerPoints: Int = 0, trigger: ZeroSpanTrigger?) {
        self.points = max(2, points)
        self.preTriggerPoints = trigger == nil ? 0 : min(max(0, preTriggerPoints), self.points - 1)
        self.trigger = trigger
        ring = [Float](repeating: 0, count: self.points)
        ringSamples = [Int](repeating: 0, count: self.points)
        levelsDB = [Float](repeating: 0, count: self.points)
    }

    /// Forgets what was gathered (a gap in the stream): the next trace starts afresh.
    public mutating func restart() {
        stored = 0
        remaining = nil
        previous = nil
    }

    /// Adds a point; true when it finished a trace (then in `levelsDB`, `firstSample`).
    public mutating func add(_ levelDB: Float, firstSample sample: Int) -> Bool {
        newest = (newest + 1) % points
        ring[newest] = levelDB
        ringSamples[newest] = sample
        stored = min(stored + 1, points)
        defer { previous = levelDB }
        guard let trigger else {
            guard stored == points else { return false }
            finish()
            return true
        }
        if var left = remaining {
            left -= 1
            remaining = left
            guard left == 0 else { return false }
            finish()
            return true
        }
        guard let previous, stored > preTriggerPoints, trigger.fires(from: previous, to: levelDB) else { return false }
        let after = points - preTriggerPoints - 1
        guard after > 0 else {
            finish()
            return true
        }
        remaining = after
        return false
    }

    /// the newest `points` points, oldest first, into `levelsDB`
    private mutating func finish() {
        let oldest = (newest + 1) % points
        for k in 0..<points { levelsDB[k] = ring[(oldest + k) % points] }
        firstSample = ringSamples[oldest]
        traces += 1
        remaining = nil
        if trigger == nil { stored = 0 }
    }
}
