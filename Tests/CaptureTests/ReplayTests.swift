import Foundation
import Signals
import Testing
@testable import Capture

/// A forward-only reader over frames in memory; counts how often it was opened.
final class ForwardOnlyReader: SpectrumFrameReader {
    let frames: [SpectrumFrame]
    private var index = 0

    init(_ frames: [SpectrumFrame]) { self.frames = frames }

    var metadata: CaptureMetadata { CaptureMetadata(format: "forward") }
    var skipped: Int { 0 }
    var progress: (done: Int, total: Int?) { (index, frames.count) }

    func next(into frame: inout SpectrumFrame) throws -> Bool {
        guard index < frames.count else { return false }
        frame = frames[index]
        index += 1
        return true
    }
}

@Suite struct ReopeningSeekableReaderTests {
    /// 50 frames, one every 0.5 s from file time 2000
    static let frames = makeFrames(count: 50, bins: 6, seed: 11, start: 2000, interval: 0.5)

    final class Opens: @unchecked Sendable { var count = 0 }

    static func wrapped(_ opens: Opens) throws -> ReopeningSeekableReader {
        try ReopeningSeekableReader {
            opens.count += 1
            return ForwardOnlyReader(frames)
        }
    }

    func nextTimestamp(_ reader: ReopeningSeekableReader) throws -> Double? {
        var frame = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
        return try reader.next(into: &frame) ? frame.timestamp : nil
    }

    @Test func scanGivesCountAndTimeRangeAndReadsEveryFrameInOrder() throws {
        let opens = Opens()
        let reader = try Self.wrapped(opens)
        #expect(reader.frameCount == 50)
        #expect(reader.timeRange == 2000...2024.5)
        let all = try readAll(reader)
        #expect(all.count == 50)
        #expect(zip(all, Self.frames).allSatisfy { identical($0, $1) })
        #expect(opens.count == 2)
    }

    @Test func seeksForwardWithoutReopeningAndBackwardByReopening() throws {
        let opens = Opens()
        let reader = try Self.wrapped(opens)
        try reader.seek(toTime: 2010.2)
        #expect(try nextTimestamp(reader) == 2010.5)
        try reader.seek(toTime: 2012)
        #expect(try nextTimestamp(reader) == 2012)
        #expect(opens.count == 2)
        try reader.seek(toTime: 2001)
        #expect(opens.count == 3)
        #expect(try nextTimestamp(reader) == 2001)
        #expect(try nextTimestamp(reader) == 2001.5)
    }

    @Test func seekingTwiceToTheSameTimeAndPastTheEnd() throws {
        let opens = Opens()
        let reader = try Self.wrapped(opens)
        try reader.seek(toTime: 2005)
        try reader.seek(toTime: 2005)
        #expect(try nextTimestamp(reader) == 2005)
        // the look-ahead frame is later than a slightly earlier target, but frames between are unknown
        try reader.seek(toTime: 2004.9)
        #expect(try nextTimestamp(reader) == 2005)
        try reader.seek(toTime: 3000)
        #expect(try nextTimestamp(reader) == nil)
        try reader.seek(toTime: 0)
        #expect(try nextTimestamp(reader) == 2000)
    }

    @Test func matchesAnIndexedReaderForSeededSeeks() throws {
        let reader = try Self.wrapped(Opens())
        let reference = MemoryFrameReader(Self.frames)
        var random = SeededRandom(seed: 5)
        for _ in 0..<200 {
            let target = 1995 + random.unit() * 35
            try reader.seek(toTime: target)
            try reference.seek(toTime: target)
            var expected = SpectrumFrame(startHz: 0, binWidthHz: 1, timestamp: 0, powerDB: [])
            let hasExpected = try reference.next(into: &expected)
            #expect(try nextTimestamp(reader) == (hasExpected ? expected.timestamp : nil))
        }
    }
}

@Suite struct ReplayDriverTests {
    /// 101 frames, one every 0.5 s from file time 1000 to 1050
    static func driver(speed: Double = 1, startOffset: Double = 0, at wall: Double = 0) throws -> ReplayDriver {
        try ReplayDriver(reader: MemoryFrameReader(makeFrames(count: 101, bins: 4, seed: 3, start: 1000, interval: 0.5)),
                         speed: speed, startOffset: startOffset, at: wall)
    }

    func played(_ driver: ReplayDriver, upTo wall: Double) throws -> [Double] {
        var times: [Double] = []
        try driver.advance(to: wall) { times.append($0.timestamp) }
        return times
    }

