import DSP
import Signals
import Terminal
import ViewModels

/// Draws the waterfall: frequency across (the plot's band and axis), time
/// down with the newest row at the top, power as colour from
/// `PowerColorMap` over the plot's dB window, two pixel rows per cell
/// (half blocks), and a time axis on the left in seconds before now.
///
/// A colour bar at the right edge shows the dB window the colours span.
///
/// Each history row is reduced to pixel columns once (peak or average
/// detector, from the drawer) and kept in a cache beside the ring, refreshed
/// only when the row changes or the band, width or detector does; a redraw
/// then combines cached columns per pixel row (max, or the mean) and paints. Storage is allocated when the layout changes, so a
/// steady redraw allocates nothing.
public final class WaterfallView {
    static let axisStyle = FrequencyAxis.style

    private var layout = PlotLayout(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private var canvas = HalfBlockCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    private let decimator = ColumnDecimator(detector: .peak)
    /// the colour bar beside the image (two pixel rows per cell)
    private var legendCanvas = HalfBlockCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    /// the history rows each pixel row shows
    private var spans: [WaterfallRowSpan] = []
    /// one pixel row's power per column [dB]
    private var rowValues: [Float] = []
    /// cached columns per ring slot: capacity × width [dB]
    private var cache: [Float] = []
    /// per ring slot: the sequence and version the cache holds (−1: none)
    private var cachedSequence: [Int] = []
    private var cachedVersion: [Int] = []
    /// what the cache was computed for
    private var cacheKey: CacheKey?
    /// PowerColorMap's table as terminal colours
    private let colors: [Color] = PowerColorMap.table.map { Color.rgb($0.red, $0.green, $0.blue) }
    private var drawnAxesKey: AxesKey?

    public init() {}

    public func invalidate() {
        drawnAxesKey = nil
    }

    /// Pixel rows the waterfall image has inside `area` (2 per cell).
    static func dataRect(in area: Rect) -> Rect { layout(in: area).plot }

    static func layout(in area: Rect) -> PlotLayout { PlotLayout(area: area, legendWidth: PlotLayout.legendWidth) }

    /// Renders `model`'s history for the visible `band`, coloured over
    /// `bottomDB`…`topDB` (shown by the colour bar, labelled in `unit`),
    /// with the top of the view at `now` − offset; `detector` reduces bins
    /// to columns and combines rows thinner than a pixel.
    /// - Parameter eventTimes: start times of events [s since the Unix epoch], marked by a tick at the
    ///   left edge of their row (kept when scrolling back: they move with the rows)
    /// - Parameter logFrequency: frequency across on a logarithmic axis (`FrequencyScale`)
    public func render(model: WaterfallModel, band: FrequencyRange, logFrequency: Bool = false, bottomDB: Double,
                       topDB: Double, now: Double, detector: ColumnDetector = .peak, unit: PowerUnit = .dB,
                       eventTimes: [Double] = [], in area: Rect, into buffer: inout Buffer) {
        let scale = FrequencyScale(band: band, logarithmic: logFrequency)
        let size = Self.layout(in: area)
        if size != layout || canvas.area != size.plot {
            layout = size
            canvas = HalfBlockCanvas(area: size.plot)
            legendCanvas = HalfBlockCanvas(area: Rect(x: size.legend.x + 1, y: size.legend.y,
                                                      width: min(2, size.legend.width), height: size.legend.height))
            spans = Array(repeating: .empty, count: size.plot.height * 2)
            rowValues = Array(repeating: .nan, count: size.plot.width)
            drawnAxesKey = nil
            cacheKey = nil
        }
        let history = model.history
        let wantedCache = CacheKey(scale: scale, width: size.plot.width, capacity: history.capacity, detector: detector)
        if wantedCache != cacheKey {
            decimator.detector = detector
            if cache.count != history.capacity * size.plot.width {
                cache = Array(repeating: .nan, count: history.capacity * size.plot.width)
                cachedSequence = Array(repeating: -1, count: history.capacity)
                cachedVersion = Array(repeating: -1, count: history.capacity)
            } else {
                cachedSequence.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
            }
            cacheKey = wantedCache
        }
        let axesKey = AxesKey(scale: scale, area: area, periodIndex: model.periodIndex, offset: model.offsetSeconds,
                              bottomDB: bottomDB, topDB: topDB, unit: unit)
        if axesKey != drawnAxesKey {
            buffer.fill(area, with: .blank)
            if layout.showsAxes {
                drawTimeAxis(model: model, into: &buffer)
                FrequencyAxis.draw(scale: scale, layout: layout, cornerLabel: "ago", into: &buffer)
                drawLegend(bottomDB: bottomDB, topDB: topDB, unit: unit, into: &buffer)
            }
            drawnAxesKey = axesKey
        }
        guard !layout.plot.isEmpty else { return }
        spans.withUnsafeMutableBufferPointer { model.mapRows(now: now, into: $0) }
        let span = Float(topDB - bottomDB)
        let bottom = Float(bottomDB)
        let top = PowerColorMap.tableSize - 1
        for y in 0..<spans.count {
            let rowSpan = spans[y]
            guard !rowSpan.isEmpty else {
                for x in 0..<canvas.pixelWidth { canvas.set(x: x, y: y, color: .default) }
                continue
            }
            combine(rowSpan, history: history, mean: detector == .mean)
            rowValues.withUnsafeBufferPointer { values in
                for x in 0..<values.count {
                    let value = values[x]
                    guard !value.isNaN else {
                        canvas.set(x: x, y: y, color: .default)
                        continue
                    }
                    let level = span > 0 ? (value - bottom) / span : 0
                    canvas.set(x: x, y: y, color: colors[min(PowerColorMap.index(normalized: level), top)])
                }
            }
        }
        canvas.render(into: &buffer)
        guard !eventTimes.isEmpty else { return }
        let pixelRows = spans.count
        let topTime = model.topTime(now: now, pixelRows: pixelRows)
        let secondsPerPixel = model.secondsPerPixel(pixelRows: pixelRows)
        for time in eventTimes {
            let pixel = (topTime - time) / secondsPerPixel
            guard pixel >= 0, pixel < Double(pixelRows) else { continue }
            buffer.set(x: layout.plot.x, y: layout.plot.y + Int(pixel) / 2, Cell("▶", style: Self.eventTickStyle))
        }
    }

    /// the tick at the left edge of a row where an event started
    static let eventTickStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(200, 0, 120))

