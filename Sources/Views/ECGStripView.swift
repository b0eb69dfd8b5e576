import ECG
import Terminal
import ViewModels

/// Draws ECG strips into any rect of a buffer: the paper grid, a 1 mV
/// calibration pulse at the left of each strip, the sweep traces in braille
/// and the lead names. Either the leads stacked one strip per lead, or the
/// 12-lead printout (three rows of four leads, a quarter of the strip's time
/// each, and a rhythm strip).
///
/// Storage (canvas, sweep and span scratch, the drawn grid) is allocated when
/// the rect, strip length, sample rate or arrangement changes; an ordinary
/// frame allocates nothing.
public final class ECGStripView {
    static let traceColor = Color.rgb(90, 255, 140)
    static let calibrationColor = Color.rgb(210, 210, 210)
    static let labelStyle = CellStyle(foreground: .rgb(255, 255, 255), attributes: [.bold])
    /// ECG paper's reds on a dark screen: minor lines dim, major lines bright
    static let minorStyle = CellStyle(foreground: .rgb(100, 34, 44))
    static let majorStyle = CellStyle(foreground: .rgb(205, 65, 80))
    /// a reference beat (the record's `.atr`) above the trace
    static let referenceBeatMark = Cell("▾", style: CellStyle(foreground: .rgb(255, 210, 60), attributes: [.bold]))
    /// a classified beat's class under it, in the band's bottom row: V (ventricular) and S
    /// (supraventricular) ectopic beats, Q unclassifiable, as a monitor labels them
    static let ventricularMark = Cell("V", style: CellStyle(foreground: .rgb(255, 110, 90), attributes: [.bold]))
    static let supraventricularMark = Cell("S", style: CellStyle(foreground: .rgb(120, 200, 255), attributes: [.bold]))
    static let unclassifiableMark = Cell("Q", style: CellStyle(foreground: .rgb(150, 150, 150)))
    /// an annotation's mark and text in the band's top row
    static let annotationStyle = CellStyle(foreground: .rgb(120, 200, 255), attributes: [.bold])
    /// longest annotation text drawn [cells]
    static let annotationWidth = 16
    /// narrowest rect that gets a calibration pulse [cells]
    static let minimumWidthForCalibration = 16

    private var canvas = BrailleCanvas(area: Rect(x: 0, y: 0, width: 0, height: 0))
    /// one band's positions [mV]
    private var sweep: [Float] = []
    /// per dot column of the trace area: rows covered
    private var spanTop: [Int32] = []
    private var spanBottom: [Int32] = []
    /// the paper as last drawn, row-major over `gridKey.rect`
    private var gridCells: [Cell] = []
    private var gridKey: GridKey?

    public init() {}

    /// The leads `leads` of `model`, one strip each, stacked in `rect`.
    public func render(model: ECGStripModel, leads: Range<Int>, in rect: Rect, into buffer: inout Buffer) {
        let clipped = rect.intersection(buffer.area)
        let bandCount = max(0, min(leads.count, clipped.height))
        prepare(model: model, rect: clipped, bandCount: bandCount, into: &buffer)
        guard bandCount > 0, let geometry = gridKey else { return }
        for band in 0..<bandCount {
            let lead = leads.lowerBound + band
            let area = bandRect(band, of: bandCount, in: clipped)
            fillSweep(length: model.sweepLength) { out in model.sweep(lead: lead, fromPosition: 0, into: out) }
            drawBand(area, model: model, geometry: geometry)
        }
        canvas.render(into: &buffer)
        for band in 0..<bandCount where leads.lowerBound + band < model.leadCount {
            let area = bandRect(band, of: bandCount, in: clipped)
            label(model.leadNames[leads.lowerBound + band], x: area.x + geometry.calibrationColumns, y: area.y,
                  limit: area.maxX, into: &buffer)
            markReferenceBeats(model: model, area: area, geometry: geometry, into: &buffer)
        }
    }

