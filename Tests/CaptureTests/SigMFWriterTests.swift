import Foundation
import Testing
@testable import Capture

@Suite struct SigMFWriterTests {
    @Test func aRecordingThatNeverStartedLeavesNoFilesOneThatDidKeepsThem() throws {
        let directory = try TemporaryDirectory("sigmf-discard")
        defer { directory.remove() }
        let empty = try SigMFWriter(basePath: directory.path("never"), datatype: .ci8, sampleRate: 20e6)
        #expect(FileManager.default.fileExists(atPath: empty.dataPath))
        empty.discardIfEmpty()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
        let started = try SigMFWriter(basePath: directory.path("started"), datatype: .ci8, sampleRate: 20e6)
        try [UInt8](repeating: 1, count: 16).withUnsafeBytes {
            try started.append(samples: $0, centerFrequencyHz: 2.4e9, timestamp: 1_795_256_100)
        }
        started.discardIfEmpty()
        try started.finish()
        #expect(try Data(contentsOf: URL(fileURLWithPath: started.dataPath)).count == 16)
        #expect(FileManager.default.fileExists(atPath: started.metaPath))
    }

    @Test func segmentsPerFrequencyAndMetaFollowsTheSpec() throws {
        let directory = try TemporaryDirectory("sigmf")
        defer { directory.remove() }
        let base = directory.path("rec")
        let writer = try SigMFWriter(basePath: base, datatype: .cu8, sampleRate: 2.4e6, hardware: "RTL-SDR \"v3\"")
        let block: [UInt8] = (0..<32).map { UInt8($0) }
        // 3 blocks at 100 MHz, 1 at 101 MHz, 1 back at 100 MHz: 3 segments
        for (index, frequency) in [100e6, 100e6, 100e6, 101e6, 100e6].enumerated() {
            try block.withUnsafeBytes {
                try writer.append(samples: $0, centerFrequencyHz: frequency, timestamp: 1_795_256_100.5 + Double(index))
            }
        }
        try writer.finish()
        let data = try Data(contentsOf: URL(fileURLWithPath: base + ".sigmf-data"))
        #expect(data == Data(Array(repeating: block, count: 5).joined()))
        let meta = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: base + ".sigmf-meta"))) as? [String: Any])
        let global = try #require(meta["global"] as? [String: Any])
        #expect(global["core:datatype"] as? String == "cu8" && global["core:sample_rate"] as? Double == 2.4e6)
        #expect(global["core:hw"] as? String == "RTL-SDR \"v3\"" && global["core:version"] as? String == "1.0.0")
        let captures = try #require(meta["captures"] as? [[String: Any]])
        #expect(captures.compactMap { $0["core:sample_start"] as? Int } == [0, 48, 64])
        #expect(captures.compactMap { $0["core:frequency"] as? Double } == [100e6, 101e6, 100e6])
        #expect(captures.first?["core:datetime"] as? String == "2026-11-21T10:15:00.500000Z")
        #expect(writer.sampleCount == 80 && writer.segmentCount == 3)
        #expect(!FileManager.default.fileExists(atPath: base + ".sigmf-meta.partial"))
    }

    /// The meta file exists from the start and opens with the data at every moment, before `finish`.
    @Test func metaIsReadableBeforeFinish() throws {
        let directory = try TemporaryDirectory("sigmf-live")
        defer { directory.remove() }
        let base = directory.path("live")
        let writer = try SigMFWriter(basePath: base, datatype: .ci8, sampleRate: 20e6)
        let empty = try SigMFRecording(path: base + ".sigmf-meta")
        #expect(empty.segments.isEmpty)
        let block = [UInt8](repeating: 3, count: 64)
        for (index, frequency) in [100e6, 101e6, 102e6].enumerated() {
            try block.withUnsafeBytes {
                try writer.append(samples: $0, centerFrequencyHz: frequency, timestamp: 1_795_256_100 + Double(index))
            }
            // a segment is written only once the samples before it are in the data file
            let live = try SigMFRecording(path: base + ".sigmf-meta")
            #expect(live.segments.map(\.centerHz) == Array([100e6, 101e6, 102e6].prefix(index + 1)))
            #expect(live.segments.last?.sampleStart == 32 * index)
        }
        try writer.finish()
        #expect(try SigMFRecording(path: base + ".sigmf-meta").segments.count == 3)
    }

    @Test func oddByteCountIsRefused() throws {
        let directory = try TemporaryDirectory("sigmf-odd")
        defer { directory.remove() }
        let writer = try SigMFWriter(basePath: directory.path("odd"), datatype: .ci8, sampleRate: 20e6)
        #expect(throws: CaptureError.self) {
            try [UInt8](repeating: 0, count: 3).withUnsafeBytes {
                try writer.append(samples: $0, centerFrequencyHz: 1e9, timestamp: 0)
            }
        }
    }

    @Test func rawQueueDropsOldestAndReturnsBlocksInOrder() {
        let queue = RawBlockQueue(blockSize: 4, capacity: 2)
        for value in UInt8(1)...3 {
            [value, value, value, value].withUnsafeBytes {
                queue.push(frequencyHz: UInt64(value), timestamp: Double(value), block: $0)
            }
        }
        queue.close()
        #expect(queue.dropped == 1)
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 4)
        defer { out.deallocate() }
        var seen: [UInt64] = []
        while let (frequency, _, _) = queue.pop(into: out) {
            seen.append(frequency)
            #expect(Array(out) == [UInt8](repeating: UInt8(frequency), count: 4))
        }
        #expect(seen == [2, 3])
    }

    @Test func rawQueueKeepsEachBlocksLength() {
        let queue = RawBlockQueue(blockSize: 8, capacity: 4)
        [UInt8](repeating: 7, count: 3).withUnsafeBytes { queue.push(frequencyHz: 1, timestamp: 0, block: $0) }
        [UInt8](repeating: 9, count: 20).withUnsafeBytes { queue.push(frequencyHz: 2, timestamp: 0, block: $0) }
        for _ in 0..<10 { [UInt8]().withUnsafeBytes { queue.push(frequencyHz: 3, timestamp: 0, block: $0) } }
        queue.close()
        #expect(queue.dropped == 0)  // empty transfers take no room
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 4)
        defer { out.deallocate() }
        #expect(queue.pop(into: out)?.byteCount == 3)
        #expect(queue.pop(into: out)?.byteCount == 8)  // longer than a block: cut to the block size
        #expect(queue.pop(into: out) == nil)
    }

    @Test func coalescingQueuePacksSmallChunksIntoWholeBlocksInOrder() {
        let queue = RawBlockQueue(blockSize: 8, capacity: 4, coalesce: true)
        var sent: [UInt8] = []
        var next: UInt8 = 0
        for size in [3, 3, 5, 1, 12] {  // 24 bytes: exactly three blocks
            let chunk = (0..<size).map { _ in next &+= 1; return next }
            sent += chunk
            chunk.withUnsafeBytes { queue.push(frequencyHz: 7, timestamp: 0, block: $0) }
        }
        [UInt8](repeating: 0xAA, count: 2).withUnsafeBytes { queue.push(frequencyHz: 8, timestamp: 0, block: $0) }
        queue.close()
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 4)
        defer { out.deallocate() }
        var received: [UInt8] = []
        var lengths: [Int] = []
        while let (frequency, _, length) = queue.pop(into: out) {
            lengths.append(length)
            if frequency == 7 { received += out.prefix(length) }
        }
        #expect(lengths == [8, 8, 8, 2])  // a new frequency starts a new block
        #expect(received == sent)
        #expect(queue.dropped == 0)
    }
}