    /// Max (or, with `mean`, the linear-power mean) of the cached columns of
    /// every row in `span` into `rowValues`.
    private func combine(_ span: WaterfallRowSpan, history: WaterfallHistory, mean: Bool) {
        let width = rowValues.count
        let averaging = mean && span.end - span.first > 1
        rowValues.withUnsafeMutableBufferPointer { out in
            out.update(repeating: averaging ? 0 : .nan)
            for sequence in span.first..<span.end {
                let slot = refresh(sequence, history: history, width: width)
                cache.withUnsafeBufferPointer { cached in
                    let base = slot * width
                    if averaging {
                        // sum of linear power; NaN (no data) poisons the pixel, as with max
                        for x in 0..<width { out[x] += Float(Units.power(decibels: Double(cached[base + x]))) }
                    } else {
                        for x in 0..<width {
                            let value = cached[base + x]
                            if value > out[x] || out[x].isNaN { out[x] = value }
                        }
                    }
                }
            }
            if averaging {
                let rows = Float(span.end - span.first)
                for x in 0..<width { out[x] = Float(Units.decibels(power: Double(out[x] / rows))) }
            }
        }
    }

    /// The colour bar: `bottomDB` at the bottom of the image, `topDB` at its
    /// top, the same map as the image, labelled in dB (or dBm) to its right.
    private func drawLegend(bottomDB: Double, topDB: Double, unit: PowerUnit, into buffer: inout Buffer) {
        let area = layout.legend
        guard area.width >= 4, area.height >= 2, topDB > bottomDB else { return }
        let pixelRows = legendCanvas.pixelHeight
        let top = PowerColorMap.tableSize - 1
        for y in 0..<pixelRows {
            // pixel row y's centre, as a level between the edges
            let level = Float(1 - (Double(y) + 0.5) / Double(pixelRows))
            let color = colors[min(PowerColorMap.index(normalized: level), top)]
            for x in 0..<legendCanvas.pixelWidth { legendCanvas.set(x: x, y: y, color: color) }
        }
        legendCanvas.render(into: &buffer)
        let labelX = area.x + 4
        let ticks = AxisTicks.ticks(lower: bottomDB, upper: topDB, targetCount: max(2, area.height / 4))
        for value in ticks {
            let row = Int(((topDB - value) / (topDB - bottomDB) * Double(area.height)).rounded(.down))
            guard row >= 0, row < area.height else { continue }
            let label = FrequencyFormat.trimmed(value, maxFractionDigits: 1)
            _ = buffer.put(label, x: labelX - 1, y: area.y + row, style: Self.axisStyle)
        }
        _ = buffer.put(unit.rawValue, x: labelX - 1, y: area.maxY + 1, style: Self.axisStyle)
    }

