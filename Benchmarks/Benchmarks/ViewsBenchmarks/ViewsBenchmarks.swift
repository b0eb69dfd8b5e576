// Cost of one `tscope watch` frame after the data has arrived: the spectrum
// view draws an 8192-bin frame into the cell buffer (decimation, braille trace,
// status line) and the diff writer turns the buffer into terminal bytes (into
// its output array, not to a file descriptor). Two frames with different noise
// alternate so every iteration has a real diff to send.
import Benchmark
import Signals
import Terminal
import ViewModels
import Views

/// bins per frame: a full-width HackRF sweep at ~730 kHz bins, or a zoomed one
let binCount = 8192
/// terminal sizes [columns × rows]: a default terminal and a large one
let terminalSizes = [(80, 24), (240, 70)]

/// A frame with a noise floor around −90 dB and two carriers; `seed` changes
/// the noise (a linear congruential generator: repeatable, not random in any
/// strong sense).
func syntheticFrame(seed: UInt32) -> SpectrumFrame {
    var state = seed
    let power = (0..<binCount).map { bin -> Float in
        state = state &* 1_664_525 &+ 1_013_904_223
        let noise = Float(state >> 8) / Float(1 << 24) * 12 - 96
        if abs(bin - 2000) < 3 { return -30 }
        if abs(bin - 6000) < 20 { return -55 }
        return noise
    }
    return SpectrumFrame(startHz: 2_400_000_000, binWidthHz: 12_207.03125, timestamp: 0, powerDB: power)
}

/// One terminal's worth of watch state: view, buffer, writer and a model
/// showing the whole frame.
final class WatchScreen {
    let view = SpectrumPlotView()
    let writer = DiffWriter(mode: .trueColor)
    var buffer: Buffer
    let model: SpectrumPlotModel
    let status = SpectrumStatus(deviceName: "HackRF One (emulated)", isDemo: true,
                                binWidthHz: 12_207.03125, framesPerSecond: 30)

    init(width: Int, height: Int, band: FrequencyRange) {
        buffer = Buffer(width: width, height: height)
        let pixels = SpectrumPlotView.plotPixels(width: width, height: height)
        model = SpectrumPlotModel(deviceLimits: FrequencyRange(lowerHz: 0, upperHz: 6_000_000_000)!,
                                  visibleBand: band, referenceLevelDB: 0, displaySpanDB: 100,
                                  pixelColumns: pixels.columns, pixelRows: pixels.rows)
    }

    /// Draws `frame` and diffs it; returns the bytes the terminal would get.
    @inline(__always)
    func frame(_ frame: SpectrumFrame) -> Int {
        view.render(model: model, frame: frame, status: status, into: &buffer)
        writer.render(buffer)
        return writer.output.count
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )

    let frames = [syntheticFrame(seed: 1), syntheticFrame(seed: 2)]
    let band = frames[0].range!

    for (width, height) in terminalSizes {
        let screen = WatchScreen(width: width, height: height, band: band)
        var next = 0
        Benchmark("watch frame render+diff \(width)x\(height)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(screen.frame(frames[next]))
                next ^= 1
            }
        }

        // The same frame again must send nothing: the diff finds no change.
        // The first frame is drawn here, outside the measured closure.
        let unchanged = WatchScreen(width: width, height: height, band: band)
        _ = unchanged.frame(frames[0])
        Benchmark("watch unchanged frame \(width)x\(height)") { benchmark in
            for _ in benchmark.scaledIterations {
                let bytes = unchanged.frame(frames[0])
                precondition(bytes == 0, "an unchanged frame wrote \(bytes) bytes")
                blackHole(bytes)
            }
        }
    }

    waterfallBenchmarks()
}
