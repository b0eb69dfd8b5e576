import Signals

/// The band plan under a waterfall picture (`export --png … --band-plan`):
/// each allocation in the picture's band as a bar in its colour, with end
/// ticks at its real edges, and its label under the bar, centred on the part
/// drawn and cut with ".." to fit; allocations overlapping in part are in a
/// second row (`BandPlan.lanes`). Wider allocations are drawn first so a
/// nested one shows on top; labels go narrowest first, none over another.
struct WaterfallBandPlanStrip {
    /// gap between the plot and the bars [px]
    static let gap = 5
    /// bar thickness [px]
    static let barHeight = 3
    /// end ticks reach this far below the bar [px]
    static let tickDepth = 3
    /// gap between the bars and the labels [px]
    static let labelGap = 4
    /// one row of bars and labels [px]
    static var laneHeight: Int { barHeight + tickDepth + labelGap + BitmapFont.glyphHeight + 2 + gap }
    /// the strip's height below the plot [px], for a plan drawn in `lanes` rows
    static func height(lanes: Int) -> Int { gap + lanes * laneHeight }
    /// least label width before it is left out [px]: three characters
    static let shortestLabel = BitmapFont.width("abc")

    /// colours for allocations the plan gives none, in turn by their place in the plan
    static let palette: [PowerColorMap.RGB] = [
        .init(red: 110, green: 190, blue: 255), .init(red: 120, green: 215, blue: 140), .init(red: 245, green: 185, blue: 90),
        .init(red: 215, green: 140, blue: 230), .init(red: 110, green: 215, blue: 215), .init(red: 235, green: 130, blue: 130),
    ]

    let plan: BandPlan

    /// Draws the bars below the plot `axes` describes and returns the labels to draw.
    func draw(into image: inout RGBImage, axes: WaterfallAxes, lowHz: Double, highHz: Double,
              existing: [WaterfallLabel]) -> [WaterfallLabel] {
        guard let scale = axes.scale(lowHz: lowHz, highHz: highHz) else { return [] }
        let band = scale.band
        // columns as the plot's: the one column ↔ frequency function (linear or logarithmic)
        func position(_ hz: Double) -> Double { scale.fraction(ofHz: hz) * Double(axes.columns) }
        let stripY = axes.top + axes.height + Self.gap
        struct Bar { var first: Int; var last: Int; var allocation: BandPlan.Allocation; var barY: Int }
        var bars: [(bar: Bar, color: PowerColorMap.RGB, startsIn: Bool, stopsIn: Bool)] = []
        for (index, allocation) in plan.allocations.enumerated()
        where allocation.stopHz > band.lowerHz && allocation.startHz < band.upperHz {
            let first = axes.left + max(0, Int(saturating: max(-1, position(allocation.startHz)).rounded(.down)))
            let last = axes.left + min(axes.columns, Int(saturating: min(Double(axes.columns) + 1, position(allocation.stopHz)).rounded(.up))) - 1
            let barY = stripY + plan.lanes[index] * Self.laneHeight
            bars.append((Bar(first: first, last: max(first, last), allocation: allocation, barY: barY),
                         allocation.color ?? Self.palette[index % Self.palette.count],
                         allocation.startHz >= band.lowerHz, allocation.stopHz <= band.upperHz))
        }
        for entry in bars.sorted(by: { $0.bar.last - $0.bar.first > $1.bar.last - $1.bar.first }) {
            let barY = entry.bar.barY
            for x in entry.bar.first...entry.bar.last {
                for y in barY..<(barY + Self.barHeight) { image.set(x, y, entry.color) }
            }
            for x in [entry.startsIn ? entry.bar.first : nil, entry.stopsIn ? entry.bar.last : nil].compactMap({ $0 }) {
                for y in (barY - 2)..<(barY + Self.barHeight + Self.tickDepth) { image.set(x, y, entry.color) }
            }
        }
        var labels: [WaterfallLabel] = []
        let ordered = bars.sorted {
            ($0.bar.allocation.widthHz, $0.bar.first) < ($1.bar.allocation.widthHz, $1.bar.first)
        }
        for entry in ordered where entry.bar.last - entry.bar.first >= 4 {
            let allocation = entry.bar.allocation
            let labelY = entry.bar.barY + Self.barHeight + Self.tickDepth + Self.labelGap
            // kept clear: labels placed so far (and the axes'), and the bars nested inside this one
            let nested = bars.filter {
                $0.bar.barY == entry.bar.barY && $0.bar.allocation.widthHz < allocation.widthHz && $0.bar.allocation.startHz >= allocation.startHz
                    && $0.bar.allocation.stopHz <= allocation.stopHz
            }.map { ($0.bar.first - 3)...($0.bar.last + 3) }
            let placed = (labels + existing).filter { $0.y < labelY + BitmapFont.glyphHeight && labelY < $0.y + $0.height }
                .map { ($0.x - BitmapFont.advance)...($0.x + $0.width + BitmapFont.advance) }
            guard let stretch = Self.widestStretch((entry.bar.first + 2)...(entry.bar.last - 2), avoiding: nested + placed),
                  stretch.count >= Self.shortestLabel else { continue }
            let text = WaterfallAxes.fitted(allocation.label, width: stretch.count)
            let width = BitmapFont.width(text)
            // centred on the bar when the whole of it is clear, else on the clear stretch
            let centre = stretch == (entry.bar.first + 2)...(entry.bar.last - 2)
                ? (entry.bar.first + entry.bar.last + 1) / 2 : (stretch.lowerBound + stretch.upperBound + 1) / 2
            labels.append(WaterfallLabel(text: text, x: centre - width / 2, y: labelY))
        }
        return labels
    }

    /// The widest run of `range` none of `taken` covers; nil when all is covered.
    static func widestStretch(_ range: ClosedRange<Int>, avoiding taken: [ClosedRange<Int>]) -> ClosedRange<Int>? {
        guard !range.isEmpty else { return nil }
        var best: ClosedRange<Int>?
        var start: Int?
        for x in range {
            let free = !taken.contains { $0.contains(x) }
            if free, start == nil { start = x }
            if !free || x == range.upperBound, let first = start {
                let stretch = first...(free ? x : x - 1)
                if stretch.count > (best?.count ?? 0) { best = stretch }
                start = nil
            }
        }
        return best
    }
}
