import Foundation
import Signals

/// Which part of a capture to draw: times as Unix time or as seconds after
/// the first frame, frequencies in Hz; nil = no limit.
public struct WaterfallCrop: Sendable, Equatable {
    public enum TimeBound: Sendable, Equatable {
        /// [s since the Unix epoch]
        case absolute(Double)
        /// [s after the first frame]
        case afterStart(Double)
    }

    public var start: TimeBound?
    public var end: TimeBound?
    /// [Hz]
    public var lowHz: Double?
    /// [Hz]
    public var highHz: Double?

    public init(start: TimeBound? = nil, end: TimeBound? = nil, lowHz: Double? = nil, highHz: Double? = nil) {
        self.start = start
        self.end = end
        self.lowHz = lowHz
        self.highHz = highHz
    }
}

/// What an export drew.
public struct WaterfallSummary: Sendable, Equatable {
    /// picture size [px]
    public var width: Int
    public var height: Int
    /// frames drawn (inside the crop)
    public var frames: Int
    /// data rows and columns of the plot area; each data row is `rowHeight` px tall
    public var plotRows: Int
    public var plotColumns: Int
    /// pixel rows per data row: a short capture is stretched to at least
    /// `PNGWaterfallExporter.minPlotHeight` px by whole-pixel repeats
    public var rowHeight: Int
    /// band drawn [Hz]
    public var lowHz: Double
    public var highHz: Double
    /// colour scale: the floor colour at `floorDB`, white at `topDB` [dB]
    public var floorDB: Float
    public var topDB: Float
    /// every text label drawn (for checks that none is clipped or overlaps)
    var labels: [WaterfallLabel] = []
}

/// Draws a capture as a waterfall PNG: frequency across, time down (first
/// frame at the top), Signals.PowerColorMap from the quietest to the loudest
/// value in the crop, labelled axes (frequency ticks above, UTC times left,
/// the dB scale right, `WaterfallAxes`) in tscope's bitmap font, written by
/// libpng. The plot is at least `minPlotHeight` px tall: with fewer data rows
/// each is repeated a whole number of times, so one sweep is a readable band.
///
/// Two passes over the input in constant memory: the first finds the band,
/// the frames and the level range inside the crop; the second draws. Many
/// frames share a row and many bins a column by taking the maximum (a short
/// burst is never averaged away); a picture is at most `maxRows` ×
/// `maxColumns` plot pixels, and at least `minColumns` wide (narrow captures
/// get wider pixels).
public struct PNGWaterfallExporter {
    public var crop: WaterfallCrop
    public var maxRows: Int
    public var maxColumns: Int
    public var minColumns: Int
    /// allocations drawn under the plot with their labels (`WaterfallBandPlanStrip`); nil: none
    public var bandPlan: BandPlan?
    /// frequency across on a logarithmic axis (`--log-frequency`, `FrequencyScale`): the band must start above 0 Hz
    public var logFrequency = false

    static let background = PowerColorMap.RGB(red: 24, green: 24, blue: 24)
    static let ink = PowerColorMap.RGB(red: 230, green: 230, blue: 230)
    /// plot pixels no frame covered
    static let noData = PowerColorMap.RGB(red: 0, green: 0, blue: 0)
    static var leftMargin: Int { WaterfallAxes.leftMargin }
    static var topMargin: Int { WaterfallAxes.topMargin }
    static var bottomMargin: Int { WaterfallAxes.bottomMargin }
    /// least plot height [px]
    public static let minPlotHeight = 256

    public init(crop: WaterfallCrop = WaterfallCrop(), maxRows: Int = 2000, maxColumns: Int = 2000, minColumns: Int = 512) {
        self.crop = crop
        self.maxRows = max(1, maxRows)
        self.maxColumns = max(1, maxColumns)
        self.minColumns = min(max(1, minColumns), self.maxColumns)
    }

