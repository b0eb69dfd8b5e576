import ECG
import Terminal
import ViewModels
@testable import Views

/// Rectangular pulses: 0 mV with `amplitude` mV for 0.1 s once a second,
/// starting at 0.5 s on the sample clock.
func pulseTrain(amplitude: Float, rate: Double) -> (Int) -> Float {
    { index in
        let t = Double(index) / rate
        let phase = (t - 0.5).truncatingRemainder(dividingBy: 1)
        return t >= 0.5 && phase < 0.1 ? amplitude : 0
    }
}

/// A strip model with `seconds` of samples appended in 50-sample chunks.
func stripModel(leads: [String], rate: Double, stripSeconds: Double, seconds: Double,
                value: (Int, Int) -> Float) -> ECGStripModel {
    var model = ECGStripModel(leadNames: leads, sampleRate: rate, stripSeconds: stripSeconds)
    let total = Int(seconds * rate)
    var chunk = ECGChunk(leadCount: leads.count, capacity: 50)
    var next = 0
    while next < total {
        let count = min(50, total - next)
        chunk.firstSampleIndex = next
        chunk.count = count
        for lead in 0..<leads.count {
            for i in 0..<count { chunk.leads[lead][i] = value(lead, next + i) }
        }
        model.append(chunk)
        next += count
    }
    return model
}

let fixedECGStatus = ECGMonitorStatus(sourceName: "test", heartRateBPM: 60,
                                      rhythm: RhythmStatus(code: .normal, text: "Normal 60 bpm"),
                                      latencyP99Seconds: 0.0012, framesPerSecond: 30)

/// The buffer's lines with trailing spaces removed.
func trimmedLines(_ buffer: Buffer) -> [String] {
    buffer.lines.map { line in
        var trimmed = line
        while trimmed.last == " " { trimmed.removeLast() }
        return trimmed
    }
}

func isBraille(_ c: Character) -> Bool { ("\u{2801}"..."\u{28FF}").contains(c) }
