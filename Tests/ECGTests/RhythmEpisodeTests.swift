import Foundation
import DSP
import Signals
import Testing
@testable import ECG

/// Episodes, not flickers: the event log's minimum durations and bridges, the
/// monitor's rate hysteresis, and the AF detector on RR series whose answer is known.
@Suite struct RhythmEpisodeTests {
    @Test func afIsAnEventOnlyAfterThirtySecondsAndShortGapsDoNotSplitIt() {
        var log = RhythmEventLog()
        // 20 s of AF: no episode
        for second in 0...20 { log.observe(.af, time: Double(second), heartRate: 90) }
        for second in 21...40 { log.observe(.normal, time: Double(second), heartRate: 70) }
        #expect(log.events.isEmpty)
        #expect(log.takeEnded().isEmpty)
        // 50 s of AF from 100 s with 5 s of normal reading inside: one episode, 100…149 s
        var logged: [RhythmEvent] = []
        for second in 100..<150 {
            let code: RhythmCode = (120..<125).contains(second) ? .normal : .af
            if let event = log.observe(code, time: Double(second), heartRate: 90) { logged.append(event) }
        }
        #expect(logged.count == 1)
        #expect(logged.first?.time == 100)
        #expect(log.events.first?.end == nil)
        for second in 150...170 { log.observe(.normal, time: Double(second), heartRate: 70) }
        let ended = log.takeEnded()
        #expect(ended.count == 1)
        #expect(ended.first?.time == 100 && ended.first?.end == 149 && ended.first?.durationSeconds == 49)
        #expect(log.events.count == 1 && log.events[0].end == 149)
    }

    @Test func bradycardiaNeedsTenSecondsAndAnOpenEpisodeEndsAtTheEnd() {
        var log = RhythmEventLog()
        for second in 0..<8 { log.observe(.bradycardia, time: Double(second), heartRate: 45) }
        #expect(log.events.isEmpty)
        for second in 8..<30 { log.observe(.bradycardia, time: Double(second), heartRate: 45) }
        #expect(log.events.map(\.code) == [.bradycardia])
        #expect(log.events[0].time == 0)
        log.finishAll(at: 30)
        #expect(log.takeEnded().map(\.durationSeconds) == [29])
    }

    @Test func heartRateHasHysteresis() {
        let monitor = RhythmMonitor(sampleRate: 100)
        var sample = 0
        func beats(_ count: Int, bpm: Double) {
            for _ in 0..<count {
                sample += Int(6000 / bpm)
                monitor.beat(at: sample)
                monitor.ruled(ClassifiedBeat(sample: sample, beatClass: .normal))
                monitor.classified(ClassifiedBeat(sample: sample, beatClass: .normal))
            }
        }
        beats(10, bpm: 48)
        #expect(monitor.update(now: sample, quality: .good).code == .bradycardia)
        beats(10, bpm: 52)   // above 50, below the 55 that ends it
        #expect(monitor.update(now: sample, quality: .good).code == .bradycardia)
        beats(10, bpm: 60)
        #expect(monitor.update(now: sample, quality: .good).code == .normal)
        beats(10, bpm: 104)
        #expect(monitor.update(now: sample, quality: .good).code == .tachycardia)
        beats(10, bpm: 98)   // below 100, above the 95 that ends it
        #expect(monitor.update(now: sample, quality: .good).code == .tachycardia)
    }

    /// Feeds an RR series [s] with classes to the AF detector; the share of beats after which it says AF.
    func afShare(_ intervals: [(Double, BeatClass)], rate: Double = 250) -> Double {
        let detector = AFDetector(sampleRate: rate)
        var sample = 0, inAF = 0
        for (interval, beatClass) in intervals {
            sample += Int(interval * rate)
            if detector.add(ClassifiedBeat(sample: sample, beatClass: beatClass)) { inAF += 1 }
        }
        return Double(inAF) / Double(intervals.count)
    }

    @Test func afDetectorTellsAFFromEctopyAndBigeminy() {
        var random = SeededRandom(seed: 42)
        // sinus rhythm at 75 bpm with 2 % variability
        let sinus = (0..<300).map { _ in (0.8 * (1 + 0.02 * random.gaussian()), BeatClass.normal) }
        #expect(afShare(sinus) == 0)
        // the same with a labelled PVC every 5th beat (premature, then the compensatory pause)
        var ectopy: [(Double, BeatClass)] = []
        for index in 0..<300 {
            if index % 5 == 3 { ectopy.append((0.5, .ventricular)); ectopy.append((1.1, .normal)) } else { ectopy.append((0.8, .normal)) }
        }
        #expect(afShare(ectopy) == 0)
        // an unlabelled bigeminy: short-long pairs
        let bigeminy = (0..<300).map { ($0 % 2 == 0 ? 0.55 : 1.05, BeatClass.normal) }
        #expect(afShare(bigeminy) == 0)
        // AF: every interval drawn anew, 0.45–1.05 s
        let fibrillation = (0..<300).map { _ in (0.45 + 0.6 * random.unit(), BeatClass.normal) }
        #expect(afShare(fibrillation) > 0.9)
    }
}

