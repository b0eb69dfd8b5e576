import Foundation
import Testing
import ThreadKitTesting
@testable import ECG

@Suite struct SourceTests {
    static func ramp(frames: Int, rate: Double = 100) -> ECGRecord {
        ECGRecord(name: "ramp", sampleRate: rate, leadNames: ["a", "b"],
                  samples: [(0..<frames).map(Float.init), (0..<frames).map { -Float($0) }])
    }

    @Test func recordSourcePlaysEverySampleThenEnds() throws {
        let source = RecordSource(record: Self.ramp(frames: 25))
        var chunk = ECGChunk(leadCount: 2, capacity: 10)
        var seen: [Float] = []
        while case .samples(let count) = try source.read(into: &chunk) {
            #expect(chunk.firstSampleIndex == seen.count)
            seen += chunk.leads[0].prefix(count)
        }
        #expect(seen == (0..<25).map(Float.init))
    }

    @Test func pacedSourceFollowsTheClockWithPauseResumeAndSpeed() throws {
        let clock = ManualClock(startingAt: 100)
        let paced = PacedSource(RecordSource(record: Self.ramp(frames: 1000)), clock: { clock.now })
        var chunk = ECGChunk(leadCount: 2, capacity: 64)
        var seen: [Float] = []
        func drain() throws {
            while case .samples(let count) = try paced.read(into: &chunk) { seen += chunk.leads[0].prefix(count) }
        }
        try drain()
        #expect(seen.isEmpty)
        clock.advance(by: 0.5)  // 100 Hz: 50 samples due
        try drain()
        #expect(seen.count == 50)
        paced.pause()
        clock.advance(by: 10)
        try drain()
        #expect(seen.count == 50)
        paced.resume()
        clock.advance(by: 0.25)
        try drain()
        #expect(seen.count == 75)
        paced.speed = 4
        clock.advance(by: 1)  // 4 s of record in 1 s
        try drain()
        #expect(seen.count == 475)
        #expect(seen == (0..<475).map(Float.init)) // resumed where it stopped, nothing lost or repeated
        clock.advance(by: 100)
        try drain()
        #expect(seen.count == 1000)
        #expect(try paced.read(into: &chunk) == .end)
    }

    @Test func csvNamesLeadsAndMeasuresTheRate() throws {
        let text = "time,I,II\n0.000,0.1,0.2\n0.004,0.3,nan\n0.008,0.5,0.6\n"
        let record = try CSVRecordReader.parse(text, file: "e.csv", name: "e", declaredRate: nil)
        #expect(record.leadNames == ["I", "II"])
        #expect(abs(record.sampleRate - 250) < 1e-9)
        #expect(record.samples[0] == [0.1, 0.3, 0.5])
        #expect(record.samples[1][1].isNaN)
        let millis = try CSVRecordReader.parse("ms,ECG\n0,1\n2,2\n4,3\n", file: "m.csv", name: "m", declaredRate: 500)
        #expect(millis.sampleRate == 500)
    }

