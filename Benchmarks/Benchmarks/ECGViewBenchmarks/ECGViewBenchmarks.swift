// Cost of one `tscope ecg watch` frame at 30 fps with 13 streams at 1000 Hz,
// through the real pipeline: the paced source releases 1/30 s of samples
// (33–34 per lead), `ECGFeed` runs them through `ECGPipeline` (NaN hold,
// 0.5 Hz high-pass, 50 Hz notch, 40 Hz low-pass on every lead, QRS detection
// on lead II, heart rate, rhythm, events) into the strip model, the monitor
// view draws paper, calibration pulses and traces into the cell buffer, and
// the diff writer turns it into terminal bytes. One iteration is the work
// between reading the newest sample and having the frame's bytes: the
// sample-to-screen latency measured inside the pipeline (the terminal's own
// write excluded). Frame time × 30 is the share of one core at 30 fps.
import Benchmark
import ECG
import Terminal
import ViewModels
import Views

/// samples per second per lead [Hz]
let sampleRate = 1000.0
/// frames per second the viewer draws
let framesPerSecond = 30.0
/// length of the pre-generated stream that is replayed in a loop [s]
let streamSeconds = 20.0

/// 13 leads: the synthetic 12-lead ECG (seed 1) and a 13th lead II from a second generator (seed 2).
func thirteenLeadRecord() throws -> ECGRecord {
    func generate(leads: Int, seed: UInt64) throws -> (names: [String], samples: [[Float]]) {
        var settings = SyntheticECGSettings()
        settings.leadCount = leads
        settings.sampleRate = sampleRate
        settings.seed = seed
        let generator = SyntheticECG(settings: settings)
        let count = Int(streamSeconds * sampleRate)
        var chunk = ECGChunk(leadCount: leads, capacity: count)
        _ = try generator.read(into: &chunk)
        return (generator.leadNames, chunk.leads)
    }
    let twelve = try generate(leads: 12, seed: 1)
    let extra = try generate(leads: 1, seed: 2)
    return ECGRecord(name: "bench", sampleRate: sampleRate, leadNames: twelve.names + ["X"],
                     samples: twelve.samples + extra.samples)
}

/// Replays a record forever (the benchmark runs longer than the record).
final class LoopingSource: ECGSource {
    let inner: RecordSource
    init(_ record: ECGRecord) { inner = RecordSource(record: record) }
    var leadNames: [String] { inner.leadNames }
    var sampleRate: Double { inner.sampleRate }
    func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        let result = try inner.read(into: &chunk)
        guard result == .end else { return result }
        inner.seek(to: 0)
        return try inner.read(into: &chunk)
    }
}

/// The benchmark's clock: one frame period per step [s].
final class FrameClock {
    var now = 0.0
}

/// One terminal's worth of `ecg watch`, driven by a clock that advances one frame per step.
final class ECGScreen {
    let writer = DiffWriter(mode: .trueColor)
    var buffer: Buffer
    let monitor: ECGLiveMonitor
    let clock = FrameClock()

    init(record: ECGRecord, width: Int, height: Int, layout: ECGMonitorModel.Layout) throws {
        buffer = Buffer(width: width, height: height)
        let source = PacedSource(LoopingSource(record), clock: { [clock] in clock.now })
        let feed = ECGFeed(source: source, sourceName: "bench", qrsLead: 1)
        let model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: 10), refreshRate: framesPerSecond, layout: layout)
        monitor = ECGLiveMonitor(feed: feed, model: model)
        // a full sweep on screen before measuring
        for _ in 0..<330 { _ = try step() }
    }

    /// One frame: 1/30 s of samples through the pipeline, then draw and diff. Returns the bytes.
    @inline(__always)
    func step() throws -> Int {
        clock.now += 1 / framesPerSecond
        try monitor.update(now: clock.now)
        monitor.render(in: buffer.area, into: &buffer)
        writer.render(buffer)
        monitor.presented(at: clock.now)
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
    guard let record = try? thirteenLeadRecord() else { fatalError("the synthetic generator failed") }

    for (width, height) in [(80, 24), (160, 48)] {
        for (layout, name) in [(ECGMonitorModel.Layout.twelveLead, "12-lead + rhythm"), (.strip, "strips")] {
            guard let screen = try? ECGScreen(record: record, width: width, height: height, layout: layout) else {
                fatalError("the pipeline failed")
            }
            Benchmark("ECG source→pipeline→screen, 13 leads × 1000 Hz, \(name), \(width)x\(height)") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try screen.step()) }
            }
        }
    }
}
