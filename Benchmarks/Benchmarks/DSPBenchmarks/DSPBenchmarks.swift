// Throughput and allocations of the DSP stage: bare FFTW against SweepFFT on
// the same sizes (the cost SweepFFT adds: int8 → float, window, |X|², log),
// and column decimation of a full-width frame.
import Benchmark
import CFFTW
import DSP
import Signals

/// FFT sizes: hackrf_sweep's largest (8180), a mid size and its default (20).
let fftSizes = [8180, 100, 20]
/// bytes in one HackRF sweep transfer block
let blockBytes = 16384

/// A deterministic int8 I/Q block (a linear congruential generator: the
/// values only need to be non-trivial, not random in any strong sense).
func syntheticBlock() -> [Int8] {
    var state: UInt32 = 12345
    return (0..<blockBytes).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return Int8(truncatingIfNeeded: Int32(state >> 24) - 128)
    }
}

/// A forward FFTW plan on a preloaded buffer, planned the way SweepFFT plans.
final class BareFFT {
    let input: UnsafeMutablePointer<fftwf_complex>
    let output: UnsafeMutablePointer<fftwf_complex>
    let plan: fftwf_plan

    init(size: Int) {
        input = fftwf_alloc_complex(size)!
        output = fftwf_alloc_complex(size)!
        plan = fftwf_plan_dft_1d(Int32(size), input, output, FFTW_FORWARD, UInt32(FFTW_ESTIMATE))!
        for i in 0..<size {
            input[i].0 = Float(i % 17) / 17 - 0.5
            input[i].1 = Float(i % 13) / 13 - 0.5
        }
    }

