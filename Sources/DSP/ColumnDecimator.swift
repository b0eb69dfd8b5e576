import Foundation
import Signals

/// How a pixel column summarises the bins that fall into it.
public enum ColumnDetector: Sendable, Equatable {
    /// the strongest bin (a bench analyzer's positive-peak detector): a
    /// one-bin carrier survives any decimation
    case peak
    /// the mean of the bins' linear power, back in dB (an average detector)
    case mean
}

/// Maps the bins of a spectrum onto `columns` pixel columns covering a visible
/// band.
///
/// Column `c` covers [scale.lowerHz(ofColumn: c), scale.lowerHz(ofColumn: c + 1))
/// — on a linear scale [lower + c·w, lower + (c+1)·w) with w = span / columns,
/// on a logarithmic one (`--log-frequency`) a range growing with f, the same
/// ratio per column — and takes every bin whose centre lies inside it, so
/// every bin reaches exactly one column either way. A column that holds no bin
/// centre (bins wider than columns) takes the bin under its own centre; a
/// column with neither lies outside the data and gets NaN. NaN bins are
/// ignored; a column whose bins are all NaN is NaN.
///
/// The per-column bin ranges depend only on the geometry (bin start, bin
/// width, bin count, visible band, column count); they are computed when the
/// geometry changes and reused, so `process` allocates nothing for a steady
/// stream of frames.
public final class ColumnDecimator {
    public var detector: ColumnDetector

    /// geometry the column ranges below were computed for
    private var geometry: Geometry?
    /// first bin of each column (inclusive)
    private var firstBin: [Int32] = []
    /// end bin of each column (exclusive); first == end marks a NaN column
    private var endBin: [Int32] = []

    public init(detector: ColumnDetector = .peak) {
        self.detector = detector
    }

    /// Decimates `bins` (bin `i` spans [startHz + i·binWidthHz, …+binWidthHz))
    /// into `columns`, one value per column across `visible`. Bad geometry
    /// (non-finite or non-positive bin width) yields all-NaN columns.
    public func process(
        startHz: Double,
        binWidthHz: Double,
        bins: UnsafeBufferPointer<Float>,
        visible: FrequencyRange,
        into columns: UnsafeMutableBufferPointer<Float>
    ) {
        process(startHz: startHz, binWidthHz: binWidthHz, bins: bins, scale: .linear(visible), into: columns)
    }

    /// Decimates `bins` into `columns` laid across `scale` (linear or logarithmic).
    public func process(
        startHz: Double,
        binWidthHz: Double,
        bins: UnsafeBufferPointer<Float>,
        scale: FrequencyScale,
        into columns: UnsafeMutableBufferPointer<Float>
    ) {
        let wanted = Geometry(
            startHz: startHz, binWidthHz: binWidthHz, binCount: bins.count,
            scale: scale, columnCount: columns.count
        )
        if geometry != wanted { prepare(for: wanted) }
        firstBin.withUnsafeBufferPointer { first in
            endBin.withUnsafeBufferPointer { end in
                switch detector {
                case .peak: Self.peakColumns(bins: bins, first: first, end: end, into: columns)
                case .mean: Self.meanColumns(bins: bins, first: first, end: end, into: columns)
                }
            }
        }
    }

    /// Decimates a frame into `columns`.
    public func process(
        _ frame: SpectrumFrame, visible: FrequencyRange, into columns: UnsafeMutableBufferPointer<Float>
    ) {
        process(frame, scale: .linear(visible), into: columns)
    }

    /// Decimates a frame into `columns` laid across `scale`.
    public func process(
        _ frame: SpectrumFrame, scale: FrequencyScale, into columns: UnsafeMutableBufferPointer<Float>
    ) {
        frame.powerDB.withUnsafeBufferPointer { bins in
            process(startHz: frame.startHz, binWidthHz: frame.binWidthHz, bins: bins, scale: scale, into: columns)
        }
    }

    /// Convenience for callers that do not keep an output buffer: allocates
    /// the returned array. `visible` may be narrower or wider than the frame.
    public func decimate(_ frame: SpectrumFrame, visible: FrequencyRange, columns: Int) -> [Float] {
        decimate(frame, scale: .linear(visible), columns: columns)
    }

