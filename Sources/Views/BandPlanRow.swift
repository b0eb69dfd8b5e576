import Signals
import Terminal

/// The band plan under the frequency axis (`--band-plan`): a row (two where
/// allocations overlap in part, `BandPlan.lanes`) with each allocation in view
/// as a span, `├─── FM broadcast ───┤`, in its colour (the
/// plan's, or the palette's), its label centred on the part in view and
/// shortened with "…" to fit; an allocation running past the view's edge has
/// no edge mark there. Wider allocations are drawn first, so a narrower one
/// nested in them shows on top; labels are placed narrowest first and never
/// over another label, so a crowded raster (Wi-Fi's overlapping channels)
/// shows the labels that fit at this zoom.
///
/// On request (`b`, `--band-plan-grid`) the channel grid: a faint line at
/// each allocation edge in view, down the empty cells of the plot.
///
/// The row is drawn again only when the band or the geometry changes; the
/// grid's columns are worked out then too, so a steady stream of frames
/// allocates nothing here.
final class BandPlanRow {
    /// colours for allocations the plan gives none, in turn by their place in the plan
    static let palette: [Color] = [
        .rgb(110, 190, 255), .rgb(120, 215, 140), .rgb(245, 185, 90), .rgb(215, 140, 230), .rgb(110, 215, 215),
        .rgb(235, 130, 130),
    ]
    /// the channel grid's lines: faint, behind the trace
    static let gridStyle = CellStyle(foreground: .rgb(75, 75, 95))
    /// the fewest cells a shortened label keeps (two letters and "…")
    static let shortestLabel = 3

    private struct Key: Equatable {
        var scale: FrequencyScale
        var data: Rect
        var row: Rect
        var planName: String
        var count: Int
    }

    private var drawnKey: Key?
    /// columns of the allocation edges in view, for the grid
    private(set) var edgeColumns: [Int] = []

    /// Forces the row to be drawn again (after the screen was cleared).
    func invalidate() { drawnKey = nil }

    /// Draws the plan over `band` in `rows` (one per lane, `BandPlan.lanes`; a
    /// lane beyond the rows given shares the last), its columns lined up with
    /// `data` (the plot's or the waterfall's).
    /// - Parameter logFrequency: the columns lie on a logarithmic axis (`FrequencyScale`), as the view's do
    func draw(_ plan: BandPlan, band: FrequencyRange, logFrequency: Bool = false, data: Rect, rows: Rect,
              into buffer: inout Buffer) {
        let scale = FrequencyScale(band: band, logarithmic: logFrequency)
        let key = Key(scale: scale, data: data, row: rows, planName: plan.name, count: plan.allocations.count)
        guard key != drawnKey, rows.height > 0 else { return }
        drawnKey = key
        buffer.fill(rows, with: .blank)
        let spans = Self.spans(plan, scale: scale, data: data)
        edgeColumns = Self.edges(of: spans, data: data)
        func y(_ span: Span) -> Int { rows.y + min(span.lane, rows.height - 1) }
        for span in spans.sorted(by: { $0.width > $1.width }) {
            Self.drawLine(span, y: y(span), into: &buffer)
        }
        var labels: [(y: Int, cells: ClosedRange<Int>)] = []
        // too narrow for even a shortened label and its edge marks: no label to place
        let labelled = spans.filter { $0.width >= Self.shortestLabel + 4 }
        for span in labelled.sorted(by: { ($0.allocation.widthHz, $0.first) < ($1.allocation.widthHz, $1.first) }) {
            // kept clear: the labels placed so far in its row, and the allocations nested inside this one there
            let nested = spans.filter { other in
                y(other) == y(span) && other.allocation.widthHz < span.allocation.widthHz
                    && other.allocation.startHz >= span.allocation.startHz && other.allocation.stopHz <= span.allocation.stopHz
            }.map { $0.first...$0.last }
            let taken = labels.filter { $0.y == y(span) }.map(\.cells) + nested
            guard let (text, x) = Self.placedLabel(span, avoiding: taken) else { continue }
            let cells = (x - 1)...(x + text.unicodeScalars.count)
            labels.append((y(span), cells))
            let style = CellStyle(foreground: span.color)
            buffer.set(x: cells.lowerBound, y: y(span), Cell(" ", style: style))
            buffer.set(x: cells.upperBound, y: y(span), Cell(" ", style: style))
            _ = buffer.put(text, x: x, y: y(span), style: style)
        }
    }

    /// The grid: a faint line in each edge column, in the cells of `data` the trace left empty.
    func drawGrid(in data: Rect, into buffer: inout Buffer) {
        for x in edgeColumns where x >= data.x && x < data.maxX {
            for y in data.y..<data.maxY where buffer.cell(x: x, y: y)?.scalar == " " {
                buffer.set(x: x, y: y, Cell("│", style: Self.gridStyle))
            }
        }
    }

