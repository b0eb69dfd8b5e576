import Foundation

/// Turns `YYYY-MM-DD` + `HH:MM:SS[.ffffff]` written without a zone into Unix
/// time, with the zone rule of `CaptureReadOptions`. The local zone's offset is
/// looked up (mktime) once per hour of data, so daylight-saving changes are
/// honoured without a libc call per line.
struct WallClockParser {
    let rule: CaptureReadOptions.TimeZoneRule
    private var cachedHour = Int.min
    private var cachedOffset = 0

    init(rule: CaptureReadOptions.TimeZoneRule) {
        self.rule = rule
    }

    /// offset used for the last parsed time [s east of UTC]
    var lastOffsetSeconds: Int {
        if case .utcOffset(let seconds) = rule { return seconds }
        return cachedOffset
    }

    /// Unix time [s], or nil unless both fields are well-formed.
    mutating func parse(date: UnsafeBufferPointer<UInt8>, time: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let (seconds, fraction, places) = parseParts(date: date, time: time) else { return nil }
        return Double(seconds) + Double(fraction) / DecimalParser.powersOfTen[places]
    }

    /// Unix time [µs], exact for times printed to the microsecond (more
    /// fraction digits are rounded to the nearest µs), and how many digits
    /// the time had after its seconds (0…9); nil unless both fields are
    /// well-formed.
    mutating func parseMicros(date: UnsafeBufferPointer<UInt8>,
                              time: UnsafeBufferPointer<UInt8>) -> (micros: Int64, decimals: Int)? {
        guard let (seconds, fraction, places) = parseParts(date: date, time: time) else { return nil }
        let micros = places <= 6 ? fraction * Int(DecimalParser.powersOfTen[6 - places])
            : (fraction + Int(DecimalParser.powersOfTen[places - 6]) / 2) / Int(DecimalParser.powersOfTen[places - 6])
        return (Int64(seconds) * 1_000_000 + Int64(micros), places)
    }

    /// Whole Unix seconds, the fraction's digits as an integer and how many there are (0…9).
    private mutating func parseParts(date: UnsafeBufferPointer<UInt8>,
                                     time: UnsafeBufferPointer<UInt8>) -> (seconds: Int, fraction: Int, places: Int)? {
        guard date.count == 10, time.count >= 8, let d = date.baseAddress, let t = time.baseAddress,
              d[4] == UInt8(ascii: "-"), d[7] == UInt8(ascii: "-"),
              t[2] == UInt8(ascii: ":"), t[5] == UInt8(ascii: ":"),
              let year = Self.digits(d, 0, 4), let month = Self.digits(d, 5, 2), let day = Self.digits(d, 8, 2),
              let hour = Self.digits(t, 0, 2), let minute = Self.digits(t, 3, 2), let second = Self.digits(t, 6, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0
        var places = 0
        if time.count > 8 {
            places = time.count - 9
            guard t[8] == UInt8(ascii: "."), places > 0, places <= 9,
                  let digits = Self.digits(t, 9, places) else { return nil }
            fraction = digits
        }
        let civil = Self.daysFromCivil(year: year, month: month, day: day) * 86_400
            + hour * 3600 + minute * 60 + second
        return (civil - offset(civilSeconds: civil), fraction, places)
    }

    /// offset from UTC [s] in effect at a local civil time
    private mutating func offset(civilSeconds: Int) -> Int {
        switch rule {
        case .utcOffset(let seconds):
            return seconds
        case .local:
            let hour = civilSeconds.quotientFloor(3600)
            if hour != cachedHour {
                cachedHour = hour
                cachedOffset = Self.localOffset(civilSeconds: hour * 3600)
            }
            return cachedOffset
        }
    }

    /// The local zone's offset at a civil time, through mktime.
    static func localOffset(civilSeconds: Int) -> Int {
        var civil = time_t(civilSeconds)
        var parts = tm()
        gmtime_r(&civil, &parts)
        parts.tm_isdst = -1
        let utc = mktime(&parts)
        guard utc != -1 else { return 0 }
        return civilSeconds - Int(utc)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// days_from_civil algorithm, public domain: howardhinnant.github.io/date_algorithms.html).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y.quotientFloor(400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    @inline(__always)
    private static func digits(_ base: UnsafePointer<UInt8>, _ from: Int, _ count: Int) -> Int? {
        var value = 0
        for i in from..<(from + count) {
            let d = base[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            value = value * 10 + Int(d)
        }
        return value
    }
}

extension Int {
    /// division rounding toward −infinity
    @inline(__always)
    func quotientFloor(_ divisor: Int) -> Int {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}
