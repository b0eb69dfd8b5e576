import Foundation
import GRDB
import Signals
import Testing
import ThreadKitTesting
@testable import Capture

@Suite struct CaptureStoreTests {
    static func sampleMetadata() -> CaptureMetadata {
        var metadata = CaptureMetadata(format: "tscope")
        metadata.device = "HackRF One"
        metadata.serial = "0000000000000000457863c8234e6a63"
        metadata.gains = "lna=16 vga=20 amp=0"
        metadata.span = FrequencyRange(lowerHz: 88e6, upperHz: 108e6)
        metadata.binWidthHz = 19_531.25
        metadata.label = "fm-survey"
        metadata.operatorName = "bench2"
        metadata.utcOffsetSeconds = 3600
        metadata.writerVersion = "0.4.0"
        return metadata
    }

    static func session(startedAt: Double = 1_763_720_100) -> CaptureSessionInfo {
        CaptureSessionInfo(startedAt: startedAt, label: "fm-survey", operatorName: "bench2",
                           band: FrequencyRange(lowerHz: 88e6, upperHz: 108e6), binWidthHz: 19_531.25,
                           requestedFrameRate: 10)
    }

    @Test func framesAndMetadataRoundTripExactly() throws {
        let directory = try TemporaryDirectory("roundtrip")
        defer { directory.remove() }
        let path = directory.path("a.tscope")
        let frames = makeFrames(count: 50, bins: 1021, seed: 7)
        let writer = try CaptureStoreWriter(path: path, metadata: Self.sampleMetadata(), session: Self.session())
        for frame in frames { try writer.write(frame) }
        try writer.finish(outcome: CaptureSessionOutcome(stoppedAt: 1_763_720_105.5, achievedFrameRate: 9.75,
                                                         droppedBlocks: 3, droppedFrames: 1))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "finish leaves one self-contained file")

