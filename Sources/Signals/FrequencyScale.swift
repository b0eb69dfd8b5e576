import Foundation

/// How a frequency axis lays a band across the screen: linearly (equal hertz
/// per column) or logarithmically (equal ratio per column, `--log-frequency`,
/// the usual axis of EMC plots over 150 kHz–30 MHz or 30 MHz–1 GHz).
///
/// This is the one column ↔ frequency function: the decimation of bins to
/// columns (`ColumnDecimator`), the frequency axis' ticks, markers, mouse
/// clicks, the band plan's spans and channel grid, the occupancy view and the
/// exported PNG all place frequencies through it, so what is drawn at a
/// column is what a click there reads.
///
/// A logarithmic scale needs a band whose lower edge is above 0 Hz; asked of a
/// band starting at or below 0 Hz (panned there in `watch`), it lays the band
/// out linearly (`isLogarithmic` is false). The command line refuses such a
/// band outright (`LogFrequencyError`).
public struct FrequencyScale: Sendable, Equatable, Hashable {
    /// the band across the axis [Hz]
    public let band: FrequencyRange
    /// columns are spaced by ratio (true) or by hertz (false)
    public let isLogarithmic: Bool
    /// ln(upper / lower), for the logarithmic case
    private let logSpan: Double

    /// - Parameter logarithmic: wanted; granted only when the band's lower edge is above 0 Hz
    public init(band: FrequencyRange, logarithmic: Bool = false) {
        self.band = band
        let log = logarithmic && band.lowerHz > 0
        isLogarithmic = log
        logSpan = log ? Foundation.log(band.upperHz / band.lowerHz) : 0
    }

    /// A linear scale over `band`.
    public static func linear(_ band: FrequencyRange) -> FrequencyScale { FrequencyScale(band: band) }

    /// Where `hz` lies across the axis: 0 at the lower edge, 1 at the upper
    /// (outside [0, 1] beyond them; −∞ for hz ≤ 0 on a logarithmic axis).
    @inlinable
    public func fraction(ofHz hz: Double) -> Double {
        if isLogarithmic {
            return hz > 0 ? Foundation.log(hz / band.lowerHz) / logSpanValue : -.infinity
        }
        return (hz - band.lowerHz) / band.spanHz
    }

    /// The frequency at `fraction` of the way across the axis [Hz].
    @inlinable
    public func hz(atFraction fraction: Double) -> Double {
        if isLogarithmic { return band.lowerHz * Foundation.exp(fraction * logSpanValue) }
        return band.lowerHz + fraction * band.spanHz
    }

    /// The lower edge of column `column` of `columns` [Hz]; column `columns` gives the upper edge of the band.
    @inlinable
    public func lowerHz(ofColumn column: Int, of columns: Int) -> Double {
        hz(atFraction: Double(column) / Double(max(columns, 1)))
    }

    /// The centre of column `column` of `columns` [Hz] (the geometric centre on a logarithmic axis).
    @inlinable
    public func centerHz(ofColumn column: Int, of columns: Int) -> Double {
        hz(atFraction: (Double(column) + 0.5) / Double(max(columns, 1)))
    }

    /// The column of `columns` that holds `hz` (may lie outside 0..<columns for a frequency outside the band).
    @inlinable
    public func column(ofHz hz: Double, of columns: Int) -> Int {
        let position = fraction(ofHz: hz) * Double(columns)
        guard position.isFinite else { return position < 0 ? Int.min / 2 : Int.max / 2 }
        return Int(max(-1e9, min(1e9, position)).rounded(.down))
    }

    /// The narrowest column's width when the band is cut in `columns` [Hz]: the
    /// lowest one on a logarithmic axis, any one on a linear axis.
    public func narrowestColumnHz(columns: Int) -> Double {
        lowerHz(ofColumn: 1, of: columns) - band.lowerHz
    }

    @usableFromInline
    var logSpanValue: Double { logSpan }

    /// Tick values for a labelled axis about `targetCount` of them: the
    /// 1-2-5 steps of `AxisTicks`-style linear axes on a linear scale; on a
    /// logarithmic one the 1, 2, 5 × 10ⁿ values in the band (30M 50M 100M
    /// 200M 500M 1G), thinned to each decade (or every second, third…) when the
    /// band spans too many for `targetCount`, and filled with 1…9 × 10ⁿ when
    /// it spans few enough; within a decade, where even those leave fewer
    /// than half of `targetCount`, the linear axis's 1-2-5 steps in hertz.
    public func logTicks(targetCount: Int) -> [Double] {
        guard isLogarithmic else { return [] }
        let lower = band.lowerHz, upper = band.upperHz
        func values(_ mantissas: [Double], everyDecade: Int = 1) -> [Double] {
            var result: [Double] = []
            var decade = Foundation.pow(10, Foundation.floor(Foundation.log10(lower)))
            var index = 0
            while decade <= upper * 1.000001 {
                if index % everyDecade == 0 {
                    for mantissa in mantissas {
                        let value = mantissa * decade
                        if value >= lower * 0.999999 && value <= upper * 1.000001 { result.append(value) }
                    }
                }
                decade *= 10
                index += 1
            }
            return result
        }
        let target = max(2, targetCount)
        // within about a decade the axis is nearly linear, and 1…9 × 10ⁿ leaves it bare
        // (82–110 MHz: only 90M and 100M): 1-2-5 steps in hertz instead, as a linear axis has
        if upper / lower < 10, values([1, 2, 3, 4, 5, 6, 7, 8, 9]).count < target / 2 {
            let rough = (upper - lower) / Double(target)
            let magnitude = Foundation.pow(10, Foundation.floor(Foundation.log10(rough)))
            let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
            var ticks: [Double] = []
            var tick = Foundation.ceil(lower / step * 0.999999) * step
            while tick <= upper * 1.000001 {
                ticks.append(tick)
                tick += step
            }
            return ticks
        }
        for mantissas: [Double] in [[1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 5], [1]] {
            let ticks = values(mantissas)
            if ticks.count <= target { return ticks }
        }
        // many decades: every second, third, … decade
        var every = 2
        while values([1], everyDecade: every).count > target { every += 1 }
        return values([1], everyDecade: every)
    }
}

/// The one-line refusal of a logarithmic axis over a band that reaches 0 Hz.
public struct LogFrequencyError: Error, CustomStringConvertible, Sendable {
    public let band: FrequencyRange
    public init(band: FrequencyRange) { self.band = band }
    public var description: String {
        "--log-frequency needs a band above 0 Hz (the axis is log f), and \(band) starts at \(FrequencyFormat.label(band.lowerHz)): "
            + "start it higher (watch --band 0.15:30, export --low 150k)"
    }

    /// Throws unless `band` can be shown on a logarithmic axis.
    public static func check(_ band: FrequencyRange) throws(LogFrequencyError) {
        guard band.lowerHz > 0 else { throw LogFrequencyError(band: band) }
    }
}
