import ECG
import Terminal
import ViewModels

/// The event list overlay (`e`): a box in the middle of a rect listing the
/// logged rhythm events newest first, with time, rhythm and heart rate; the
/// selected one highlighted for deleting with `x`.
enum ECGEventListView {
    static let boxStyle = CellStyle(foreground: .rgb(230, 230, 230), background: .rgb(25, 25, 35))
    static let titleStyle = CellStyle(foreground: .rgb(255, 255, 255), background: .rgb(25, 25, 35), attributes: [.bold])
    static let selectedStyle = CellStyle(foreground: .rgb(0, 0, 0), background: .rgb(120, 200, 255), attributes: [.bold])
    static let footer = "↑/↓ select  x delete  e close"
    /// the box's width [cells] unless a line needs more (an AF episode's rates and length), and room allows
    static let maximumWidth = 46

    static func render(_ list: ECGEventListModel, in rect: Rect, into buffer: inout Buffer) {
        // title, one row per event (at least one), footer
        let height = min(max(list.count, 1) + 2, rect.height - 2)
        guard height >= 3 else { return }
        let visibleRows = height - 2
        let selected = list.selection ?? 0
        // keep the selection in view
        let first = min(max(0, selected - visibleRows + 1), max(0, list.count - visibleRows))
        var lines: [(event: Int, text: String)] = []
        for row in 0..<visibleRows {
            guard let event = list.event(newestFirst: first + row) else { break }
            lines.append((first + row, line(event)))
        }
        // two cells of margin on each side, wider than usual only where a line needs it and room allows
        let longest = lines.map { $0.text.unicodeScalars.count }.max() ?? 0
        let width = min(max(maximumWidth, longest + 4), rect.width - 2)
        guard width >= 12 else { return }
        let box = Rect(x: rect.x + (rect.width - width) / 2, y: rect.y + (rect.height - height) / 2,
                       width: width, height: height)
        buffer.fill(box, with: Cell(" ", style: boxStyle))
        let dropped = list.droppedCount > 0 ? ", \(list.droppedCount) dropped" : ""
        buffer.put(" Events (\(list.count)\(dropped)) ", x: box.x + 1, y: box.y, limit: box.maxX - 1, style: titleStyle)
        if list.count == 0 {
            buffer.put("no events yet", x: box.x + 2, y: box.y + 1, limit: box.maxX - 1, style: boxStyle)
        }
        for (row, (index, text)) in lines.enumerated() {
            let style = index == list.selection ? selectedStyle : boxStyle
            let y = box.y + 1 + row
            buffer.fill(Rect(x: box.x + 1, y: y, width: width - 2, height: 1), with: Cell(" ", style: style))
            buffer.put(text, x: box.x + 2, y: y, limit: box.maxX - 1, style: style)
        }
        buffer.put(footer, x: box.x + 2, y: box.maxY - 1, limit: box.maxX - 1, style: boxStyle)
    }

    /// "03:12.5  Bradycardia  42 bpm", "03:20.0  Pause        3.4 s without a beat",
    /// "03:30.0  Signal lost  lead off or flat": what each event is
    static func line(_ event: RhythmEvent) -> String {
        let name = ECGText.name(event.code)
        let detail: String
        switch event.code {
        case .pause:
            detail = event.durationSeconds.map { ECGText.number($0) + " s without a beat" } ?? "no beat for > 2 s"
        case .signalLost: detail = "lead off or flat"
        case .noisy: detail = "too noisy to count"
        case .unreadable: detail = "beats dropped or spurious"
        case .irregular:
            detail = "RR varies" + (event.heartRateBPM.map { ", \(Int($0.rounded())) bpm" } ?? "")
        case .af:
            // a Holter report's episode line: mean and highest rate over the episode
            if let mean = event.meanHeartRateBPM, let highest = event.maxHeartRateBPM {
                detail = "\(Int(mean.rounded())) bpm, max \(Int(highest.rounded()))"
            } else {
                detail = event.heartRateBPM.map { "\(Int($0.rounded())) bpm" } ?? "—"
            }
        case .normal, .bradycardia, .tachycardia:
            detail = event.heartRateBPM.map { "\(Int($0.rounded())) bpm" } ?? "—"
        }
        // an episode shows how long it held (a pause says it in its detail)
        let held = event.code == .pause ? "" : event.durationSeconds.map {
            ", " + ECGText.number($0, maxFractionDigits: $0 < 10 ? 1 : 0) + " s" + (event.end == nil ? " so far" : "")
        } ?? ""
        return ECGText.clock(event.time) + "  " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + " " + detail + held
    }
}
