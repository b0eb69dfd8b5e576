// Off-line ECG processing speed against real time: one lead of MIT-BIH record
// 100 (360 Hz, 30:05) through the zero-phase filter chain and the QRS
// detector, and the live pipeline a chunk at a time. One iteration processes
// the whole record; real-time factor = 1805 s / wall-clock time per iteration.
import Benchmark
import ECG
import Foundation

/// MIT-BIH 100 from the test fixtures (located from this file).
let recordPath = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/ECGTests/Fixtures/mitdb-100/100").path

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: 20
    )
    guard let record = try? WFDBRecordReader.read(path: recordPath) else {
        print("ECGBenchmarks: cannot read \(recordPath)")
        return
    }
    let lead = record.samples[0]

    Benchmark("Off-line lead 360 Hz 30 min: zero-phase filters + QRS") { benchmark in
        let chain = ECGFilterChain.standard(sampleRate: record.sampleRate, mains: 60)
        var samples = lead
        for _ in benchmark.scaledIterations {
            samples.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: lead) }
            chain.zeroPhase(&samples)
            blackHole(QRSDetector.detect(samples, sampleRate: record.sampleRate))
        }
    }

    Benchmark("QRS detector only, 360 Hz 30 min") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(QRSDetector.detect(lead, sampleRate: record.sampleRate))
        }
    }

    // each detector behind the BeatDetector protocol, side by side (real-time factor = 1805 s / p50)
    for kind in BeatDetectorKind.allCases {
        Benchmark("QRS detector \(kind.rawValue), 360 Hz 30 min") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(kind.detect(lead, sampleRate: record.sampleRate))
            }
        }
        Benchmark("Live pipeline 2 leads, 100 ms chunks, 360 Hz 30 min, \(kind.rawValue)") { benchmark in
            for _ in benchmark.scaledIterations {
                let source = RecordSource(record: record)
                let pipeline = ECGPipeline(source: source, mains: 60, detector: kind)
                var chunk = ECGChunk(leadCount: 2, capacity: 36)
                benchmark.startMeasurement()
                while case .samples = try source.read(into: &chunk) { pipeline.process(&chunk) }
                benchmark.stopMeasurement()
                blackHole(pipeline.beats.count)
            }
        }
    }

    Benchmark("Live pipeline 2 leads, 100 ms chunks, 360 Hz 30 min") { benchmark in
        for _ in benchmark.scaledIterations {
            let source = RecordSource(record: record)
            let pipeline = ECGPipeline(source: source, mains: 60)
            var chunk = ECGChunk(leadCount: 2, capacity: 36)
            benchmark.startMeasurement()
            while case .samples = try source.read(into: &chunk) { pipeline.process(&chunk) }
            benchmark.stopMeasurement()
            blackHole(pipeline.beats.count)
        }
    }
}
