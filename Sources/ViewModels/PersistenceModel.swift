import DSP
import Foundation
import Signals

/// Where the persistence histogram's cells lie: pixel columns across the
/// visible band, pixel rows down the plot's dB window. A change of any of it
/// starts the histogram again (as a bench analyzer's persistence resets when
/// span or reference level change).
public struct PersistenceGeometry: Sendable, Equatable {
    /// pixel columns across `band`
    public var columns: Int
    /// pixel rows from `topDB` (row 0) down to `bottomDB`
    public var rows: Int
    /// the band across the columns [Hz]
    public var band: FrequencyRange
    /// level at the bottom edge of the last row [dB]
    public var bottomDB: Double
    /// level at the top edge of row 0 [dB]
    public var topDB: Double
    /// the columns lie on a logarithmic frequency axis (`FrequencyScale`)
    public var logFrequency: Bool

    public init(columns: Int, rows: Int, band: FrequencyRange, bottomDB: Double, topDB: Double,
                logFrequency: Bool = false) {
        self.columns = columns
        self.rows = rows
        self.band = band
        self.bottomDB = bottomDB
        self.topDB = topDB
        self.logFrequency = logFrequency
    }

    /// how the band lies across the columns
    public var scale: FrequencyScale { FrequencyScale(band: band, logarithmic: logFrequency) }
}

/// The persistence (density, "DPX") view's state: per frequency column and
/// level row, how often the spectrum landed there over recent frames.
///
/// Each frame is reduced to columns by max (the plot's column mapping); the
/// row of each column's level gains a hit of weight 1. Before that, every
/// cell and every column's frame count decays by `k = exp(−Δt / τ)`, Δt the
/// time since the previous frame and τ the persistence time, so both are
/// exponentially weighted sums over the frames of about the last τ seconds:
///
///     cell(c, r) = Σ_frames k_age · hit(c, r)      frames(c) = Σ_frames k_age
///
/// and the density `cell / frames` is the (weighted) fraction of frames whose
/// level in column c fell in row r: 1 for a steady carrier, 0.01 for a burst
/// seen in one frame of a hundred. Time, not frame count, sets the decay, so
/// a sweep at a few frames per second and a real-time source at 30 fade
/// alike; τ = ∞ counts every frame since the last reset with equal weight.
///
/// The histogram is allocated when the geometry changes, never per frame.
public final class PersistenceModel {
    /// persistence times offered [s], shortest first; ∞ never forgets
    public static let persistenceTimes: [Double] = [0.5, 1, 2, 5, 10, 30, 60, .infinity]
    /// the time shown first (5 s: at 30 frames/s about 150 frames weigh in, so a
    /// burst in 1 % of them reads steadily; a sweep at 3/s still fades in seconds)
    public static let defaultTimeIndex = 3
    /// the smallest density drawn [fraction of frames]; rarer cells stay background
    public static let minimumDensity: Float = 1e-3
    /// the palette level (PowerColorMap, 0…1) of the smallest density drawn: the
    /// rarest hits are a clear blue above the dark floor of the map, not black
    public static let lowestPaletteLevel: Float = 0.42
    /// a hit weight below this is set to zero as it decays (it could never be
    /// drawn again, and staying clear of subnormal floats keeps the decay loop fast)
    static let negligibleWeight: Float = 1e-12

    public private(set) var timeIndex: Int
    public private(set) var geometry: PersistenceGeometry?
    /// frames added since the last reset
    public private(set) var framesAdded = 0

    /// columns × rows hit weights, column-major (a column's rows are contiguous)
    private var cells: [Float] = []
    /// per column: decayed weight of the frames that had a level there
    private var frameWeights: [Float] = []
    /// one frame reduced to columns [dB], reused
    private var columnLevels: [Float] = []
    private let decimator = ColumnDecimator(detector: .peak)
    /// timestamp of the last frame added [s]
    private var lastTimestamp: Double?

    public init(timeIndex: Int = PersistenceModel.defaultTimeIndex) {
        self.timeIndex = min(max(timeIndex, 0), Self.persistenceTimes.count - 1)
    }

    /// the persistence time τ [s] (∞: no decay)
    public var persistenceSeconds: Double { Self.persistenceTimes[timeIndex] }

    // MARK: settings

    /// Longer (+) or shorter (−) persistence, by steps through the list. The
    /// hits so far stay: only their future decay changes.
    public func stepPersistence(by steps: Int) {
        timeIndex = min(max(timeIndex + steps, 0), Self.persistenceTimes.count - 1)
    }

    /// The listed persistence time nearest `seconds` (a typed value; ∞ is ∞).
    public func setPersistence(seconds: Double) {
        guard !seconds.isNaN else { return }
        let times = Self.persistenceTimes
        if seconds.isInfinite, let forever = times.firstIndex(of: .infinity) {
            timeIndex = forever
            return
        }
        timeIndex = times.indices.min { abs(times[$0] - seconds) < abs(times[$1] - seconds) } ?? timeIndex
    }