    deinit {
        fftwf_destroy_plan(plan)
        fftwf_free(input)
        fftwf_free(output)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    for size in fftSizes {
        let bare = BareFFT(size: size)
        Benchmark("FFTW execute N=\(size)") { benchmark in
            for _ in benchmark.scaledIterations {
                fftwf_execute(bare.plan)
            }
            blackHole(bare.output[0].0)
        }

        let sweep = SweepFFT(fftSize: size)
        let block = syntheticBlock()
        Benchmark("SweepFFT.process N=\(size)") { benchmark in
            block.withUnsafeBytes { bytes in
                for _ in benchmark.scaledIterations {
                    blackHole(sweep.process(bytes)[0])
                }
            }
        }
    }

    // Detectors over the whole dwell: one HackRF block, 8187 usable
    // samples, at 1 MHz / 100 kHz / 10 kHz bins (N = 20 / 200 / 2000). The
    // HackRF delivers one kept block per 1.2288 ms; at 20 MS/s a block's
    // samples last 409 µs: the margins in README divide those by a block's time.
    for size in [20, 200, 2000] {
        for detector in [SpectrumDetector.peak, .average] {
            let fft = SweepFFT(fftSize: size, detector: detector, maxSamples: 8187)
            let block = syntheticBlock()
            Benchmark("SweepFFT \(detector.rawValue) over the dwell N=\(size)") { benchmark in
                block.withUnsafeBytes { bytes in
                    for _ in benchmark.scaledIterations {
                        blackHole(fft.process(bytes)[0])
                    }
                }
            }
        }
    }

    // Every detector kept at once (a sensor's viewers each get
    // their own detector): the same block as above, peak primary, with the
    // mean and last segment kept too; Benchmarks/README.md "serve" compares
    // it with the peak detector alone in the same run.
    for size in [20, 200, 2000] {
        let fft = SweepFFT(fftSize: size, detector: .peak, maxSamples: 8187, keepingEveryDetector: true)
        let block = syntheticBlock()
        Benchmark("SweepFFT every detector over the dwell N=\(size)") { benchmark in
            block.withUnsafeBytes { bytes in
                for _ in benchmark.scaledIterations {
                    blackHole(fft.process(bytes)[0])
                }
            }
        }
    }

    // Trace holds on a 0–6 GHz sweep at 100 kHz bins (60 000 bins),
    // per sweep; a HackRF sweep of that band takes 300 steps × 1.2288 ms = 369 ms.
    let wideSweep = SpectrumFrame(startHz: 0, binWidthHz: 100_000, timestamp: 0,
                                  powerDB: (0..<60_000).map { Float(-100 + ($0 * 37) % 60) })
    for mode in [TraceMode.max, .average(16)] {
        var accumulator = TraceAccumulator(mode: mode)
        var shown = wideSweep
        Benchmark("TraceAccumulator \(mode) add+write, 60000 bins") { benchmark in
            for _ in benchmark.scaledIterations {
                accumulator.add(wideSweep)
                blackHole(accumulator.write(into: &shown))
            }
        }
    }

    // Calibration against the sweep it corrects: a 0–6 GHz sweep
    // is 300 tuning steps of two kept blocks each through SweepFFT (average
    // detector, as `meter` uses), then one add per bin of the assembled
    // frame. Both side by side in one run; README "Calibration" gives the ratio.
    let table = CalibrationTable(
        model: "HackRF One", serial: "demo", firmware: "", settings: "", gainDB: 36, madeAt: 0,
        points: stride(from: 0.0, through: 6e9, by: 50e6).map {
            .init(frequencyHz: $0, offsetDB: -40 - $0 / 1e9, uncertaintyDB: 0.1)
        })
    for (bins, size) in [(6_000, 20), (60_000, 200)] {
        let fft = SweepFFT(fftSize: size, detector: .average, maxSamples: 8187)
        let block = syntheticBlock()
        Benchmark("one 0–6 GHz sweep through SweepFFT, \(bins) bins (600 blocks, N=\(size))") { benchmark in
            block.withUnsafeBytes { bytes in
                for _ in benchmark.scaledIterations {
                    for _ in 0..<600 { blackHole(fft.process(bytes)[0]) }
                }
            }
        }
        // as every frame goes through it live: the lock, a copy of the levels, the offsets added
        let live = LiveCalibration(table: table, gainDB: 44)
        let sweep = SpectrumFrame(startHz: 0, binWidthHz: 6e9 / Double(bins), timestamp: 0,
                                  powerDB: (0..<bins).map { Float(-100 + ($0 * 37) % 60) })
        live.tune(to: FrequencyRange(lowerHz: 0, upperHz: 6e9)!)
        blackHole(live.correct(sweep).powerDB[0])
        Benchmark("LiveCalibration.correct, \(bins)-bin sweep") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(live.correct(sweep).powerDB[0])
            }
        }
    }

    // Real-time mode: one HackRF receive transfer (262144 bytes,
    // 131072 samples = 6.5536 ms at 20 MS/s) through RealtimeSpectrum —
    // int8 → float, DC estimate, Hann window, FFT at 50 % overlap, |X/N|²,
    // the detector per bin, a frame (dB) every 30th of a second. The share
    // of one core the path takes at 20 MS/s is 6.5536 ms × transfers/s;
    // README "Real-time mode" gives it for N = 1024 and 8192.
    var transfer = [Int8](repeating: 0, count: 262_144)
    let pattern = syntheticBlock()
    for i in transfer.indices { transfer[i] = pattern[i % pattern.count] }
    for size in [1024, 8192] {
        for detector in [SpectrumDetector.peak, .average] {
            let spectrum = RealtimeSpectrum(fftSize: size, sampleRateHz: 20e6, detector: detector, format: .int8)
            Benchmark("RealtimeSpectrum \(detector.rawValue) 20 MS/s N=\(size), one 262144-byte transfer") { benchmark in
                transfer.withUnsafeBytes { bytes in
                    for _ in benchmark.scaledIterations {
                        spectrum.consume(bytes) { levels, _ in blackHole(levels[0]) }
                    }
                }
            }
        }
    }

    let decimator = ColumnDecimator(detector: .peak)
    let frame = SpectrumFrame(
        startHz: 2_400_000_000, binWidthHz: 2441.4, timestamp: 0,
        powerDB: (0..<8192).map { Float(-100 + ($0 * 37) % 60) }
    )
    let visible = frame.range!
    let columns = UnsafeMutableBufferPointer<Float>.allocate(capacity: 240)
    Benchmark("ColumnDecimator peak 8192→240") { benchmark in
        for _ in benchmark.scaledIterations {
            decimator.process(frame, visible: visible, into: columns)
        }
        blackHole(columns[0])
    }
}
