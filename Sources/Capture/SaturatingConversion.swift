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

    /// The clamped time as whole seconds and the microseconds after them,
    /// rounded to the nearest µs (never truncated: a Double near 1.7e9 s is
    /// within 0.12 µs of the time it stands for, so rounding recovers a time
    /// read to the µs, where truncating loses one µs about half the time).
    static func microseconds(_ timestamp: Double) -> (seconds: Int, micros: Int) {
        let time = clamped(timestamp)
        let whole = time.rounded(.down)
        // time − whole is exact (Sterbenz); × 1e6 adds under 1e-10 µs of error
        let micros = Int(((time - whole) * 1e6).rounded())
        return micros >= 1_000_000 ? (Int(whole) + 1, micros - 1_000_000) : (Int(whole), micros)
    }

    /// A row's time in µs as (seconds, microseconds) for printing, clamped
    /// into the printable years (a damaged store can hold any value).
    static func split(micros: Int64) -> (seconds: Int, micros: Int) {
        let time = min(max(micros, Int64(earliest) * 1_000_000), Int64(latest) * 1_000_000 + 999_999)
        let seconds = time >= 0 ? time / 1_000_000 : -((-time + 999_999) / 1_000_000)
        return (Int(seconds), Int(time - seconds * 1_000_000))
    }
}
