import ECG
import Foundation
import Terminal

/// How ECG quantities read on screen.
enum ECGText {
    static func name(_ code: RhythmCode) -> String {
        switch code {
        case .normal: return "Normal"
        case .bradycardia: return "Bradycardia"
        case .tachycardia: return "Tachycardia"
        case .irregular: return "Irregular"
        case .af: return "AF"
        case .pause: return "Pause"
        case .signalLost: return "Signal lost"
        case .noisy: return "Noisy"
        case .unreadable: return "Unreadable"
        }
    }

    /// Seconds on the sample clock as m:ss.s (h:mm:ss.s past an hour).
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--.-" }
        let tenths = Int((seconds * 10).rounded(.down))
        let hours = tenths / 36_000, minutes = tenths / 600 % 60, secondsPart = tenths / 10 % 60, tenth = tenths % 10
        let body = String(format: "%02d:%02d.%d", minutes, secondsPart, tenth)
        return hours > 0 ? "\(hours):" + body : body
    }

    /// A rate with as many decimals as it needs: 250, 360, 2.5.
    static func number(_ value: Double, maxFractionDigits: Int = 1) -> String {
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded() || maxFractionDigits == 0 { return "\(Int(rounded.rounded()))" }
        return String(format: "%.\(maxFractionDigits)f", rounded)
    }
}

extension Buffer {
    /// Writes `text` from (x, y) one scalar per column, stopping before
    /// column `limit` so a view never draws past its rect.
    /// - Returns: the column after the last scalar written.
    @discardableResult
    mutating func put(_ text: String, x: Int, y: Int, limit: Int, style: CellStyle) -> Int {
        var column = x
        for scalar in text.unicodeScalars {
            guard column < limit else { break }
            set(x: column, y: y, Cell(scalar.value < 0x20 ? " " : scalar, style: style))
            column += 1
        }
        return column
    }
}
