import Signals
import Terminal
import ViewModels

/// The header row: badges (DEMO, PAUSED, the feed's extra text), the device,
/// span, bin width, rates, the current view's own facts and any message.
/// Redrawn only when what it shows changes, so a steady stream of frames
/// builds no strings.
final class StatusLine {
    static let style = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(30, 50, 90))
    static let demoStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(255, 190, 0), attributes: [.bold])
    static let pausedStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(120, 200, 255),
                                       attributes: [.bold])
    static let extraStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(190, 30, 30),
                                      attributes: [.bold])

    /// what the line was last drawn for
    private var drawn: Content?

    struct Content: Equatable {
        var status: SpectrumStatus
        var band: FrequencyRange
        var paused: Bool
        /// the view's own facts, e.g. "30 s", "band 88–108 MHz"
        var viewFacts: String?
        var row: Rect
        /// the view's facts stand where the span would (zero span: there is no span, and its facts come first)
        var factsReplaceSpan = false
    }

    func invalidate() { drawn = nil }

    func draw(_ content: Content, into buffer: inout Buffer) {
        var key = content
        // fps to a tenth, so its noise does not redraw the line every frame
        key.status.framesPerSecond = (content.status.framesPerSecond * 10).rounded() / 10
        guard key != drawn else { return }
        drawn = key
        let row = content.row
        guard !row.isEmpty else { return }
        let status = key.status
        buffer.fill(row, with: Cell(" ", style: Self.style))
        var x = row.x
        if status.isDemo { x = buffer.put(" DEMO ", x: x, y: row.y, style: Self.demoStyle) }
        if content.paused { x = buffer.put(" PAUSED ", x: x, y: row.y, style: Self.pausedStyle) }
        if let extra = status.extra { x = buffer.put(" \(extra) ", x: x, y: row.y, style: Self.extraStyle) }
        // The axis shows the band; the status line gives what it does not.
        var facts = content.factsReplaceSpan ? content.viewFacts.map { " │ " + $0 } ?? ""
            : " │ span \(FrequencyFormat.label(content.band.spanHz))"
        if status.binWidthHz > 0 { facts += " │ bin \(FrequencyFormat.label(status.binWidthHz, maxFractionDigits: 2))" }
        facts += " │ \(FrequencyFormat.trimmed(status.framesPerSecond, maxFractionDigits: 1)) fps"
        if status.dwell?.realtime != nil {
            // real time: what counts is samples never transformed (a queue overrun), every one
            facts += " │ dropped \(status.droppedSamples) samples │ bad \(status.badBlocks)"
        } else {
            facts += " │ dropped \(status.droppedBlocks) │ bad \(status.badBlocks)"
            if status.droppedSamples > 0 { facts += " │ dropped \(status.droppedSamples) samples" }
        }
        if let viewFacts = content.viewFacts, !content.factsReplaceSpan { facts += " │ \(viewFacts)" }
        var text = " \(status.deviceName)" + facts
        if let message = status.message {
            text += " │ \(message)"
            // a message (a stall, a failed write) matters more than the figures: first when the line is short
            if x - row.x + text.count > row.width { text = " \(status.deviceName) │ \(message)" + facts }
        }
        if let realtime = status.dwell?.realtime {
            // what is certain to be seen: "realtime FFT 8192, 50 % overlap │ 100 % POI ≥ 615 µs"
            text += " │ realtime FFT \(realtime.fftSize), \(Int((realtime.overlap * 100).rounded())) % overlap"
                + " │ 100 % POI ≥ \(Self.duration(realtime.fullAmplitudeBurstSeconds))"
        } else if let dwell = status.dwell {
            // what a short signal must overlap to be seen: "sweep dwell 409 µs / 2.46 ms"
            text += " │ sweep dwell \(Self.duration(dwell.dwellSeconds)) / \(Self.duration(dwell.revisitSeconds))"
        }
        // the analyzer's settings and calibration last: the figures before them change, these rarely
        if let settings = status.settings { text += " │ \(settings)" }
        _ = buffer.put(text, x: x, y: row.y, style: Self.style)
    }

    /// "1 µs", "409 µs", "2.46 ms", "1.2 s" (three significant digits at most)
    static func duration(_ seconds: Double) -> String {
        if seconds < 1e-3 { return "\(FrequencyFormat.trimmed(seconds * 1e6, maxFractionDigits: seconds < 1e-5 ? 1 : 0)) µs" }
        if seconds < 1 { return "\(FrequencyFormat.trimmed(seconds * 1e3, maxFractionDigits: seconds < 1e-2 ? 2 : 1)) ms" }
        return "\(FrequencyFormat.trimmed(seconds, maxFractionDigits: 2)) s"
    }
}
