// Import throughput and allocations of the rtl_power reader on a real
// capture repeated in memory (no disk in the loop), and the CSV export of
// its frames. Tools/bench-formats measures the same on a 1 GB file.
import Benchmark
import Capture
import Foundation
import Signals

/// The Osaka capture (Tests/CaptureTests/Fixtures, provenance there) repeated
/// `copies` times: the reader sees a long file of 1-second frames.
func repeatedCapture(copies: Int) -> [UInt8] {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/CaptureTests/Fixtures/rtl_power-fm-osaka/nhkfm3.csv")
    guard let one = try? Data(contentsOf: path) else { fatalError("fixture missing: \(path.path)") }
    // The timestamps repeat: read lenient, a backwards time is counted, which
    // costs the same parsing as an accepted line.
    return [UInt8]((0..<copies).map { _ in one }.joined())
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(5),
        maxIterations: 20
    )
    let bytes = repeatedCapture(copies: 100)  // 32.5 MB

    Benchmark("rtl_power CSV import, 32.5 MB (throughput = MB/s × scale)") { benchmark in
        bytes.withUnsafeBytes { raw in
            let reader = RTLPowerCSVReader(input: ByteInput(bytes: raw), options: CaptureReadOptions(timeZone: .utcOffset(seconds: 0)))
            var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
            var frames = 0
            benchmark.startMeasurement()
            while (try? reader.next(into: &frame)) == true { frames += 1 }
            benchmark.stopMeasurement()
            blackHole(frames)
        }
    }

    Benchmark("CSV export (wide) of 299 frames to /dev/null") { benchmark in
        let frames: [SpectrumFrame] = bytes.prefix(bytes.count / 100).withUnsafeBytes { raw in
            let reader = RTLPowerCSVReader(input: ByteInput(bytes: raw), options: CaptureReadOptions(timeZone: .utcOffset(seconds: 0)))
            var all: [SpectrumFrame] = []
            var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
            while (try? reader.next(into: &frame)) == true { all.append(frame) }
            return all
        }
        guard let sink = try? OutputSink.file(path: "/dev/null") else { return }
        let writer = CSVExporter(sink: sink, layout: .wide)
        benchmark.startMeasurement()
        for frame in frames { try? writer.write(frame) }
        try? writer.finish()
        benchmark.stopMeasurement()
    }
}
