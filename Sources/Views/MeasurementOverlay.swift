import Signals
import Terminal
import ViewModels

/// Draws `e`'s measurement: its labels on the plot (F, H2 … at the
/// harmonics; F1, F2 and IM3 at the tones and products; N at the noise
/// marker; ACPR's channel edges), and its table — in the pane right of the
/// plot on a wide screen (under the markers'), in a strip under the plot
/// otherwise.
enum MeasurementOverlay {
    static let markStyle = CellStyle(foreground: .rgb(255, 130, 210), attributes: .bold)
    static let channelStyle = CellStyle(foreground: .rgb(190, 110, 170))
    static let titleStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(120, 50, 110), attributes: .bold)
    static let stripStyle = CellStyle(foreground: .rgb(235, 235, 235), background: .rgb(45, 25, 45))
    /// rows the strip under a narrow plot takes
    static let stripRows = 2
    static let help = "e next measurement"

    static func isShown(_ model: AnalyzerModel) -> Bool { model.mode.hasMarkers && model.measurement.kind != nil }

    /// `area` less the strip under it (nil when the measurement goes to the pane, or the area is too small).
    static func stripSplit(_ area: Rect, model: AnalyzerModel, pane: Bool) -> (main: Rect, strip: Rect?) {
        guard isShown(model), !pane, area.height > stripRows + 8 else { return (area, nil) }
        return (Rect(x: area.x, y: area.y, width: area.width, height: area.height - stripRows),
                Rect(x: area.x, y: area.maxY - stripRows, width: area.width, height: stripRows))
    }

    /// The labels and channel edges over the trace in the plot's `data` rect.
    static func drawMarks(_ measurement: BenchMeasurementModel, frame: SpectrumFrame?, plot: SpectrumPlotModel, data: Rect,
                          into buffer: inout Buffer) {
        guard measurement.kind != nil, let frame, data.width > 4, data.height > 2 else { return }
        let band = plot.visibleBand
        func column(_ hz: Double) -> Int? {
            guard band.lowerHz <= hz, hz <= band.upperHz else { return nil }
            return data.x + min(data.width - 1, Int((hz - band.lowerHz) / band.spanHz * Double(data.width)))
        }
        for channel in measurement.channels {
            let edges = [channel.band.lowerHz, channel.band.upperHz].compactMap(column)
            for x in edges {
                // behind the trace: only where no dot is drawn
                for y in data.y..<data.maxY where buffer.cell(x: x, y: y)?.scalar == " " {
                    buffer.set(x: x, y: y, Cell("┊", style: channelStyle))
                }
            }
            if let centre = column(channel.band.centerHz) {
                let x = max(data.x, min(data.maxX - channel.label.count, centre - channel.label.count / 2))
                _ = buffer.put(channel.label, x: x, y: data.y, style: markStyle)
            }
        }
        let span = plot.referenceLevelDB - plot.bottomLevelDB
        for mark in measurement.marks {
            guard let x = column(mark.hz) else { continue }
            let level = Double(level(at: mark.hz, frame))
            let fraction = level.isFinite && span > 0 ? (plot.referenceLevelDB - level) / span : 1
            let row = data.y + max(0, min(data.height - 1, Int(fraction * Double(data.height))))
            // just above the trace's top there, as a bench analyzer labels a harmonic
            let y = max(data.y, row - 1)
            let left = max(data.x, min(data.maxX - mark.label.count, x - mark.label.count / 2))
            _ = buffer.put(mark.label, x: left, y: y, style: markStyle)
        }
    }

    /// The frame's level in the bin holding `hz` (NaN outside it).
    private static func level(at hz: Double, _ frame: SpectrumFrame) -> Float {
        guard frame.binWidthHz > 0 else { return .nan }
        let index = Int(((hz - frame.startHz) / frame.binWidthHz).rounded(.down))
        return frame.powerDB.indices.contains(index) ? frame.powerDB[index] : .nan
    }

    /// The table in `rect` of the pane: a title bar, the lines, the key; returns the rows used.
    @discardableResult
    static func drawSection(_ measurement: BenchMeasurementModel, unit: PowerUnit, in rect: Rect, into buffer: inout Buffer) -> Int {
        guard measurement.kind != nil, rect.width > 4, rect.height > 1 else { return 0 }
        buffer.fill(Rect(x: rect.x, y: rect.y, width: rect.width, height: 1), with: Cell(" ", style: titleStyle))
        _ = buffer.put(" " + measurement.title + (unit.isAbsolute ? "" : "  (relative)"), x: rect.x, y: rect.y, style: titleStyle)
        var y = rect.y + 2
        for line in measurement.tableLines(unit: unit) where y < rect.maxY {
            _ = buffer.put(String(line.unicodeScalars.prefix(rect.width - 1)), x: rect.x + 1, y: y, style: MarkerOverlay.paneStyle)
            y += 1
        }
        if y + 1 < rect.maxY {
            _ = buffer.put(help, x: rect.x + 1, y: y + 1, style: AnalyzerScreen.helpStyle)
            y += 2
        }
        return y - rect.y
    }

    /// The reading flowed over the strip's rows: "TOI │ F1 100 MHz │ … ".
    static func drawStrip(_ measurement: BenchMeasurementModel, unit: PowerUnit, in rect: Rect, into buffer: inout Buffer) {
        guard rect.width > 4, rect.height > 0 else { return }
        buffer.fill(rect, with: Cell(" ", style: stripStyle))
        let title = " " + measurement.title + " "
        _ = buffer.put(title, x: rect.x, y: rect.y, style: titleStyle)
        var x = rect.x + title.unicodeScalars.count + 1, y = rect.y
        for item in measurement.summaryItems(unit: unit) {
            let length = item.unicodeScalars.count
            if x + length > rect.maxX - 1, x > rect.x + 1 {
                // no row left: the rest is not shown, and `x` stays where the last row ends (the key goes after it)
                guard y + 1 < rect.maxY else { break }
                y += 1
                x = rect.x + 1
            }
            _ = buffer.put(String(item.unicodeScalars.prefix(rect.maxX - x)), x: x, y: y, style: stripStyle)
            x += length + 3
        }
        let key = "e next"
        if y < rect.maxY - 1 || x + key.count < rect.maxX - 1 {
            _ = buffer.put(key, x: rect.maxX - key.count - 1, y: rect.maxY - 1, style: stripStyle)
        }
    }
}
