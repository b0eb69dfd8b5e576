import Foundation

/// Unit conversions used across the pipeline.
public enum Units {
    /// power ratio → decibels; 0 maps to -infinity
    @inlinable public static func decibels(power: Double) -> Double { 10 * log10(power) }
    /// decibels → power ratio
    @inlinable public static func power(decibels: Double) -> Double { pow(10, decibels / 10) }
}

/// Wall-clock now [s since the Unix epoch, UTC].
public func unixTimeNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
