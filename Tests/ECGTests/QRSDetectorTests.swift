import Testing
@testable import ECG

@Suite struct QRSDetectorTests {
    @Test func meetsTheAccuracyTargetOnMITBIH100() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let reference = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100).filter(\.isBeat).map(\.sample)
        let detections = QRSDetector.detect(record.samples[0], sampleRate: record.sampleRate)
        let score = BeatScore(reference: reference, detections: detections, window: Int(0.150 * record.sampleRate))
        #expect(score.sensitivity >= 0.998, "Se \(score.sensitivity), FN \(score.falseNegatives)")
        #expect(score.positivePredictivity >= 0.998, "+P \(score.positivePredictivity), FP \(score.falsePositives)")
        #expect(score.truePositives + score.falseNegatives == 2273)
    }

    @Test func liveChunksGiveTheSameBeatsAsOneBlock() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let samples = Array(record.samples[0].prefix(360 * 60))
        let whole = QRSDetector.detect(samples, sampleRate: 360)
        let detector = QRSDetector(sampleRate: 360)
        var chunked: [Int] = []
        var start = 0
        var length = 1
        while start < samples.count {
            let end = min(samples.count, start + length)
            detector.process(Array(samples[start..<end]), beats: &chunked)
            start = end
            length = length % 97 + 13
        }
        #expect(chunked == whole)
        #expect(whole.count > 60)
    }

    @Test func delayIsBoundedWithoutSearchBack() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let detector = QRSDetector(sampleRate: 360)
        var beats: [Int] = []
        var worst = 0
        for (index, sample) in record.samples[0].prefix(360 * 120).enumerated() {
            let before = beats.count
            detector.process([sample], beats: &beats)
            if beats.count > before, index >= 720 { worst = max(worst, index - beats[beats.count - 1]) }
        }
        #expect(Double(worst) / 360 <= detector.maximumDelay)
        #expect(detector.maximumDelay < 0.5)
    }

    @Test(arguments: [45.0, 72.0, 130.0])
    func findsEverySyntheticBeat(heartRate: Double) throws {
        var settings = SyntheticECGSettings()
        settings.heartRate = heartRate
        settings.sampleRate = 500
        settings.noise = 0.02
        settings.seed = 7
        let source = SyntheticECG(settings: settings)
        var chunk = ECGChunk(leadCount: 1, capacity: 500 * 60)
        _ = try source.read(into: &chunk)
        let beats = QRSDetector.detect(Array(chunk.leads[0]), sampleRate: 500)
        let expected = heartRate // one minute
        #expect(abs(Double(beats.count) - expected) <= 3, "\(beats.count) beats for \(heartRate) bpm")
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        #expect(intervals.allSatisfy { abs(Double($0) / 500 - 60 / heartRate) < 0.25 * 60 / heartRate })
    }

    @Test func scoreMatchesWithinTheWindowOneToOne() {
        let score = BeatScore(reference: [100, 200, 300, 400], detections: [95, 101, 260, 405, 900], window: 10)
        // 95 and 101 compete for 100: the nearest wins, 95 is a false positive
        #expect(score.truePositives == 2)
        #expect(score.falsePositives == 3)
        #expect(score.falseNegatives == 2)
        #expect(score.sensitivity == 0.5)
        #expect(score.positivePredictivity == 0.4)
    }
}