    /// The 12-lead printout of `model` in `rect`: rows I/aVR/V1/V4,
    /// II/aVL/V2/V5, III/aVF/V3/V6 (each column a quarter of the strip), and
    /// the rhythm strip across the full strip below.
    public func renderTwelveLead(model: ECGStripModel, layout: ECGTwelveLeadLayout, in rect: Rect,
                                 into buffer: inout Buffer) {
        let clipped = rect.intersection(buffer.area)
        let rows = ECGTwelveLeadLayout.rows, columns = ECGTwelveLeadLayout.columns
        let bandCount = min(rows + 1, clipped.height)
        prepare(model: model, rect: clipped, bandCount: bandCount, into: &buffer)
        guard bandCount > 0, let geometry = gridKey else { return }
        let length = model.sweepLength
        for band in 0..<bandCount {
            let area = bandRect(band, of: bandCount, in: clipped)
            if band < rows {
                fillSweep(length: length) { out in
                    for column in 0..<columns {
                        let start = column * length / columns, end = (column + 1) * length / columns
                        let panel = UnsafeMutableBufferPointer(rebasing: out[start..<end])
                        guard let lead = layout.lead(row: band, column: column) else {
                            panel.update(repeating: .nan)
                            continue
                        }
                        model.sweep(lead: lead, fromPosition: start, into: panel)
                        // a break between panels: leads are not joined to each other
                        if column > 0, !panel.isEmpty { panel[0] = .nan }
                    }
                }
            } else {
                let lead = layout.rhythmLead ?? -1
                fillSweep(length: length) { out in model.sweep(lead: lead, fromPosition: 0, into: out) }
            }
            drawBand(area, model: model, geometry: geometry)
        }
        canvas.render(into: &buffer)
        for band in 0..<bandCount {
            let area = bandRect(band, of: bandCount, in: clipped)
            let traceX = area.x + geometry.calibrationColumns
            let traceWidth = area.width - geometry.calibrationColumns
            if band < rows {
                for column in 0..<columns {
                    let x = traceX + column * traceWidth / columns
                    let nextX = traceX + (column + 1) * traceWidth / columns
                    label(ECGTwelveLeadLayout.panelNames[band][column], x: x, y: area.y, limit: nextX, into: &buffer)
                }
            } else if let lead = layout.rhythmLead, lead < model.leadCount {
                label(model.leadNames[lead], x: traceX, y: area.y, limit: area.maxX, into: &buffer)
                markReferenceBeats(model: model, area: area, geometry: geometry, into: &buffer)
            }
        }
    }

    // MARK: frame parts

    /// Sizes storage for this rect and arrangement, and lays down the paper.
    private func prepare(model: ECGStripModel, rect: Rect, bandCount: Int, into buffer: inout Buffer) {
        let calibration = rect.width >= Self.minimumWidthForCalibration
            ? ECGPaperScale(traceColumns: rect.width, stripSeconds: model.stripSeconds,
                            gainMillimetresPerMillivolt: model.gainMillimetresPerMillivolt).calibrationColumns
            : 0
        let key = GridKey(rect: rect, bandCount: bandCount, stripSeconds: model.stripSeconds,
                          calibrationColumns: calibration)
        if key != gridKey {
            gridKey = key
            canvas = BrailleCanvas(area: rect, color: Self.traceColor)
            let traceDots = max(0, rect.width - calibration) * 2
            spanTop = [Int32](repeating: 0, count: traceDots)
            spanBottom = spanTop
            gridCells = Self.paper(for: key)
        }
        if sweep.count != model.sweepLength { sweep = [Float](repeating: .nan, count: model.sweepLength) }
        canvas.clear()
        gridCells.withUnsafeBufferPointer { paper in
            for row in 0..<rect.height {
                for column in 0..<rect.width {
                    buffer.set(x: rect.x + column, y: rect.y + row, paper[row * rect.width + column])
                }
            }
        }
    }

    private func fillSweep(length: Int, _ fill: (UnsafeMutableBufferPointer<Float>) -> Void) {
        sweep.withUnsafeMutableBufferPointer { out in fill(UnsafeMutableBufferPointer(rebasing: out[0..<min(length, out.count)])) }
    }

    /// Calibration pulse and trace of one band (`sweep` holds its positions).
    private func drawBand(_ area: Rect, model: ECGStripModel, geometry: GridKey) {
        guard let rect = gridKey?.rect, !area.isEmpty else { return }
        let scale = ECGPaperScale(traceColumns: area.width - geometry.calibrationColumns,
                                  stripSeconds: model.stripSeconds,
                                  gainMillimetresPerMillivolt: model.gainMillimetresPerMillivolt)
        let dotRows = area.height * 4
        let originY = (area.y - rect.y) * 4
        let baseline = Double(Self.baselineCellRow(bandHeight: area.height) * 4 + 2)
        if geometry.calibrationColumns > 0 {
            drawCalibration(originY: originY, baseline: Int(baseline), rows: dotRows,
                            dotsPerMillivolt: scale.traceDotsPerMillivolt,
                            pulseDots: Int((ECGPaperScale.calibrationSeconds * scale.columnsPerSecond * 2).rounded()),
                            widthDots: geometry.calibrationColumns * 2)
        }
        let originX = geometry.calibrationColumns * 2
        sweep.withUnsafeBufferPointer { values in
            spanTop.withUnsafeMutableBufferPointer { top in
                spanBottom.withUnsafeMutableBufferPointer { bottom in
                    ECGTraceRasterizer.rasterize(UnsafeBufferPointer(rebasing: values[0..<min(model.sweepLength, values.count)]),
                                                 rows: dotRows, baselineRow: baseline,
                                                 dotsPerMillivolt: scale.traceDotsPerMillivolt, top: top, bottom: bottom)
                    for column in 0..<top.count where top[column] != ECGTraceRasterizer.empty {
                        canvas.verticalSpan(x: originX + column, from: originY + Int(top[column]),
                                            to: originY + Int(bottom[column]))
                    }
                }
            }
        }
    }