    /// Makes the cache hold `sequence`'s columns; returns its ring slot.
    private func refresh(_ sequence: Int, history: WaterfallHistory, width: Int) -> Int {
        let slot = sequence % history.capacity
        let info = history.info(sequence)
        guard cachedSequence[slot] != sequence || cachedVersion[slot] != info.version,
              let scale = cacheKey?.scale else { return slot }
        cache.withUnsafeMutableBufferPointer { cached in
            let columns = UnsafeMutableBufferPointer(rebasing: cached[(slot * width)..<((slot + 1) * width)])
            decimator.process(startHz: info.startHz, binWidthHz: info.binWidthHz, bins: history.bins(sequence),
                              scale: scale, into: columns)
        }
        cachedSequence[slot] = sequence
        cachedVersion[slot] = info.version
        return slot
    }

    private func drawTimeAxis(model: WaterfallModel, into buffer: inout Buffer) {
        let area = layout.levelAxis
        let lineX = area.x + area.width - 1
        for y in area.y..<(area.y + area.height) {
            buffer.set(x: lineX, y: y, Cell("│", style: Self.axisStyle))
        }
        let pixelRows = area.height * 2
        let first = model.offsetSeconds
        let last = model.secondsBeforeNow(atPixelRow: pixelRows, pixelRows: pixelRows)
        let step = secondsSpacing(span: last - first, rows: area.height)
        // the top row is always labelled (scrolled back, with the offset)
        let topLabel = Self.label(secondsAgo: first)
        _ = buffer.put(topLabel, x: lineX - topLabel.count, y: area.y, style: Self.axisStyle)
        buffer.set(x: lineX, y: area.y, Cell("┤", style: Self.axisStyle))
        var value = (first / step).rounded(.up) * step
        while value < last {
            let pixel = (value - first) / model.secondsPerPixel(pixelRows: pixelRows)
            let y = area.y + Int(pixel / 2)
            // ticks too close under the top label are left out
            if y < area.maxY, y == area.y || y > area.y + 1 {
                let label = Self.label(secondsAgo: value)
                _ = buffer.put(label, x: lineX - label.count, y: y, style: Self.axisStyle)
                buffer.set(x: lineX, y: y, Cell("┤", style: Self.axisStyle))
            }
            value += step
        }
    }

    /// A tick spacing [s] from 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10 min giving
    /// a label about every four rows.
    private func secondsSpacing(span: Double, rows: Int) -> Double {
        let wanted = span / Double(max(1, rows / 4))
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200]
        return steps.first { $0 >= wanted } ?? steps[steps.count - 1]
    }

    /// "0s", "45s", "2m", "1m30", "12m"
    static func label(secondsAgo: Double) -> String {
        let seconds = Int(secondsAgo.rounded())
        if seconds < 60 { return "\(seconds)s" }
        let minutes = seconds / 60, rest = seconds % 60
        return rest == 0 ? "\(minutes)m" : "\(minutes)m\(rest < 10 ? "0" : "")\(rest)"
    }
}

private struct CacheKey: Equatable {
    var scale: FrequencyScale
    var width: Int
    var capacity: Int
    var detector: ColumnDetector
}

private struct AxesKey: Equatable {
    var scale: FrequencyScale
    var area: Rect
    var periodIndex: Int
    var offset: Double
    var bottomDB: Double
    var topDB: Double
    var unit: PowerUnit
}