    /// Sets where the cells lie; a different geometry than before starts the
    /// histogram again (allocating only when the cell count grows).
    public func configure(_ wanted: PersistenceGeometry) {
        guard wanted != geometry else { return }
        geometry = wanted
        let columns = max(0, wanted.columns), rows = max(0, wanted.rows)
        if cells.count != columns * rows { cells = Array(repeating: 0, count: columns * rows) }
        if frameWeights.count != columns { frameWeights = Array(repeating: 0, count: columns) }
        if columnLevels.count != columns { columnLevels = Array(repeating: .nan, count: columns) }
        reset()
    }

    /// Forgets every hit (a replay jumped, the user asked).
    public func reset() {
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        frameWeights.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        lastTimestamp = nil
        framesAdded = 0
    }

    // MARK: frames

    /// The factor every weight is multiplied by when `seconds` pass: exp(−Δt / τ).
    public func decayFactor(afterSeconds seconds: Double) -> Float {
        let tau = persistenceSeconds
        guard seconds > 0, tau.isFinite else { return 1 }
        return Float(exp(-seconds / tau))
    }

    /// Adds a frame: decay by the time since the last one, then a hit in each
    /// column's level row. Nothing happens before a geometry is set. A frame
    /// more than a second older than the last starts the histogram again (a
    /// replay jumped back); a little older (clock jitter) decays nothing.
    public func add(_ frame: SpectrumFrame) {
        guard let geometry, geometry.columns > 0, geometry.rows > 0, frame.timestamp.isFinite,
              let scale = PowerScale(bottomDB: Float(geometry.bottomDB), topDB: Float(geometry.topDB),
                                     rows: geometry.rows) else { return }
        var elapsed = 0.0
        if let last = lastTimestamp {
            if frame.timestamp < last - 1 { reset() } else { elapsed = max(0, frame.timestamp - last) }
        }
        lastTimestamp = max(frame.timestamp, lastTimestamp ?? frame.timestamp)
        columnLevels.withUnsafeMutableBufferPointer { decimator.process(frame, scale: geometry.scale, into: $0) }
        let decay = decayFactor(afterSeconds: elapsed)
        let rows = geometry.rows
        cells.withUnsafeMutableBufferPointer { cells in
            frameWeights.withUnsafeMutableBufferPointer { weights in
                columnLevels.withUnsafeBufferPointer { levels in
                    if decay < 1 {
                        for i in 0..<cells.count {
                            let value = cells[i] * decay
                            cells[i] = value < Self.negligibleWeight ? 0 : value
                        }
                        for column in 0..<weights.count { weights[column] *= decay }
                    }
                    for column in 0..<levels.count {
                        // a column the frame does not cover (NaN) neither hits nor counts
                        guard let row = scale.row(for: levels[column]) else { continue }
                        weights[column] += 1
                        cells[column * rows + row] += 1
                    }
                }
            }
        }
        framesAdded += 1
    }

    // MARK: reading

    /// The decayed weight of hits in a cell (0 outside).
    public func hits(column: Int, row: Int) -> Float {
        guard let geometry, column >= 0, column < geometry.columns, row >= 0, row < geometry.rows else { return 0 }
        return cells[column * geometry.rows + row]
    }

    /// The decayed weight of frames counted in a column (0 outside).
    public func frameWeight(column: Int) -> Float {
        guard column >= 0, column < frameWeights.count else { return 0 }
        return frameWeights[column]
    }

    /// The fraction of (recent, weighted) frames whose level in `column` fell
    /// in `row`, 0…1; 0 where nothing was counted.
    public func density(column: Int, row: Int) -> Float {
        let frames = frameWeight(column: column)
        guard frames > 0 else { return 0 }
        return min(1, hits(column: column, row: row) / frames)
    }

    /// Densities of column `column` for every row into `out` (count = rows),
    /// for a renderer that reads a column at a time without bounds checks per cell.
    public func densities(column: Int, into out: UnsafeMutableBufferPointer<Float>) {
        guard let geometry, column >= 0, column < geometry.columns, out.count == geometry.rows else { return }
        let frames = frameWeights[column]
        let rows = geometry.rows
        cells.withUnsafeBufferPointer { cells in
            for row in 0..<rows {
                out[row] = frames > 0 ? min(1, cells[column * rows + row] / frames) : 0
            }
        }
    }

    /// Where `density` sits on the log scale: log10(density) from
    /// `minimumDensity` (0.1 %, giving 0) to 1 (giving 1); below the
    /// minimum it is negative, NaN stays NaN.
    @inline(__always)
    public static func logFraction(density: Float) -> Float {
        let decades = -log10(minimumDensity)  // 3
        return (log10(density) + decades) / decades
    }

    /// The palette level (PowerColorMap's 0…1) that draws `density`: its
    /// log fraction spread over `lowestPaletteLevel`…1, so a burst present
    /// 1 % of the time sits a third of the way up, well clear of the
    /// background; nil below 0.1 % (drawn as background).
    @inline(__always)
    public static func paletteLevel(density: Float) -> Float? {
        guard density >= minimumDensity else { return nil }  // also NaN
        return lowestPaletteLevel + (1 - lowestPaletteLevel) * min(1, logFraction(density: density))
    }
}
