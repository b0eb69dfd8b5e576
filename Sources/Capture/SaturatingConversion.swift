extension Int {
    /// A Double as an Int without trapping: NaN is 0, values beyond Int's
    /// range are clamped (file contents can hold any Double).
    @inline(__always)
    init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9.2e18 {
            self = Int.max
        } else if value <= -9.2e18 {
            self = Int.min
        } else {
            self = Int(value)
        }
    }
}

/// Times a text writer can print as YYYY-MM-DD: 0001-01-01 … 9999-12-31 UTC.
enum PrintableTime {
    /// [s since the Unix epoch]
    static let earliest = -62_135_596_800.0
    static let latest = 253_402_300_799.0

    /// The time clamped into the printable years (NaN → the epoch).
    static func clamped(_ timestamp: Double) -> Double {
        timestamp.isNaN ? 0 : min(max(timestamp, earliest), latest)
    }
}