    /// First pass: what lies inside the crop.
    struct Survey {
        var frames = 0
        var firstTime = Double.nan
        var lastTime = Double.nan
        var lowHz = Double.infinity
        var highHz = -Double.infinity
        var narrowestBinHz = Double.infinity
        var floorDB = Float.infinity
        var topDB = -Float.infinity
        var startTime = -Double.infinity
        var endTime = Double.infinity
        /// the levels' unit, from the capture's metadata
        var unit = PowerUnit.dB
    }

    /// Reads `open()` twice and writes the picture to `path`; `input` names
    /// what is read in errors about it (no frames), `path` if empty.
    public func export(open: () throws -> SpectrumFrameReader, to path: String, title: String,
                       input: String = "") throws -> WaterfallSummary {
        let survey = try surveyFrames(try open(), file: input.isEmpty ? path : input)
        let band = (low: max(survey.lowHz, crop.lowHz ?? -.infinity), high: min(survey.highHz, crop.highHz ?? .infinity))
        if logFrequency, let range = FrequencyRange(lowerHz: band.low, upperHz: band.high) {
            try LogFrequencyError.check(range)
        }
        let bins = Int(saturating: ((band.high - band.low) / survey.narrowestBinHz).rounded())
        let columns = min(maxColumns, max(minColumns, bins))
        let rows = min(maxRows, survey.frames)
        var grid = [Float](repeating: .nan, count: rows * columns)
        var rowTimes = [Double](repeating: .nan, count: rows)
        try drawFrames(try open(), survey: survey, band: band, rows: rows, columns: columns, grid: &grid, rowTimes: &rowTimes)

        let floor = survey.floorDB.isFinite ? survey.floorDB : -100
        var top = survey.topDB.isFinite ? survey.topDB : floor + 1
        if top <= floor { top = floor + 1 }
        var axes = WaterfallAxes(left: Self.leftMargin, top: Self.topMargin, columns: columns, rows: rows,
                                 rowHeight: (Self.minPlotHeight + rows - 1) / rows)
        axes.unit = survey.unit
        axes.logFrequency = logFrequency
        var image = RGBImage(width: Self.leftMargin + columns
                                + WaterfallAxes.rightMargin(floorDB: floor, topDB: top, unit: axes.unit),
                             height: Self.topMargin + axes.height + Self.bottomMargin
                                + (bandPlan.map { WaterfallBandPlanStrip.height(lanes: $0.laneCount) } ?? 0),
                             fill: Self.background)
        paint(grid: grid, axes: axes, floor: floor, top: top, into: &image)
        var labels = axes.draw(into: &image, title: title, lowHz: band.low, highHz: band.high, rowTimes: rowTimes,
                               floorDB: floor, topDB: top)
        if let bandPlan {
            let planLabels = WaterfallBandPlanStrip(plan: bandPlan).draw(into: &image, axes: axes, lowHz: band.low,
                                                                        highHz: band.high, existing: labels)
            for label in planLabels { image.draw(label.text, x: label.x, y: label.y, color: Self.ink) }
            labels += planLabels
        }
        // beside `path` under a temporary name, renamed when complete: a failed write leaves nothing
        let output = AtomicOutput(target: path)
        do {
            try image.writePNG(path: output.path)
            try output.commit()
        } catch {
            throw output.naming(error)
        }
        return WaterfallSummary(width: image.width, height: image.height, frames: survey.frames, plotRows: rows,
                                plotColumns: columns, rowHeight: axes.rowHeight, lowHz: band.low, highHz: band.high,
                                floorDB: floor, topDB: top, labels: labels)
    }