    /// The standard 1 mV × 0.2 s pulse, on the band's baseline.
    private func drawCalibration(originY: Int, baseline: Int, rows: Int, dotsPerMillivolt: Double,
                                 pulseDots: Int, widthDots: Int) {
        let base = originY + baseline
        let peak = originY + max(0, baseline - Int(dotsPerMillivolt.rounded()))
        let rise = 2, fall = min(rise + max(pulseDots, 1), widthDots - 2)
        let color = Self.calibrationColor
        canvas.line(x0: 0, y0: base, x1: rise, y1: base, color: color)
        canvas.verticalSpan(x: rise, from: base, to: peak, color: color)
        canvas.line(x0: rise, y0: peak, x1: fall, y1: peak, color: color)
        canvas.verticalSpan(x: fall, from: peak, to: base, color: color)
        canvas.line(x0: fall, y0: base, x1: widthDots - 2, y1: base, color: color)
    }

    /// A mark in the band's top row above each reference beat on screen, and
    /// each annotation's text from its position (the label keeps its cells).
    private func markReferenceBeats(model: ECGStripModel, area: Rect, geometry: GridKey, into buffer: inout Buffer) {
        let traceX = area.x + geometry.calibrationColumns
        let traceWidth = area.width - geometry.calibrationColumns
        guard traceWidth > 0 else { return }
        let labelEnd = traceX + 4
        let length = model.sweepLength
        model.forEachVisibleReferenceBeat { position in
            let x = traceX + position * traceWidth / length
            guard x >= labelEnd, x < area.maxX else { return }
            buffer.set(x: x, y: area.y, Self.referenceBeatMark)
        }
        model.forEachVisibleMarkedBeat { position, beatClass in
            let x = traceX + position * traceWidth / length
            guard x >= traceX, x < area.maxX, area.height >= 2 else { return }
            switch beatClass {
            case .ventricular: buffer.set(x: x, y: area.maxY - 1, Self.ventricularMark)
            case .supraventricular: buffer.set(x: x, y: area.maxY - 1, Self.supraventricularMark)
            case .unclassifiable: buffer.set(x: x, y: area.maxY - 1, Self.unclassifiableMark)
            case .normal: break
            }
        }
        // annotations: "◆text" from their position, cut at the rect and at most annotationWidth cells
        model.forEachVisibleAnnotation { position, text in
            let x = traceX + position * traceWidth / length
            guard x >= labelEnd, x < area.maxX else { return }
            buffer.put("◆" + text, x: x, y: area.y, limit: min(x + Self.annotationWidth, area.maxX), style: Self.annotationStyle)
        }
    }

    /// A lead name, with a blank cell after it so it stands clear of the grid.
    private func label(_ text: String, x: Int, y: Int, limit: Int, into buffer: inout Buffer) {
        let end = buffer.put(text, x: x, y: y, limit: limit, style: Self.labelStyle)
        if end < limit { buffer.set(x: end, y: y, .blank) }
    }

    // MARK: geometry

    /// Band `index` of `count` stacked in `rect`; the last takes the leftover rows.
    private func bandRect(_ index: Int, of count: Int, in rect: Rect) -> Rect {
        let height = rect.height / max(count, 1)
        let y = rect.y + index * height
        return Rect(x: rect.x, y: y, width: rect.width, height: index == count - 1 ? rect.maxY - y : height)
    }

    /// The cell row of 0 mV within a band: a little below the middle, since
    /// QRS complexes mostly swing up.
    static func baselineCellRow(bandHeight: Int) -> Int { bandHeight * 3 / 5 }

