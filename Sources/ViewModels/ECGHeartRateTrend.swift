/// Heart rate once per second of signal, measured by the detector and, where
/// the source has reference beats, from those; which seconds were in atrial
/// fibrillation, and the AF burden so far; plus an optional target zone and
/// where the stream broke (a sensor's dropped link).
/// A fixed ring of `capacity` seconds: memory does not grow with run time.
public struct ECGHeartRateTrend: Sendable, Equatable {
    /// seconds kept (30 min)
    public static let capacity = 1800
    /// beats/min by second index modulo `capacity`; NaN where unknown
    private var measured: [Float]
    private var reference: [Float]
    private var atrialFibrillation: [Bool]
    /// the share of readable time in AF so far (the rhythm monitor's), nil before any
    public private(set) var afBurden: Double?
    /// whether any second was in AF
    public private(set) var hasAF = false
    /// seconds appended so far (the newest is `seconds - 1`)
    public private(set) var seconds = 0
    /// the rate the user aims for [beats/min] (`--target-hr A:B`)
    public var target: ClosedRange<Double>?
    /// whether any reference rate was appended
    public private(set) var hasReference = false

    /// A break in the stream before second `second`, `seconds` long: a sensor's link was down.
    /// Nothing arrived meanwhile, so the seconds on either side are neighbours in the trend.
    public struct Gap: Sendable, Equatable {
        public var second: Int
        public var seconds: Double
    }
    /// the newest `gapCapacity` breaks, oldest first
    public private(set) var gaps: [Gap] = []
    public static let gapCapacity = 64

    public init(target: ClosedRange<Double>? = nil) {
        self.target = target
        measured = Array(repeating: .nan, count: Self.capacity)
        reference = Array(repeating: .nan, count: Self.capacity)
        atrialFibrillation = Array(repeating: false, count: Self.capacity)
    }

    /// Appends the rates of the next second [beats/min].
    /// `inAF`: the rhythm was atrial fibrillation; `afBurden`: the monitor's so far.
    public mutating func append(measured rate: Double?, reference referenceRate: Double?, inAF: Bool = false,
                                afBurden: Double? = nil) {
        let slot = seconds % Self.capacity
        measured[slot] = rate.map(Float.init) ?? .nan
        reference[slot] = referenceRate.map(Float.init) ?? .nan
        atrialFibrillation[slot] = inAF
        if inAF { hasAF = true }
        if afBurden != nil { self.afBurden = afBurden }
        if referenceRate != nil { hasReference = true }
        seconds += 1
    }

    /// Marks a break in the stream before the next second appended.
    public mutating func markGap(lasting seconds: Double) {
        if gaps.count == Self.gapCapacity { gaps.removeFirst() }
        gaps.append(Gap(second: self.seconds, seconds: seconds))
    }

    /// The break just before `second`, if the stream broke there.
    public func gap(before second: Int) -> Gap? {
        gaps.last { $0.second == second }
    }

    /// The rates of `second` [beats/min], NaN where unknown or no longer kept.
    public func rates(at second: Int) -> (measured: Float, reference: Float) {
        guard second >= 0, second < seconds, second >= seconds - Self.capacity else { return (.nan, .nan) }
        return (measured[second % Self.capacity], reference[second % Self.capacity])
    }

    /// Whether `second` was in atrial fibrillation (false when no longer kept).
    public func isAF(at second: Int) -> Bool {
        guard second >= 0, second < seconds, second >= seconds - Self.capacity else { return false }
        return atrialFibrillation[second % Self.capacity]
    }

    /// Heart rate from reference beats at or before `sample`: 60 / the median of
    /// their last five RR intervals, as the rhythm monitor measures [beats/min].
    public static func referenceRate(beats: ArraySlice<Int>, sampleRate: Double) -> Double? {
        let recent = beats.suffix(6)
        guard recent.count >= 2 else { return nil }
        var intervals = zip(recent.dropFirst(), recent).map { $0 - $1 }
        intervals.sort()
        let median = intervals[intervals.count / 2]
        return median > 0 ? 60 * sampleRate / Double(median) : nil
    }
}