    @Test func positionsCountFromTheFirstFrameAtTheChosenSpeed() throws {
        let driver = try Self.driver(speed: 4, startOffset: 10, at: 100)
        #expect(driver.duration == 50)
        #expect(driver.position(at: 100) == 10)
        #expect(driver.playhead(at: 102.5) == 1020)
        #expect(try played(driver, upTo: 101) == [1010, 1010.5, 1011, 1011.5, 1012, 1012.5, 1013, 1013.5, 1014])
        driver.stepSpeed(faster: true, at: 101)
        #expect(driver.speed == 8)
        #expect(driver.position(at: 102) == 22)
        driver.stepSpeed(faster: false, at: 102)
        driver.stepSpeed(faster: false, at: 102)
        #expect(driver.speed == 2)
    }

    @Test func pauseHoldsThePositionAndTheEndIsReported() throws {
        let driver = try Self.driver(at: 0)
        driver.togglePause(at: 3)
        #expect(driver.position(at: 60) == 3)
        driver.togglePause(at: 60)
        #expect(driver.position(at: 61) == 4)
        try driver.seek(toOffset: 500, at: 61)
        #expect(driver.position(at: 61) == 50)
        #expect(!driver.isFinished(at: 61))
        #expect(try played(driver, upTo: 61) == [1050])
        #expect(driver.isFinished(at: 61))
    }

    @Test func refillHandsOutThePeriodBeforeThePlayheadThenPlayingGoesOn() throws {
        let driver = try Self.driver(at: 0)
        driver.togglePause(at: 0)
        try driver.skip(by: 20, at: 1)
        #expect(driver.position(at: 1) == 20)
        var refilled: [Double] = []
        try driver.refill(seconds: 3, at: 1) { refilled.append($0.timestamp) }
        #expect(refilled == [1017, 1017.5, 1018, 1018.5, 1019, 1019.5])
        // the frame at the playhead follows, nothing twice
        #expect(try played(driver, upTo: 2) == [1020])
        driver.togglePause(at: 2)
        #expect(try played(driver, upTo: 3) == [1020.5, 1021])
    }
}

@Suite struct ReplaySourceOpenerTests {
    @Test func realRTLPowerFileReplaysExactlyAndSeeksBack() throws {
        let path = Fixtures.path(Fixtures.osakaFiles[2])
        let reader = try ReplaySourceOpener.open(path: path, options: utc)
        let original = try readAll(RTLPowerCSVReader(path: path, options: utc))
        #expect(reader.frameCount == original.count)
        let driver = try ReplayDriver(reader: reader, speed: 64, at: 0)
        var played: [SpectrumFrame] = []
        try driver.advance(to: 10) { played.append($0) }
        #expect(played.count == original.count && zip(played, original).allSatisfy(identical))
        // a jump back to the start plays the same frames again
        try driver.seek(toOffset: 0, at: 10)
        var again: [SpectrumFrame] = []
        try driver.advance(to: 10.5) { again.append($0) }
        #expect(!again.isEmpty && zip(again, original).allSatisfy(identical))
    }

    @Test func opensACaptureStoreByItsExtensionAndPlaysItsFrames() throws {
        let directory = try TemporaryDirectory("replay-open")
        defer { directory.remove() }
        let path = directory.path("bench2_fm_20261121T101500Z.tscope")
        let frames = makeFrames(count: 20, bins: 8, seed: 9)
        let writer = try CaptureStoreWriter(path: path, metadata: CaptureMetadata(format: "tscope"),
                                            session: CaptureSessionInfo(startedAt: frames[0].timestamp))
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        let reader = try ReplaySourceOpener.open(path: path)
        #expect(reader is CaptureStoreReader)
        #expect(reader.frameCount == 20)
        let driver = try ReplayDriver(reader: reader, speed: 64, at: 0)
        var played: [SpectrumFrame] = []
        try driver.advance(to: 1) { played.append($0) }
        #expect(played.count == 20)
        #expect(zip(played, frames).allSatisfy { identical($0, $1) })
    }

    @Test func namesTheFileAndWhatWasExpected() throws {
        let directory = try TemporaryDirectory("replay-bad")
        defer { directory.remove() }
        let csv = directory.path("scan.xyz")
        _ = FileManager.default.createFile(atPath: csv, contents: Data("1,2,3\n".utf8))
        #expect(throws: CaptureError(file: "missing.tscope", "no such file")) {
            _ = try ReplaySourceOpener.open(path: "missing.tscope")
        }
        do {
            _ = try ReplaySourceOpener.open(path: csv)
            Issue.record("an unknown extension opened")
        } catch {
            #expect(error.file == csv)
            #expect(error.detail.contains("give --in-format"))
        }
        do {
            _ = try ReplaySourceOpener.open(path: csv, format: .csv)
            Issue.record("an output-only format opened")
        } catch {
            #expect(error.detail.contains("output format only"))
        }
        do {
            _ = try ReplaySourceOpener.open(path: csv, format: .tscope)
            Issue.record("a text file opened as a capture store")
        } catch {
            #expect(error.file == csv)
        }
    }
}