        let reader = try CaptureStoreReader(path: path)
        #expect(reader.metadata == Self.sampleMetadata())
        #expect(reader.frameCount == 50)
        #expect(reader.timeRange == frames.first!.timestamp...frames.last!.timestamp)
        let read = try readAll(reader)
        #expect(read.count == frames.count)
        #expect(zip(read, frames).allSatisfy(identical))
        #expect(reader.sessions.count == 1)
        let session = try #require(reader.sessions.first)
        #expect(session.frames == 50 && session.droppedBlocks == 3 && session.droppedFrames == 1)
        #expect(session.requestedFrameRate == 10 && session.achievedFrameRate == 9.75)
        #expect(session.stoppedAt == 1_763_720_105.5 && session.label == "fm-survey" && session.operatorName == "bench2")
        #expect(session.band == FrequencyRange(lowerHz: 88e6, upperHz: 108e6))
    }

    /// Channel power from a recording must be the live run's: each frame's
    /// noise bandwidth is stored; a file without the column reads nil and
    /// gets it when appended to.
    @Test func theNoiseBandwidthIsKeptPerFrame() throws {
        let directory = try TemporaryDirectory("nbw")
        defer { directory.remove() }
        let path = directory.path("a.tscope")
        var frames = makeFrames(count: 3, bins: 64, seed: 3)
        frames[0].noiseBandwidthHz = 1.5 * frames[0].binWidthHz
        frames[2].noiseBandwidthHz = 29_296.875
        let writer = try CaptureStoreWriter(path: path, metadata: Self.sampleMetadata(), session: Self.session())
        for frame in frames { try writer.write(frame) }
        try writer.finish(outcome: CaptureSessionOutcome(stoppedAt: 1_763_720_105.5, achievedFrameRate: 10,
                                                         droppedBlocks: 0, droppedFrames: 0))
        #expect(try readAll(try CaptureStoreReader(path: path)).map(\.noiseBandwidthHz) == frames.map(\.noiseBandwidthHz))

        // an older file: the column dropped, as before it existed
        let database = try DatabaseQueue(path: path)
        try database.write { try $0.execute(sql: "ALTER TABLE frames DROP COLUMN noise_bandwidth_hz") }
        try database.close()
        #expect(try readAll(try CaptureStoreReader(path: path)).allSatisfy { $0.noiseBandwidthHz == nil })
        let appender = try CaptureStoreWriter(path: path, metadata: Self.sampleMetadata(), session: Self.session())
        try appender.write(frames[2])
        try appender.finish(outcome: CaptureSessionOutcome(stoppedAt: 1_763_720_200, achievedFrameRate: 10,
                                                           droppedBlocks: 0, droppedFrames: 0))
        #expect(try readAll(try CaptureStoreReader(path: path)).map(\.noiseBandwidthHz) == [nil, nil, nil, 29_296.875])
    }

    @Test func blobIsLittleEndianFloat32() throws {
        var bytes = [UInt8](repeating: 0, count: 8)
        bytes.withUnsafeMutableBytes { PowerBlobCoding.encode([-1.5, 100.25], into: $0) }
        // -1.5 = 0xBFC00000, 100.25 = 0x42C88000, least significant byte first
        #expect(bytes == [0x00, 0x00, 0xC0, 0xBF, 0x00, 0x80, 0xC8, 0x42])
        var decoded: [Float] = [9, 9, 9]
        bytes.withUnsafeBytes { PowerBlobCoding.decode($0, count: 2, into: &decoded) }
        #expect(decoded == [-1.5, 100.25])
    }

    @Test func secondWriterAppendsASession() throws {
        let directory = try TemporaryDirectory("append")
        defer { directory.remove() }
        let path = directory.path("b.tscope")
        let first = makeFrames(count: 5, bins: 64, seed: 1)
        let second = makeFrames(count: 7, bins: 32, seed: 2, start: first.last!.timestamp + 60)
        for (frames, start) in [(first, 1.0), (second, 2.0)] {
            let writer = try CaptureStoreWriter(path: path, metadata: Self.sampleMetadata(),
                                                session: Self.session(startedAt: start))
            for frame in frames { try writer.write(frame) }
            try writer.finish()
        }
        let reader = try CaptureStoreReader(path: path)
        #expect(reader.sessions.map(\.frames) == [5, 7])
        #expect(reader.sessions.map(\.startedAt) == [1, 2])
        #expect(zip(try readAll(reader), first + second).allSatisfy(identical))
    }

    @Test func commitsOncePerIntervalAndNotBefore() throws {
        let directory = try TemporaryDirectory("cadence")
        defer { directory.remove() }
        let path = directory.path("c.tscope")
        let clock = ManualClock()
        let writer = try CaptureStoreWriter(path: path, metadata: Self.sampleMetadata(), session: Self.session(),
                                            options: .init(commitInterval: 1, clock: clock))
        let frames = makeFrames(count: 40, bins: 16, seed: 3)
        // 10 frames per second of (manual) time: a commit after every 10th frame
        var visible: [Int] = []
        for (index, frame) in frames.enumerated() {
            clock.advance(by: 0.1)
            try writer.write(frame)
            if index % 10 == 9 { visible.append(try CaptureStoreReader(path: path).frameCount) }
        }
        #expect(writer.commits == 4)
        #expect(visible == [10, 20, 30, 40])
        // a frame written, no time passes: not visible to another connection yet
        try writer.write(frames[0])
        #expect(try CaptureStoreReader(path: path).frameCount == 40)
        clock.advance(by: 1)
        try writer.commitIfDue()
        #expect(try CaptureStoreReader(path: path).frameCount == 41)
        try writer.finish()
    }

    @Test func seekFindsTheFirstFrameAtOrAfterATime() throws {
        let directory = try TemporaryDirectory("seek")
        defer { directory.remove() }
        let path = directory.path("d.tscope")
        let frames = makeFrames(count: 100, bins: 8, seed: 4, start: 5000, interval: 0.5)
        let writer = try CaptureStoreWriter(path: path, metadata: Self.sampleMetadata(), session: Self.session())
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        let reader = try CaptureStoreReader(path: path)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        for target in [5000.0, 5010.25, 5020.5, 4000, 5049.5] {
            try reader.seek(toTime: target)
            #expect(try reader.next(into: &frame))
            let expected = frames.first { $0.timestamp >= target }!
            #expect(identical(frame, expected), "seek \(target)")
        }
        try reader.seek(toTime: 6000)
        #expect(try !reader.next(into: &frame))
        try reader.seek(toTime: 5040)
        #expect(try readAll(reader).count == 20)
    }

    @Test func nonCaptureFilesGiveOneClearLine() throws {
        let directory = try TemporaryDirectory("errors")
        defer { directory.remove() }
        let empty = directory.path("empty.tscope")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let text = directory.path("text.tscope")
        _ = FileManager.default.createFile(atPath: text, contents: Data("2024-01-01, 00:00:00, 1, 2\n".utf8))
        let other = directory.path("other.sqlite")
        let queue = try DatabaseQueue(path: other)
        try queue.write { try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        try queue.close()

        let good = directory.path("good.tscope")
        let writer = try CaptureStoreWriter(path: good, metadata: Self.sampleMetadata(), session: Self.session())
        for frame in makeFrames(count: 200, bins: 512, seed: 5) { try writer.write(frame) }
        try writer.finish()
        let truncated = directory.path("truncated.tscope")
        let whole = try Data(contentsOf: URL(fileURLWithPath: good))
        _ = FileManager.default.createFile(atPath: truncated, contents: whole.prefix(whole.count / 2))

        let cases: [(String, String)] = [
            (empty, "\(empty): byte 0: empty file"),
            (text, "\(text): byte 0: not a tscope capture: expected an SQLite database"),
            (other, "\(other): an SQLite database but not a tscope capture"),
            (truncated, "\(truncated): byte \(whole.count / 2): truncated"),
            (directory.path("missing.tscope"), "no such file"),
        ]
        for (path, message) in cases {
            #expect {
                _ = try CaptureStoreReader(path: path)
            } throws: { error in
                let text = "\(error)"
                return (error as? CaptureError) != nil && text.contains(message) && !text.contains("\n")
            }
        }
        // appending to a file that is not a capture is refused the same way
        #expect(throws: CaptureError.self) {
            _ = try CaptureStoreWriter(path: other, metadata: Self.sampleMetadata(), session: Self.session())
        }
    }

    @Test func damagedFrameRowIsSkippedOrFatalWhenStrict() throws {
        let directory = try TemporaryDirectory("damaged")
        defer { directory.remove() }
        let path = directory.path("e.tscope")
        let writer = try CaptureStoreWriter(path: path, metadata: Self.sampleMetadata(), session: Self.session())
        for frame in makeFrames(count: 3, bins: 8, seed: 6) { try writer.write(frame) }
        try writer.finish()
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "UPDATE frames SET bin_count = 9 WHERE id = 2") }
        try queue.close()
        let lenient = try CaptureStoreReader(path: path)
        #expect(try readAll(lenient).count == 2)
        #expect(lenient.skipped == 1)
        let strict = try CaptureStoreReader(path: path, strict: true)
        #expect {
            _ = try readAll(strict)
        } throws: { "\($0)".contains("frame row 2: power blob of 32 bytes, expected 4 × 9 bins") }
    }

    /// A file edited by hand or damaged may hold a value of any SQLite type in
    /// any column (SQLite does not enforce REAL or INTEGER): found by
    /// CaptureStoreFuzz, these trapped in GRDB's non-optional decoding.
    @Test func valuesOfTheWrongTypeAreDamageNotATrap() throws {
        let directory = try TemporaryDirectory("wrongtype")
        defer { directory.remove() }
        func store(_ name: String, edit: String) throws -> String {
            let path = directory.path(name)
            let writer = try CaptureStoreWriter(path: path, metadata: Self.sampleMetadata(), session: Self.session())
            for frame in makeFrames(count: 3, bins: 8, seed: 6) { try writer.write(frame) }
            try writer.writeGap(from: 1, to: 2, reason: "unplugged")
            try writer.finish()
            let queue = try DatabaseQueue(path: path)
            try queue.write { try $0.execute(sql: edit) }
            try queue.close()
            return path
        }
        for (name, edit) in [("gap.tscope", "UPDATE gaps SET from_ts = 'x'"),
                             ("session.tscope", "UPDATE sessions SET started_at = 'noon'"),
                             ("metadata.tscope", "UPDATE metadata SET value = x'00ff' WHERE key = 'device'")] {
            let path = try store(name, edit: edit)
            #expect {
                _ = try CaptureStoreReader(path: path)
            } throws: { error in
                (error as? CaptureError) != nil && "\(error)".contains("damaged capture") && !"\(error)".contains("\n")
            }
        }
        // a frame's bin count as text, or one so large that 4 × count overflows: that frame is damage
        for (name, edit) in [("count.tscope", "UPDATE frames SET bin_count = 'many' WHERE id = 2"),
                             ("huge.tscope", "UPDATE frames SET bin_count = 4611686018427387904 WHERE id = 2")] {
            let path = try store(name, edit: edit)
            let lenient = try CaptureStoreReader(path: path)
            #expect(try readAll(lenient).count == 2)
            #expect(lenient.skipped == 1)
            #expect(throws: CaptureError.self) { _ = try readAll(try CaptureStoreReader(path: path, strict: true)) }
        }
        // a time that is not a number: one line (at open, where the time range is read; the frames after it cannot be ordered)
        let time = try store("time.tscope", edit: "UPDATE frames SET timestamp = 'later' WHERE id = 3")
        #expect {
            _ = try readAll(try CaptureStoreReader(path: time))
        } throws: { error in
            (error as? CaptureError) != nil && "\(error)".contains("damaged capture") && "\(error)".contains("timestamp")
                && !"\(error)".contains("\n")
        }
    }
}