    private func surveyFrames(_ reader: SpectrumFrameReader, file: String) throws -> Survey {
        var survey = Survey()
        survey.unit = reader.metadata.levelUnit
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var first: Double?
        while try reader.next(into: &frame) {
            if first == nil {
                first = frame.timestamp
                survey.startTime = resolve(crop.start, first: frame.timestamp) ?? -.infinity
                survey.endTime = resolve(crop.end, first: frame.timestamp) ?? .infinity
            }
            guard frame.timestamp >= survey.startTime, frame.timestamp <= survey.endTime else { continue }
            let low = max(frame.startHz, crop.lowHz ?? -.infinity)
            let high = min(frame.stopHz, crop.highHz ?? .infinity)
            guard low < high else { continue }
            survey.frames += 1
            if survey.firstTime.isNaN { survey.firstTime = frame.timestamp }
            survey.lastTime = frame.timestamp
            survey.lowHz = min(survey.lowHz, low)
            survey.highHz = max(survey.highHz, high)
            survey.narrowestBinHz = min(survey.narrowestBinHz, frame.binWidthHz)
            frame.powerDB.withUnsafeBufferPointer { values in
                for (i, value) in values.enumerated() where value.isFinite {
                    let center = frame.binCenterHz(i)
                    guard center >= low, center <= high else { continue }
                    survey.floorDB = min(survey.floorDB, value)
                    survey.topDB = max(survey.topDB, value)
                }
            }
        }
        guard survey.frames > 0 else {
            throw CaptureError(file: file, first == nil ? "no frames to draw"
                : "no frame lies inside the crop (--start/--end/--low/--high)")
        }
        return survey
    }

    private func resolve(_ bound: WaterfallCrop.TimeBound?, first: Double) -> Double? {
        switch bound {
        case .absolute(let time): return time
        case .afterStart(let seconds): return first + seconds
        case nil: return nil
        }
    }

    /// Second pass: the maximum of every bin and frame over each plot pixel.
    private func drawFrames(_ reader: SpectrumFrameReader, survey: Survey, band: (low: Double, high: Double),
                            rows: Int, columns: Int, grid: inout [Float], rowTimes: inout [Double]) throws {
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        var index = 0
        // each bin paints every column it overlaps, placed by the one column ↔ frequency function
        let scale = FrequencyScale(band: FrequencyRange(lowerHz: band.low, upperHz: band.high)
                                       ?? FrequencyRange(lowerHz: 0, upperHz: 1)!, logarithmic: logFrequency)
        func position(_ hz: Double) -> Double { max(-1, min(Double(columns) + 1, scale.fraction(ofHz: hz) * Double(columns))) }
        try grid.withUnsafeMutableBufferPointer { pixels in
            while try reader.next(into: &frame), index < survey.frames {
                guard frame.timestamp >= survey.startTime, frame.timestamp <= survey.endTime,
                      max(frame.startHz, band.low) < min(frame.stopHz, band.high) else { continue }
                let row = index * rows / survey.frames
                index += 1
                if rowTimes[row].isNaN { rowTimes[row] = frame.timestamp }
                let base = row * columns
                frame.powerDB.withUnsafeBufferPointer { values in
                    for (i, value) in values.enumerated() where !value.isNaN {
                        let lower = frame.startHz + Double(i) * frame.binWidthHz
                        let upper = lower + frame.binWidthHz
                        guard upper > band.low, lower < band.high else { continue }
                        let first = max(0, Int(saturating: position(lower).rounded(.down)))
                        let last = min(columns - 1, Int(saturating: position(upper).rounded(.up)) - 1)
                        guard first <= last else { continue }
                        for column in first...last {
                            let current = pixels[base + column]
                            if current.isNaN || value > current { pixels[base + column] = value }
                        }
                    }
                }
            }
        }
    }

    /// Each data row as `axes.rowHeight` identical pixel rows.
    private func paint(grid: [Float], axes: WaterfallAxes, floor: Float, top: Float, into image: inout RGBImage) {
        let scale = 1 / (top - floor)
        let columns = axes.columns
        for row in 0..<axes.rows {
            for column in 0..<columns {
                let value = grid[row * columns + column]
                let color = value.isNaN ? Self.noData : PowerColorMap.color(normalized: (value - floor) * scale)
                for repeated in 0..<axes.rowHeight {
                    image.set(axes.left + column, axes.top + row * axes.rowHeight + repeated, color)
                }
            }
        }
    }
}