    /// One allocation as drawn: its columns (clipped to the view) and whether each end is its real edge.
    struct Span {
        var allocation: BandPlan.Allocation
        var first: Int
        var last: Int
        var startsInView: Bool
        var stopsInView: Bool
        var color: Color
        /// the plan's row for it (`BandPlan.lanes`)
        var lane: Int
        var width: Int { last - first + 1 }
    }

    /// The allocations in view as spans of columns of `data`.
    static func spans(_ plan: BandPlan, band: FrequencyRange, data: Rect) -> [Span] {
        spans(plan, scale: .linear(band), data: data)
    }

    /// The allocations in view as spans of columns of `data` laid across `scale`.
    static func spans(_ plan: BandPlan, scale: FrequencyScale, data: Rect) -> [Span] {
        guard data.width > 0 else { return [] }
        let band = scale.band
        // the fraction of the width at `hz`, times the width: the columns FrequencyScale puts it between
        func position(_ hz: Double) -> Double { scale.fraction(ofHz: hz) * Double(data.width) }
        var spans: [Span] = []
        for (index, allocation) in plan.allocations.enumerated()
        where allocation.stopHz > band.lowerHz && allocation.startHz < band.upperHz {
            let startsInView = allocation.startHz >= band.lowerHz
            let stopsInView = allocation.stopHz <= band.upperHz
            let first = startsInView ? data.x + Int(position(allocation.startHz).rounded(.down)) : data.x
            let last = stopsInView ? data.x + Int(position(allocation.stopHz).rounded(.up)) - 1 : data.maxX - 1
            let color = allocation.color.map { Color.rgb($0.red, $0.green, $0.blue) } ?? palette[index % palette.count]
            spans.append(Span(allocation: allocation, first: max(data.x, first), last: min(data.maxX - 1, max(first, last)),
                              startsInView: startsInView, stopsInView: stopsInView, color: color,
                              lane: plan.lanes[index]))
        }
        return spans
    }

    /// The columns of the real edges in view, each once, left to right.
    static func edges(of spans: [Span], data: Rect) -> [Int] {
        var columns = Set<Int>()
        for span in spans {
            if span.startsInView { columns.insert(span.first) }
            if span.stopsInView { columns.insert(span.last) }
        }
        return columns.filter { $0 >= data.x && $0 < data.maxX }.sorted()
    }

    /// `├───┤` over the span's columns (`│` for one column); no edge mark where it runs out of view.
    private static func drawLine(_ span: Span, y: Int, into buffer: inout Buffer) {
        let style = CellStyle(foreground: span.color)
        guard span.width > 1 else {
            buffer.set(x: span.first, y: y, Cell("│", style: style))
            return
        }
        for x in span.first...span.last { buffer.set(x: x, y: y, Cell("─", style: style)) }
        if span.startsInView { buffer.set(x: span.first, y: y, Cell("├", style: style)) }
        if span.stopsInView { buffer.set(x: span.last, y: y, Cell("┤", style: style)) }
    }

    /// The label as it fits inside the span's edge marks with a space each
    /// side, clear of the cells `avoiding` covers: centred on the span where
    /// that is clear, else in the widest clear stretch of it, shortened with
    /// "…" to fit; nil when not even a shortened label fits. Returns the text
    /// and its first column.
    static func placedLabel(_ span: Span, avoiding taken: [ClosedRange<Int>] = []) -> (text: String, x: Int)? {
        let label = span.allocation.label
        // the cells inside the edge marks, and of them the stretches clear of `taken`
        guard span.width >= 3 else { return nil }
        let inside = (span.first + 1)...(span.last - 1)
        var stretches: [ClosedRange<Int>] = []
        var start: Int?
        for x in inside {
            let free = !taken.contains { $0.contains(x) }
            if free, start == nil { start = x }
            if !free || x == inside.upperBound, let first = start {
                let last = free ? x : x - 1
                if last >= first { stretches.append(first...last) }
                start = nil
            }
        }
        func fitted(in stretch: ClosedRange<Int>) -> (text: String, x: Int)? {
            let room = stretch.count - 2
            let length = label.unicodeScalars.count
            let text: String
            if length <= room {
                text = label
            } else if room >= shortestLabel {
                text = String(String.UnicodeScalarView(label.unicodeScalars.prefix(room - 1))) + "…"
            } else {
                return nil
            }
            return (text, stretch.lowerBound + 1 + (room - text.unicodeScalars.count) / 2)
        }
        // centred on the whole span when nothing is in the way
        if stretches.count == 1, stretches[0] == inside { return fitted(in: inside) }
        guard let widest = stretches.max(by: { $0.count < $1.count }) else { return nil }
        return fitted(in: widest)
    }
}