    /// As `decimate(_:visible:columns:)`, across `scale`.
    public func decimate(_ frame: SpectrumFrame, scale: FrequencyScale, columns: Int) -> [Float] {
        var result = [Float](repeating: .nan, count: max(0, columns))
        result.withUnsafeMutableBufferPointer { process(frame, scale: scale, into: $0) }
        return result
    }

    // MARK: geometry

    struct Geometry: Equatable {
        var startHz: Double
        var binWidthHz: Double
        var binCount: Int
        var scale: FrequencyScale
        var columnCount: Int

        /// lower edge of column `c` [Hz]; shared with the scalar reference
        func columnLowerHz(_ c: Int) -> Double {
            scale.lowerHz(ofColumn: c, of: columnCount)
        }

        /// centre of bin `i` [Hz]; shared with the scalar reference
        func binCenterHz(_ i: Int) -> Double {
            startHz + (Double(i) + 0.5) * binWidthHz
        }

        var isValid: Bool { binWidthHz.isFinite && binWidthHz > 0 && startHz.isFinite }
    }

    private func prepare(for wanted: Geometry) {
        geometry = wanted
        let columns = wanted.columnCount
        if firstBin.count != columns {
            firstBin = [Int32](repeating: 0, count: columns)
            endBin = [Int32](repeating: 0, count: columns)
        }
        guard wanted.isValid, wanted.binCount > 0 else {
            for c in 0..<columns { firstBin[c] = 0; endBin[c] = 0 }
            return
        }
        for c in 0..<columns {
            let lower = wanted.columnLowerHz(c)
            let upper = wanted.columnLowerHz(c + 1)
            let first = Self.firstBinCentred(atOrAbove: lower, in: wanted)
            let end = Self.firstBinCentred(atOrAbove: upper, in: wanted)
            if first < end {
                firstBin[c] = Int32(first)
                endBin[c] = Int32(end)
            } else {
                // No centre inside: the bin under the column centre, if any.
                let centre = (lower + upper) / 2
                let under = ((centre - wanted.startHz) / wanted.binWidthHz).rounded(.down)
                if under >= 0, under < Double(wanted.binCount) {
                    firstBin[c] = Int32(under)
                    endBin[c] = Int32(under) + 1
                } else {
                    firstBin[c] = 0
                    endBin[c] = 0
                }
            }
        }
    }

    /// Smallest bin index whose centre is ≥ `hz` (binCount if none): a
    /// closed-form guess, then nudged so the answer agrees exactly with the
    /// comparison `binCenterHz(i) >= hz` the reference uses.
    private static func firstBinCentred(atOrAbove hz: Double, in g: Geometry) -> Int {
        let guess = ((hz - g.startHz) / g.binWidthHz - 0.5).rounded(.up)
        var i = Int(max(0, min(Double(g.binCount), guess)))
        while i > 0, g.binCenterHz(i - 1) >= hz { i -= 1 }
        while i < g.binCount, g.binCenterHz(i) < hz { i += 1 }
        return i
    }

    // MARK: detectors (hot loops)

    private static func peakColumns(
        bins: UnsafeBufferPointer<Float>,
        first: UnsafeBufferPointer<Int32>,
        end: UnsafeBufferPointer<Int32>,
        into columns: UnsafeMutableBufferPointer<Float>
    ) {
        for c in 0..<columns.count {
            var peak = -Float.infinity
            var found = false
            var i = Int(first[c])
            let stop = Int(end[c])
            while i < stop {
                let value = bins[i]
                if !value.isNaN {
                    found = true
                    if value > peak { peak = value }
                }
                i += 1
            }
            columns[c] = found ? peak : .nan
        }
    }

    /// ln(10) / 10: dB → natural-log power exponent
    private static let decibelToExponent = Float(M_LN10 / 10)

    private static func meanColumns(
        bins: UnsafeBufferPointer<Float>,
        first: UnsafeBufferPointer<Int32>,
        end: UnsafeBufferPointer<Int32>,
        into columns: UnsafeMutableBufferPointer<Float>
    ) {
        for c in 0..<columns.count {
            var sum: Float = 0  // linear power
            var count = 0
            var i = Int(first[c])
            let stop = Int(end[c])
            while i < stop {
                let value = bins[i]
                if !value.isNaN {
                    sum += expf(value * decibelToExponent)
                    count += 1
                }
                i += 1
            }
            columns[c] = count > 0 ? 10 * log10f(sum / Float(count)) : .nan
        }
    }
}