    /// The paper for `key`, drawn in braille dots (2 × 4 per cell, square on
    /// a terminal whose cells are twice as tall as wide, so the boxes are
    /// square): major lines solid, minor lines dotted (or, where they would
    /// be closer than `denseMinorDots`, a dot at each crossing), in ECG-paper
    /// reds, lined up on each band's baseline and the trace's start. Minor
    /// and major are the paper's 0.04 s / 0.2 s boxes (0.1 / 0.5 mV at the
    /// standard gain) where the terminal resolves them, else the next
    /// coarser pair (0.2 s / 1 s).
    private static func paper(for key: GridKey) -> [Cell] {
        let rect = key.rect
        var cells = [Cell](repeating: .blank, count: rect.width * rect.height)
        guard key.bandCount > 0, rect.width > key.calibrationColumns else { return cells }
        let traceColumns = rect.width - key.calibrationColumns
        let scale = ECGPaperScale(traceColumns: traceColumns, stripSeconds: key.stripSeconds,
                                  gainMillimetresPerMillivolt: ECGPaperScale.standardGain)
        let dotsPerSecond = 2 * scale.columnsPerSecond
        let spacings = ECGPaperScale.timeSpacings.map { $0 * dotsPerSecond }
        guard let minorIndex = spacings.firstIndex(where: { $0 >= minimumMinorDots }) else { return cells }
        let minor = spacings[minorIndex]
        let major = minorIndex + 1 < spacings.count ? spacings[minorIndex + 1] : nil
        // 0 none, 1 minor, 2 major per dot column / dot row
        let dotColumns = rect.width * 2, dotRows = rect.height * 4
        var columnLine = [UInt8](repeating: 0, count: dotColumns)
        markLines(&columnLine, from: key.calibrationColumns * 2, spacing: minor, level: 1)
        markLines(&columnLine, from: key.calibrationColumns * 2, spacing: major, level: 2)
        var rowLine = [UInt8](repeating: 0, count: dotRows)
        let height = rect.height / key.bandCount
        for band in 0..<key.bandCount {
            let top = band * height * 4
            let bandRows = (band == key.bandCount - 1 ? rect.height - band * height : height) * 4
            let base = top + baselineCellRow(bandHeight: bandRows / 4) * 4 + 2
            for (spacing, level) in [(minor, UInt8(1)), (major, UInt8(2))] {
                guard let spacing else { continue }
                var k = 0
                while true {
                    let offset = Int((Double(k) * spacing).rounded())
                    guard base - offset >= top || base + offset < top + bandRows else { break }
                    for row in [base - offset, base + offset] where row >= top && row < top + bandRows {
                        rowLine[row] = max(rowLine[row], level)
                    }
                    k += 1
                }
            }
        }
        let dense = minor < denseMinorDots
        func level(_ x: Int, _ y: Int) -> UInt8 {
            let column = columnLine[x], row = rowLine[y]
            if column == 2 || row == 2 { return 2 }
            if dense { return column == 1 && row == 1 ? 1 : 0 }
            // dotted minor lines: every other dot along them
            return (column == 1 && y % 2 == 0) || (row == 1 && x % 2 == 0) ? 1 : 0
        }
        for row in 0..<rect.height {
            for column in key.calibrationColumns..<rect.width {
                var bits: UInt32 = 0
                var strongest: UInt8 = 0
                for dy in 0..<4 {
                    for dx in 0..<2 {
                        let found = level(column * 2 + dx, row * 4 + dy)
                        guard found > 0 else { continue }
                        bits |= brailleBit(dx, dy)
                        strongest = max(strongest, found)
                    }
                }
                guard bits != 0, let scalar = Unicode.Scalar(0x2800 + bits) else { continue }
                cells[row * rect.width + column] = Cell(scalar, style: strongest == 2 ? majorStyle : minorStyle)
            }
        }
        return cells
    }

    /// minor lines closer than this [dots] are not drawn at all
    static let minimumMinorDots = 2.5
    /// minor lines closer than this [dots] are drawn as crossings only
    static let denseMinorDots = 4.5

    /// The braille bit of dot (dx, dy) in a cell (Unicode's dot numbering).
    private static func brailleBit(_ dx: Int, _ dy: Int) -> UInt32 {
        dy == 3 ? (dx == 0 ? 0x40 : 0x80) : 1 << UInt32(dy + 3 * dx)
    }

    /// Marks dots `from + k·spacing` (k ≥ 0) with `level`.
    private static func markLines(_ lines: inout [UInt8], from start: Int, spacing: Double?, level: UInt8) {
        guard let spacing, spacing > 0 else { return }
        var k = 0
        while true {
            let index = start + Int((Double(k) * spacing).rounded())
            guard index < lines.count else { return }
            lines[index] = max(lines[index], level)
            k += 1
        }
    }
}

/// What the paper was laid down for.
private struct GridKey: Equatable {
    var rect: Rect
    var bandCount: Int
    var stripSeconds: Double
    var calibrationColumns: Int
}
