import Foundation

/// The calendar fields of a Unix time in UTC (whole seconds, rounded
/// down), for the places that print a date: ISO 8601 in calibration files,
/// capture file names, scan headers.
public struct UTCDateTime: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(unixSeconds time: Double) {
        var seconds = time_t(time.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        year = Int(parts.tm_year) + 1900
        month = Int(parts.tm_mon) + 1
        day = Int(parts.tm_mday)
        hour = Int(parts.tm_hour)
        minute = Int(parts.tm_min)
        second = Int(parts.tm_sec)
    }

    /// "2026-11-25T23:40:12Z"; with `basic`, "20261125T234012Z"; `separator` " " gives "2026-11-25 23:40:12"
    public func iso8601(basic: Bool = false, separator: String = "T", zone: String = "Z") -> String {
        basic ? String(format: "%04d%02d%02d", year, month, day) + separator
                + String(format: "%02d%02d%02d", hour, minute, second) + zone
            : String(format: "%04d-%02d-%02d", year, month, day) + separator
                + String(format: "%02d:%02d:%02d", hour, minute, second) + zone
    }
}
