import Testing
@testable import ECG

/// A baseline offset or a bad start must not fool the detector (issue 11).
@Suite struct QRSOffsetTests {
    static func score(_ samples: [Float], rate: Double, reference: [Int]) -> BeatScore {
        BeatScore(reference: reference, detections: QRSDetector.detect(samples, sampleRate: rate),
                  window: Int((0.150 * rate).rounded()))
    }

    @Test(arguments: [8.0, -8.0])
    func offsetGivesTheSameScoreOnMITBIH100(offset: Float) throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let reference = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100).filter(\.isBeat).map(\.sample)
        let plain = Self.score(record.samples[0], rate: record.sampleRate, reference: reference)
        let shifted = Self.score(record.samples[0].map { $0 + offset }, rate: record.sampleRate, reference: reference)
        #expect(shifted == plain, "shifted \(shifted), plain \(plain)")
        #expect(plain.sensitivity >= 0.998)
    }

    /// Every record with reference beats in shared/data scores as well shifted as not:
    /// 100 (above) and 105 at 250 Hz (a noisy record; its first 5 minutes here).
    @Test(arguments: [8.0, -8.0, -6.0])
    func offsetGivesTheSameScoreOnNoisyMITBIH105(offset: Float) throws {
        let path = Fixture.mitdb105Excerpt
        let record = try WFDBRecordReader.read(path: path)
        let reference = try WFDBRecordReader.readAnnotations(recordPath: path).filter(\.isBeat).map(\.sample)
        #expect(record.sampleRate == 250 && reference.count == 417)
        let plain = Self.score(record.samples[0], rate: record.sampleRate, reference: reference)
        let shifted = Self.score(record.samples[0].map { $0 + offset }, rate: record.sampleRate, reference: reference)
        #expect(shifted == plain, "shifted \(shifted), plain \(plain)")
        #expect(plain.sensitivity >= 0.99 && plain.positivePredictivity >= 0.97, "\(plain)")
    }

    /// Two-minute excerpts that start anywhere (mid-beat too) and far off zero find their first beats.
    @Test(arguments: [-7.2, 6.0])
    func excerptsStartingOffZeroScoreFromTheFirstSeconds(offset: Float) throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let reference = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100).filter(\.isBeat).map(\.sample)
        let rate = record.sampleRate
        let length = Int(120 * rate)
        for start in stride(from: 37, to: record.frameCount - length, by: Int(293.3 * rate)) {
            let excerpt = record.samples[0][start..<start + length].map { $0 + offset }
            let beats = reference.filter { $0 >= start && $0 < start + length }.map { $0 - start }
            let score = Self.score(excerpt, rate: rate, reference: beats)
            #expect(score.sensitivity >= 0.99 && score.positivePredictivity >= 0.99, "start \(start): \(score)")
            // the first ten seconds count too: at most one beat missed while learning
            let early = Self.score(Array(excerpt.prefix(Int(10 * rate))), rate: rate, reference: beats.filter { $0 < Int(10 * rate) })
            #expect(early.falseNegatives <= 1 && early.falsePositives <= 1, "start \(start), first 10 s: \(early)")
        }
    }

    /// A huge artifact in the first second (a lead being attached) inflates nothing for long.
    @Test func recoversFromAStartUpArtifact() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let reference = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100).filter(\.isBeat).map(\.sample)
        let rate = record.sampleRate
        var samples = Array(record.samples[0].prefix(Int(60 * rate)))
        // a 40 mV, 60 ms swing at 0.5 s: far larger than any QRS
        for index in Int(0.5 * rate)..<Int(0.56 * rate) { samples[index] += 40 }
        let beats = reference.filter { $0 < samples.count && ($0 < Int(0.4 * rate) || $0 > Int(0.7 * rate)) }
        let score = Self.score(samples, rate: rate, reference: beats)
        // a few seconds to recover at most, then every beat
        #expect(score.falseNegatives <= 4, "\(score)")
        let late = Self.score(samples, rate: rate, reference: beats.filter { $0 > Int(8 * rate) })
        #expect(late.truePositives == beats.filter { $0 > Int(8 * rate) }.count, "\(late)")
    }

    /// A spike mid-record (an electrode knock) costs a few beats, not the rest of the record.
    @Test func recoversFromAnArtifactMidRecord() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let reference = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100).filter(\.isBeat).map(\.sample)
        let rate = record.sampleRate
        var samples = Array(record.samples[0].prefix(Int(90 * rate)))
        for index in Int(30 * rate)..<Int(30.08 * rate) { samples[index] -= 50 }
        let after = reference.filter { $0 > Int(40 * rate) && $0 < samples.count }
        let late = Self.score(samples, rate: rate, reference: after)
        #expect(late.falseNegatives == 0, "\(late)")
    }

    /// Leading missing samples (NaN) do not become a step from zero to the offset.
    @Test func leadingMissingSamplesAreNotAStep() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let reference = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100).filter(\.isBeat).map(\.sample)
        let rate = record.sampleRate
        var samples = Array(record.samples[0].prefix(Int(60 * rate))).map { $0 + 8 }
        for index in 0..<Int(0.3 * rate) { samples[index] = .nan }
        let beats = reference.filter { $0 > Int(0.4 * rate) && $0 < samples.count }
        let score = Self.score(samples, rate: rate, reference: beats)
        #expect(score.falseNegatives <= 1 && score.falsePositives <= 1, "\(score)")
    }
}

@Suite struct PipelineOffsetTests {
    /// The live pipeline (chunks, NaN hold, filters, detector) on record 100 shifted by
    /// −8 mV with missing samples at the start finds the beats the unshifted record gives.
    @Test func livePipelineIgnoresOffsetAndLeadingGaps() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        func beats(offset: Float, leadingGap: Int) throws -> [Int] {
            var samples = Array(record.samples[0].prefix(360 * 60)).map { $0 + offset }
            for index in 0..<leadingGap { samples[index] = .nan }
            let pipeline = ECGPipeline(leadNames: ["MLII"], sampleRate: 360) { _ in ECGFilterChain.standard(sampleRate: 360) }
            var chunk = ECGChunk(leadCount: 1, capacity: 36)
            var found: [Int] = []
            var start = 0
            while start < samples.count {
                let count = min(36, samples.count - start)
                for index in 0..<count { chunk.leads[0][index] = samples[start + index] }
                chunk.count = count
                pipeline.process(&chunk)
                // leading gaps stay gaps: nothing drawn, no step from zero
                if start + count <= leadingGap { #expect(chunk.leads[0][0..<count].allSatisfy { $0.isNaN }) }
                found.append(contentsOf: pipeline.beats.filter { $0 > (found.last ?? -1) })
                start += count
            }
            return found
        }
        let plain = try beats(offset: 0, leadingGap: 90)
        #expect(plain.count >= 70)
        #expect(try beats(offset: -8, leadingGap: 90) == plain)
    }
}
