// The waterfall's per-frame cost and its memory over an hour. Each redraw
// iteration adds a frame to the history (rows at 2 per second, every frame
// merged by max), composes the whole 240×70 analyzer screen in the waterfall
// view (history rows → cached columns → colour map → half blocks) and diffs
// it. The hour pushes 7200 rows (4 frames each) through the same models and
// views, faster than real time, and writes the resident set size after the
// first and the last row to $TMPDIR/tscope-waterfall-rss.txt (the benchmark
// tool does not show a benchmark's own output).
import Benchmark
import Foundation
import Signals
import Terminal
import ViewModels
import Views

/// One terminal's worth of analyzer state in the waterfall view, with a full history.
final class WaterfallScreen {
    let screen = AnalyzerScreen()
    let writer = DiffWriter(mode: .trueColor)
    var buffer: Buffer
    let model: AnalyzerModel
    let status = SpectrumStatus(deviceName: "HackRF One (emulated)", isDemo: true,
                                binWidthHz: 12_207.03125, framesPerSecond: 30)
    var frame: SpectrumFrame
    /// the timeline [s]
    var now = 1_000_000.0

    init(width: Int, height: Int, band: FrequencyRange, frame: SpectrumFrame) {
        buffer = Buffer(width: width, height: height)
        let pixels = SpectrumPlotView.plotPixels(width: width, height: height)
        let plot = SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 0, upperHz: 6_000_000_000)!,
                                     visibleBand: band, referenceLevelDB: 0, displaySpanDB: 100,
                                     pixelColumns: pixels.columns, pixelRows: pixels.rows)
        model = AnalyzerModel(plot: plot, mode: .waterfall)
        self.frame = frame
        // fill the whole ring first: 12.8 min at 2 rows/s
        for _ in 0..<(WaterfallHistory.defaultCapacity * 2) { step(by: 0.25, draw: false) }
    }

    /// Adds the frame at `now` and, if asked, draws and diffs; returns the bytes the terminal would get.
    @inline(__always)
    func step(by seconds: Double, draw: Bool) -> Int {
        now += seconds
        frame.timestamp = now
        model.waterfall.add(frame)
        guard draw else { return 0 }
        screen.render(model: model, frame: frame, status: status, now: now, into: &buffer)
        writer.render(buffer)
        return writer.output.count
    }
}

/// Resident set size from /proc/self/statm [MiB].
func residentMiB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return .nan }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

func waterfallBenchmarks() {
    let frame = syntheticFrame(seed: 3)
    let band = frame.range!
    for (width, height) in terminalSizes {
        let screen = WaterfallScreen(width: width, height: height, band: band, frame: frame)
        Benchmark("waterfall frame add+redraw+diff \(width)x\(height)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(screen.step(by: 1.0 / 30, draw: true))
            }
        }
    }

    Benchmark("waterfall one hour (7200 rows) 240x70",
              configuration: .init(metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
                                   warmupIterations: 0, maxDuration: .seconds(600), maxIterations: 1)) { _ in
        let screen = WaterfallScreen(width: 240, height: 70, band: band, frame: frame)
        let start = residentMiB()
        var report = "waterfall one hour 240x70: RSS at start \(start) MiB\n"
        var bytes = 0
        for row in 0..<7200 {
            for _ in 0..<3 { _ = screen.step(by: 0.125, draw: false) }
            bytes &+= screen.step(by: 0.125, draw: true)
            if row == 0 || row == 7199 { report += "RSS after row \(row + 1): \(residentMiB()) MiB\n" }
        }
        blackHole(bytes)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tscope-waterfall-rss.txt")
        try? report.write(to: url, atomically: true, encoding: .utf8)
    }
}