/// A capture recorded in dBm (a calibrated analyzer) says so in every export:
/// the PNG's colour bar, the long CSV's and the trace CSV's power column.
@Suite struct DBmExportTests {
    static func store(gains: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("dbm.tscope")
        var metadata = CaptureStoreTests.sampleMetadata()
        metadata.gains = gains
        let writer = try CaptureStoreWriter(path: path, metadata: metadata, session: CaptureStoreTests.session())
        for frame in makeFrames(count: 20, bins: 101, seed: 3) { try writer.write(frame) }
        try writer.finish(outcome: CaptureSessionOutcome(stoppedAt: 1_763_720_105, achievedFrameRate: 4,
                                                         droppedBlocks: 0, droppedFrames: 0))
        return path
    }

    @Test(arguments: [("lna=16 vga=20 amp=0 unit=dBm calibration=2026-11-25 serial=demo", "dBm"),
                      ("lna=16 vga=20 amp=0", "dB")])
    func exportsNameTheUnit(gains: String, unit: String) throws {
        let directory = try TemporaryDirectory("dbm")
        defer { directory.remove() }
        let path = try Self.store(gains: gains, in: directory)
        #expect(try CaptureStoreReader(path: path).metadata.levelUnit.rawValue == unit)
        let summary = try PNGWaterfallExporter().export(open: { try CaptureStoreReader(path: path) },
                                                        to: directory.path("w.png"), title: "dbm")
        #expect(summary.labels.contains { $0.text == unit }, "\(summary.labels.map(\.text))")
        #expect(!summary.labels.contains { $0.text == (unit == "dB" ? "dBm" : "dB") })
        let csv = directory.path("long.csv")
        let writer = try CaptureFormat.csv.openWriter(path: csv, csvLayout: .long,
                                                      metadata: try CaptureStoreReader(path: path).metadata)
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        let reader = try CaptureStoreReader(path: path)
        while try reader.next(into: &frame) { try writer.write(frame) }
        try writer.finish()
        let header = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").first
        #expect(header == "time,frequency_hz,\(unit == "dBm" ? "power_dbm" : "power_db")")
        let trace = directory.path("trace.csv")
        _ = try TraceExporter.export(try CaptureStoreReader(path: path), kind: .max, to: trace, input: path)
        let traceHeader = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").first
        #expect(traceHeader == "frequency_hz,\(unit == "dBm" ? "power_dbm" : "power_db")")
    }
}