/// The beat classifier and the AF detector on real MIT-BIH records (DS1, the
/// development half; fixtures with provenance in Fixtures/README.md), scored
/// against their reference annotations.
@Suite struct BeatClassAndAFOnRealRecordsTests {
    static func reference(_ path: String) throws -> [(sample: Int, beatClass: ReferenceBeatClass)] {
        try WFDBRecordReader.readAnnotations(recordPath: path).compactMap { annotation in
            ReferenceBeatClass(mitCode: annotation.code).map { (annotation.sample, $0) }
        }
    }

    @Test func ventricularBeatsOfRecord119AreFound() throws {
        let path = Fixture.directory + "/mitdb-119/119"
        let record = try WFDBRecordReader.read(path: path)
        let analysis = RhythmAnalysis.analyze(record.samples[0], sampleRate: record.sampleRate)
        let score = BeatClassScore(target: .ventricular, reference: try Self.reference(path), detections: analysis.beats,
                                   window: Int(0.15 * record.sampleRate))
        // 444 reference V beats, uniform PVCs in bigeminy: measured Se 0.9955, +P 1.0
        #expect(score.sensitivity >= 0.95 && score.positivePredictivity >= 0.95, "\(score)")
        // bigeminy is not AF
        #expect(!analysis.secondCodes.contains(.af))
    }

    @Test func atrialFibrillationOfRecord201IsFoundAsEpisodes() throws {
        let path = Fixture.directory + "/mitdb-201/201"
        let record = try WFDBRecordReader.read(path: path)
        let analysis = RhythmAnalysis.analyze(record.samples[0], sampleRate: record.sampleRate)
        let annotations = try WFDBRecordReader.readAnnotations(recordPath: path)
        let referenceAF = AFRhythmScore.referenceAF(annotations, sampleRate: record.sampleRate, end: analysis.duration)
        #expect(referenceAF.count == 3)
        let episodes = analysis.episodes.filter { $0.code == .af }.map { $0.time...($0.end ?? analysis.duration) }
        let score = AFRhythmScore(referenceAF: referenceAF, detectedAF: analysis.secondCodes.map { $0 == .af }, episodes: episodes)
        // Record 201 is in no AF model's training data (the RR engine learned the Long-Term AF and MIT-BIH AF
        // databases). Measured from the signal: Se 0.836, Sp 0.786 (its trigeminy and runs of aberrated atrial
        // premature beats read as AF), 2 of the 3 reference episodes, burden 0.422 against the reference's
        // 0.336 (Docs/model-cards.md, "Known failure modes")
        #expect(score.sensitivity >= 0.80, "\(score)")
        #expect(score.specificity >= 0.75, "\(score)")
        #expect(score.referenceEpisodesFound >= 2, "\(score)")
        #expect(episodes.allSatisfy { $0.upperBound - $0.lowerBound >= 30 })
        let burden = try #require(analysis.afBurden)
        #expect(abs(burden - 0.336) <= 0.10, "\(burden)")
    }

    /// PhysioNet's CinC 2017 files as shipped: ISO date before the time, CRLF,
    /// checksum 0, a MATLAB v4 signal file; read with one note each.
    @Test func cincRecordingsReadAsPhysioNetShipsThem() throws {
        let recording = try WFDBRecordReader.readRecording(path: Fixture.directory + "/cinc2017-validation/A00004")
        #expect(recording.signals.count == 1 && recording.signals[0].sampleRate == 300)
        #expect(recording.signals[0].digital.count == 9000)
        #expect(recording.start?.date?.year == 2014 && recording.start?.date?.month == 5 && recording.start?.date?.day == 1)
        #expect(recording.start?.hour == 11 && recording.start?.minute == 5 && recording.start?.second == 48)
        #expect(recording.notes.count == 1 && recording.notes[0].hasPrefix("checksum of signal 0 (ECG) in A00004.mat is "))
        #expect(throws: ECGError.self) { try WFDBRecordReader.readRecording(path: Fixture.directory + "/cinc2017-validation/A00004", strict: true) }
    }
}

/// Quickselect gives what sorting gives, at every rank, on random, sorted, reversed and constant input.
@Suite struct SelectionTests {
    @Test func selectMatchesSortingAtEveryRank() {
        var random = SeededRandom(seed: 7)
        let inputs: [[Float]] = [
            (0..<257).map { _ in Float(random.gaussian()) },
            (0..<100).map(Float.init),
            (0..<100).reversed().map(Float.init),
            [Float](repeating: 3, count: 50),
            (0..<64).map { Float($0 % 5) },
            [1],
            // long, with many equal values (whole rounds answered by the pivot), and ECG-like
            (0..<5000).map { (index: Int) -> Float in Float((index * 7919) % 13) },
            (0..<3000).map { (index: Int) -> Float in
                let wave = Float(sin(Double(index) * 0.05))
                return wave + 0.01 * Float(random.gaussian())
            },
            // −0 beside +0, which compare equal: still the value sorting gives
            (0..<40).map { (index: Int) -> Float in
                let zeros: [Float] = [-0.0, 0.0]
                return index % 3 == 2 ? Float(index) - 20 : zeros[index % 3]
            },
        ]
        for input in inputs {
            let sorted = input.sorted()
            for rank in input.count > 1000 ? Array(stride(from: 0, to: input.count, by: 97)) + [input.count - 1] : Array(input.indices) {
                var copy = input
                #expect(OrderStatistic.select(&copy, rank: rank) == sorted[rank], "rank \(rank) of \(input.count)")
            }
        }
    }
}