    @Test(arguments: [
        ("time,I\n0,1\n0.004,2\n", 360.0, "e.csv: declared rate 360.0 Hz does not match the time column (250.000 Hz)"),
        ("time,I\n0,1\n0.004,x\n", nil, "e.csv:3: expected a number [mV] in column 2 (I), found \"x\""),
        ("time,I\n0,1\n0.004\n", nil, "e.csv:3: expected 2 columns as in the header, found 1"),
        ("time,I\n0,1\n0.004,2\n0.008,2\n-1,3\n", nil, "e.csv:5: time goes back by 1.008 s (more than 8 sample periods)"),
        ("I,II\n1,2\n3,4\n", nil, "e.csv: no time column: give the sample rate with --rate"),
        ("1\n2\n3\n", nil, "e.csv: no time column (no header): give the sample rate with --rate"),
        ("1;2\n3\n", 250.0, "e.csv:2: expected 2 columns as in the first row, found 1"),
        ("time\n0\n", nil, "e.csv:1: expected a header `time,lead,…` with a time column and at least one lead"),
    ] as [(String, Double?, String)])
    func badCSVIsOneClearLine(text: String, rate: Double?, message: String) {
        do {
            _ = try CSVRecordReader.parse(text, file: "e.csv", name: "e", declaredRate: rate)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func lineParserSkipsAndCountsGarbageAcrossReads() {
        var parser = LineSampleParser(leadCount: 2, gain: 2, baseline: 10)
        var rows: [[Double]] = []
        let pieces = ["12,14\n16;", "18\nhello\n1,2,3\n\n20 22\r\nnan,4\n", "30,3", "2\n9"]
        for piece in pieces {
            Array(piece.utf8).withUnsafeBytes { parser.feed($0) { rows.append($0) } }
        }
        #expect(rows == [[1, 2], [3, 4], [5, 6], [10, 11]])
        #expect(parser.garbageLines == 2)
        #expect(parser.nonFiniteLines == 1)
    }

    @Test func serialSourceReadsLinesThroughAPseudoTerminal() throws {
        let terminal = try #require(PseudoTerminal())
        let master = terminal.master
        defer { close(master) }
        let slavePath = terminal.slavePath
        let source = try SerialPort.source(path: slavePath, baud: 115_200, sampleRate: 250,
                                           parser: LineSampleParser(leadCount: 2))
        #expect(source.leadNames == ["1", "2"])
        let text = "512,500\nnoise!!\n520,501\n1e400,3\n530,502\n"
        _ = text.withCString { write(master, $0, strlen($0)) }
        var chunk = ECGChunk(leadCount: 2, capacity: 16)
        var values: [Float] = []
        // up to 5 s for the pty's lines, read as they come
        var readError: (any Error)?
        _ = waitForCondition(timeoutSeconds: 5) {
            do {
                while case .samples(let count) = try source.read(into: &chunk) { values += chunk.leads[0].prefix(count) }
            } catch {
                readError = error
                return true
            }
            return values.count >= 3
        }
        if let readError { throw readError }
        #expect(values == [512, 520, 530])
        #expect(source.garbageLines == 1)
        #expect(source.nonFiniteLines == 1)
    }

    @Test func serialRejectsUnknownBaudAndNonTerminals() throws {
        #expect(throws: ECGError.self) { _ = try SerialPort.open(path: "/dev/null", baud: 12345) }
        do {
            _ = try SerialPort.open(path: "/dev/null", baud: 9600)
            Issue.record("expected an error")
        } catch let error as ECGError {
            #expect(error.detail.hasPrefix("not a serial device"))
        }
    }

    @Test func lineStreamEndsWhenThePipeCloses() throws {
        var pipeEnds: [Int32] = [0, 0]
        try #require(pipe(&pipeEnds) == 0)
        let source = LineStreamSource(descriptor: pipeEnds[0], name: "pipe", sampleRate: 100,
                                      parser: LineSampleParser(leadCount: 1), closesDescriptor: true)
        var chunk = ECGChunk(leadCount: 1, capacity: 8)
        #expect(try source.read(into: &chunk) == .waiting)
        _ = "1\n2\n".withCString { write(pipeEnds[1], $0, 4) }
        close(pipeEnds[1])
        #expect(try source.read(into: &chunk) == .samples(2))
        #expect(try source.read(into: &chunk) == .end)
    }
}

@Suite struct JSONLineTests {
    @Test func jsonLinesGiveSamplesAndPacketsAndCountGarbage() {
        var parser = LineSampleParser(leadCount: 1)
        var rows: [[Double]] = []
        let text = """
            {"time": 0.0, "amplitude": 0.5}
            {"time": 0.004, "amplitude": [0.25, -0.125, 1]}
            {"amplitude": 2}
            {"time": "soon", "amplitude": 1}
            {"time": 1, "amplitude": true}
            {"time": 1}
            {"time": 1, "amplitude": [1, "x"]}
            {broken
            7

            """
        Array(text.utf8).withUnsafeBytes { parser.feed($0) { rows.append($0) } }
        #expect(rows == [[0.5], [0.25], [-0.125], [1], [2], [7]])
        #expect(parser.garbageLines == 5)
        var twoLeads = LineSampleParser(leadCount: 2, gain: 2)
        rows = []
        Array("{\"amplitude\": [2, 4]}\n{\"amplitude\": [[2, 4], [6, 8]]}\n{\"amplitude\": [2]}\n".utf8).withUnsafeBytes {
            twoLeads.feed($0) { rows.append($0) }
        }
        #expect(rows == [[1, 2], [1, 2], [3, 4]])
        #expect(twoLeads.garbageLines == 1)
    }
}
