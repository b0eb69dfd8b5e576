// The capture store: seeking in a one-hour capture (target < 50 ms), reading
// frames in order, and writing them (the recorder's per-frame cost).
import Benchmark
import Capture
import Foundation
import PostgresStore
import Signals

/// one hour at 10 frames/s (tscope record's default) of 1000 bins: 36 000 frames, ~150 MB
let hourFrames = 36_000
let frameInterval = 0.1
let bins = 1000
let startTime = 1_795_256_100.0

/// Builds the one-hour capture once per run in a temporary directory.
func makeHourCapture() throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tscope-bench-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("hour.tscope").path
    if FileManager.default.fileExists(atPath: path) { return path }
    let writer = try CaptureStoreWriter(path: path, metadata: CaptureMetadata(format: "tscope"),
                                        session: CaptureSessionInfo(startedAt: startTime))
    var random = SeededRandom(seed: 42)
    var frame = SpectrumFrame(startHz: 88e6, binWidthHz: 20e3, timestamp: 0,
                              powerDB: [Float](repeating: 0, count: bins))
    for index in 0..<hourFrames {
        frame.timestamp = startTime + Double(index) * frameInterval
        for bin in 0..<bins { frame.powerDB[bin] = Float(random.unit() * -100) }
        try writer.write(frame)
    }
    try writer.finish()
    return path
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(5))

    Benchmark("seek + first frame, one-hour capture") { benchmark in
        let reader = try CaptureStoreReader(path: try makeHourCapture())
        var random = SeededRandom(seed: 7)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        frame.powerDB.reserveCapacity(bins)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try reader.seek(toTime: startTime + random.unit() * Double(hourFrames) * frameInterval)
            blackHole(try reader.next(into: &frame))
        }
    }

    Benchmark("open one-hour capture (count, time range)") { benchmark in
        let path = try makeHourCapture()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try CaptureStoreReader(path: path).frameCount)
        }
    }

    Benchmark("read 1000 frames in order", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let reader = try CaptureStoreReader(path: try makeHourCapture())
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        frame.powerDB.reserveCapacity(bins)
        try reader.seek(toTime: startTime)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            if try !reader.next(into: &frame) { try reader.seek(toTime: startTime) }
        }
    }

    Benchmark("write 1000 frames (1000 bins)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        try writeFrames(benchmark, name: "w", finishMeasured: false)
    }

    // The two stores side by side: 1000 frames of 1000 bins written and
    // committed (the recorder's work for 100 s of recording). PostgreSQL's
    // only when Tools/bench-stores started a server (TSCOPE_BENCH_POSTGRES).
    Benchmark("store 1000 frames and commit: SQLite", configuration: .init(scalingFactor: .kilo)) { benchmark in
        try writeFrames(benchmark, name: "s", finishMeasured: true)
    }

    if let url = ProcessInfo.processInfo.environment["TSCOPE_BENCH_POSTGRES"] {
        Benchmark("store 1000 frames and commit: PostgreSQL", configuration: .init(scalingFactor: .kilo)) { benchmark in
            let writer = try PostgresCaptureWriter(location: PostgresLocation(url: url),
                                                   metadata: CaptureMetadata(format: "tscope"),
                                                   session: CaptureSessionInfo(startedAt: startTime))
            try writeFrames(benchmark, write: writer.write, finish: { try writer.finish(outcome: nil) },
                            finishMeasured: true)
        }
    }
}

/// Writes the benchmark's iterations of 1000-bin frames into a new SQLite store.
private func writeFrames(_ benchmark: Benchmark, name: String, finishMeasured: Bool) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tscope-bench-\(name)-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let writer = try CaptureStoreWriter(path: directory.appendingPathComponent("\(name).tscope").path,
                                        metadata: CaptureMetadata(format: "tscope"),
                                        session: CaptureSessionInfo(startedAt: startTime))
    try writeFrames(benchmark, write: writer.write, finish: writer.finish, finishMeasured: finishMeasured)
}

/// The recorder's loop: the benchmark's iterations of 1000-bin frames through
/// `write`; `finishMeasured`: the final commit (and checkpoint) counts too.
private func writeFrames(_ benchmark: Benchmark, write: (SpectrumFrame) throws -> Void, finish: () throws -> Void,
                         finishMeasured: Bool) throws {
    var frame = SpectrumFrame(startHz: 88e6, binWidthHz: 20e3, timestamp: startTime,
                              powerDB: [Float](repeating: -50, count: bins))
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        frame.timestamp += frameInterval
        try write(frame)
    }
    if finishMeasured { try finish() }
    benchmark.stopMeasurement()
    if !finishMeasured { try finish() }
}
