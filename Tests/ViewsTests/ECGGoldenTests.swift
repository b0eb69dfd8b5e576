import ECG
import Terminal
import Testing
import ViewModels
@testable import Views

/// Whole screens compared cell for cell (characters; trailing spaces trimmed).
@Suite struct ECGGoldenTests {
    /// One lead, 250 Hz, a 5 s strip, 1 mV pulses of 0.1 s once a second from
    /// 0.5 s, 6.4 s of samples: the second sweep has reached 1.4 s.
    static func stripScreen() -> [String] {
        let strip = stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 6.4) { _, i in
            pulseTrain(amplitude: 1, rate: 250)(i)
        }
        var buffer = Buffer(width: 80, height: 24)
        ECGMonitorView().render(model: ECGMonitorModel(strip: strip), status: fixedECGStatus, in: buffer.area,
                                into: &buffer)
        return trimmedLines(buffer)
    }

    /// Twelve leads, 500 Hz, the 10 s printout, 8 s of samples; lead l pulses
    /// (l mod 4 + 1) × 0.25 mV, aVR negative; the event list open on two events.
    static func twelveLeadScreen() -> [String] {
        let names = ["I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6"]
        let strip = stripModel(leads: names, rate: 500, stripSeconds: 10, seconds: 8) { lead, i in
            let amplitude = Float(lead % 4 + 1) * 0.25 * (lead == 3 ? -1 : 1)
            return pulseTrain(amplitude: amplitude, rate: 500)(i)
        }
        var model = ECGMonitorModel(strip: strip)
        model.events.append(RhythmEvent(time: 4, code: .bradycardia, heartRateBPM: 42))
        model.events.append(RhythmEvent(time: 20.5, code: .tachycardia, heartRateBPM: 125))
        _ = model.apply(.toggleEventList)
        var buffer = Buffer(width: 160, height: 48)
        ECGMonitorView().render(model: model, status: fixedECGStatus, in: buffer.area, into: &buffer)
        return trimmedLines(buffer)
    }

    @Test func strip80x24() {
        let lines = Self.stripScreen()
        #expect(lines == Self.expectedStrip, "\n\(lines.joined(separator: "\n"))")
    }

    @Test func twelveLead160x48() {
        let lines = Self.twelveLeadScreen()
        #expect(lines == Self.expectedTwelveLead, "\n\(lines.joined(separator: "\n"))")
    }

    static let expectedStrip: [String] = [
        " HR 60  Normal 60 bpm  250 Hz │ 5 s │ 10 mm/mV │ latency p99 1.2 ms │ 30 fps │ e",
        "      II",
        "",
        "",
        "",
        "",
        "",
        "      ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  · ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  ·",
        "",
        "",
        "",
        " ⡤⠤⠤⡄        ⡤⢤             ⠠⢤             ⡤⡄            ⢠⠤⡄            ⢠⠤⡄",
        " ⡇  ⡇        ⡇⢸              ⢸             ⡇⡇            ⢸ ⡇            ⢸ ⡇",
        " ⡇  ⡇        ⡇⢸              ⢸             ⡇⡇            ⢸ ⡇            ⢸ ⡇",
        "⠤⠇  ⠧⠄⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤· ⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤",
        "",
        "",
        "",
        "",
        "",
        "",
        "      ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  · ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  ·  ·",
        "",
        " space pause  ←/→ length  ↑/↓ gain  v 12-lead  l leads  e events  t trend  [/] r",
    ]
    static let expectedTwelveLead: [String] = [
        " HR 60  Normal 60 bpm  500 Hz │ 10 s │ 10 mm/mV │ latency p99 1.2 ms │ 30 fps │ events 2 │ test",
        "      I                                     aVR                                    V1                                    V4",
        "",
        "",
        " ⡤⠤⠤⡄",
        " ⡇  ⡇                                                                                     ⢰⠒⡆             ⡖⢲",
        " ⡇  ⡇        ⢀⣀⡀             ⣀⣀                                                           ⢸ ⡇             ⡇⢸             ⠈⠉⡇",
        "⠤⠇  ⠧⠄⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠄ ⡤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⢤ ⡤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⡄⢠⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠄ ⠧⠤⠤⠤⠤⠤⠄  ·  ·  ·   ·  ·  ·  ·  ·  ·",
        "                                              ⡇            ⢸ ⡇             ⡇⢸",
        "                                              ⡇            ⢸ ⡇             ⡇⢸",
        "                                            ⠠⠤⠇            ⠸⠤⠇             ⠧⠼",
        "",
        "      II                                    aVL                                    V2                                    V5",
        "",
        "",
        " ⡤⠤⠤⡄                                                                                     ⢠⠤⡄             ⡤⢤",
        " ⡇  ⡇                                                                                     ⢸ ⡇             ⡇⢸             ⠐⠒⡆",
        " ⡇  ⡇        ⢸⠉⡇             ⡏⢹             ⢀⣀⡀            ⢀⣀⡀             ⣀⣀             ⢸ ⡇             ⡇⢸               ⡇",
        "⠤⠇  ⠧⠄⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠄ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠄ ⠧⠤⠤⠤⠤⠤⠄  ·  ·  ·   ·  ·  ·  ·  ·  ·",
        "",
        "",
        "",
        "                                                           Events (2)",
        "      III                                   aVF            00:20.5  Tachycardia  125 bpm                                 V6",
        "                                                           00:04.0  Bradycardia  42 bpm",
        "                                                           ↑/↓ select  x delete  e close",
        " ⡤⠤⠤⡄                                                                                                                    ⠠⠤⡄",
        " ⡇  ⡇        ⢰⠒⡆             ⡖⢲                                                                                            ⡇",
        " ⡇  ⡇        ⢸ ⡇             ⡇⢸             ⠈⠉⡇            ⢸⠉⡇             ⡏⢹             ⢀⣀⡀             ⣀⣀               ⡇",
        "⠤⠇  ⠧⠄⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠄ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠄ ⠧⠤⠤⠤⠤⠤⠄  ·  ·  ·   ·  ·  ·  ·  ·  ·",
        "",
        "",
        "",
        "",
        "      II",
        "",
        "",
        "",
        " ⡤⠤⠤⡄",
        " ⡇  ⡇",
        " ⡇  ⡇        ⢸⠉⡇             ⡏⢹             ⢸⠉⡇            ⢸⠉⡇             ⡏⢹             ⢸⠉⡇             ⡏⢹             ⢸⠉⡇",
        "⠤⠇  ⠧⠄⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠇⠸⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠤⠼ ⠧⠤⠤⠤⠤⠤⠄  ·  ·  ·   ·  ·  ·  ·  ·  ·",
        "",
        "",
        "",
        "",
        "",
        " space pause  ←/→ length  ↑/↓ gain  v 12-lead  l leads  e events  t trend  [/] rate  -/+ fps  </> speed  q quit",
    ]
}
