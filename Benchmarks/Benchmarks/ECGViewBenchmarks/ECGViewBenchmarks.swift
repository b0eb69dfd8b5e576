// Cost of one `tscope ecg watch` frame at 30 fps with 13 streams at 1000 Hz:
// 33–34 new samples per lead go into the strip model (the sweep history),
// the monitor view draws the paper, calibration pulses and traces into the
// cell buffer, and the diff writer turns it into terminal bytes (into its
// output array). This is the work between reading the newest sample and
// writing the frame: the pipeline's part of the sample-to-screen latency.
// Frame time × 30 is the share of one core the view takes at 30 fps.
import Benchmark
import ECG
import Terminal
import ViewModels
import Views

/// samples per second per lead [Hz]
let sampleRate = 1000.0
/// frames per second the viewer draws
let framesPerSecond = 30.0
let leadNames13 = ["I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6", "X"]

/// A repeating beat-like waveform per lead [mV]: a baseline with a narrow
/// spike once a second and a small wave after it (enough for a realistic trace).
func waveform(lead: Int, index: Int) -> Float {
    let t = Double(index % 1000) / sampleRate
    let amplitude = Float(lead % 4 + 1) * 0.3
    if t > 0.30 && t < 0.34 { return amplitude }
    if t > 0.50 && t < 0.70 { return amplitude * 0.25 }
    return 0.02 * Float((index * 7 + lead) % 5) / 5
}

/// One terminal's worth of ECG watch state fed by a precomputed 13-lead stream.
final class ECGScreen {
    let view = ECGMonitorView()
    let strips = ECGStripView()
    let writer = DiffWriter(mode: .trueColor)
    var buffer: Buffer
    var model: ECGMonitorModel
    let status = ECGMonitorStatus(sourceName: "bench", heartRateBPM: 60,
                                  rhythm: RhythmStatus(code: .normal, text: "Normal 60 bpm"),
                                  latencyP99Seconds: 0.001, framesPerSecond: 30)
    var chunk = ECGChunk(leadCount: leadNames13.count, capacity: 64)
    /// a second of samples per lead, replayed
    let stream: [[Float]]
    var next = 0
    var frame = 0

    init(width: Int, height: Int, layout: ECGMonitorModel.Layout, leads: Int) {
        buffer = Buffer(width: width, height: height)
        let names = Array(leadNames13.prefix(leads))
        model = ECGMonitorModel(strip: ECGStripModel(leadNames: names, sampleRate: sampleRate, stripSeconds: 10),
                                refreshRate: framesPerSecond, layout: layout)
        stream = (0..<leads).map { lead in (0..<1000).map { waveform(lead: lead, index: $0) } }
        chunk = ECGChunk(leadCount: leads, capacity: 64)
        // fill the strip once so every frame draws a full sweep
        for _ in 0..<300 { _ = step() }
    }

    /// One frame: the samples of 1/30 s, then draw and diff. Returns the bytes.
    @inline(__always)
    func step() -> Int {
        // 1000 Hz / 30 fps: 33 or 34 samples so that 30 frames make 1000
        frame += 1
        let count = Int(Double(frame) * sampleRate / framesPerSecond) - Int(Double(frame - 1) * sampleRate / framesPerSecond)
        chunk.firstSampleIndex = next
        chunk.count = count
        for lead in 0..<stream.count {
            for i in 0..<count { chunk.leads[lead][i] = stream[lead][(next + i) % 1000] }
        }
        next += count
        model.strip.append(chunk)
        if model.layout == .strip {
            // every lead stacked full width: 13 traces of 10 000 positions
            strips.render(model: model.strip, leads: 0..<model.strip.leadCount, in: buffer.area, into: &buffer)
        } else {
            view.render(model: model, status: status, in: buffer.area, into: &buffer)
        }
        writer.render(buffer)
        return writer.output.count
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 30,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )

    for (width, height) in [(80, 24), (160, 48)] {
        let strips = ECGScreen(width: width, height: height, layout: .strip, leads: 13)
        Benchmark("ECG frame 13 leads × 1000 Hz, 13 stacked strips, \(width)x\(height)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(strips.step()) }
        }
        let printout = ECGScreen(width: width, height: height, layout: .twelveLead, leads: 13)
        Benchmark("ECG frame 13 leads × 1000 Hz, 12-lead + rhythm, \(width)x\(height)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(printout.step()) }
        }
    }
}
