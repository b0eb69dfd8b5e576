import Testing
@testable import ECG
import Signals

@Suite struct SyntheticECGTests {
    static func generate(_ settings: SyntheticECGSettings, seconds: Double) throws -> ECGChunk {
        let source = SyntheticECG(settings: settings)
        var chunk = ECGChunk(leadCount: settings.leadCount, capacity: Int(seconds * settings.sampleRate))
        _ = try source.read(into: &chunk)
        return chunk
    }

    @Test func sameSeedSameSignalOtherSeedOther() throws {
        var settings = SyntheticECGSettings()
        let first = try Self.generate(settings, seconds: 5)
        let again = try Self.generate(settings, seconds: 5)
        settings.seed = 2
        let other = try Self.generate(settings, seconds: 5)
        #expect(first.leads == again.leads)
        #expect(first.leads != other.leads)
    }

    @Test func twelveLeadsObeyEinthovenAndLookLikeAnECG() throws {
        var settings = SyntheticECGSettings()
        settings.leadCount = 12
        settings.noise = 0
        settings.baselineWander = 0
        settings.sampleRate = 500
        let chunk = try Self.generate(settings, seconds: 4)
        let lead = { (name: String) in chunk.leads[StandardLead.allCases.firstIndex { $0.name == name }!] }
        let (i, ii, iii, aVR) = (lead("I"), lead("II"), lead("III"), lead("aVR"))
        // III = II − I and aVR = −(I + II)/2 at every sample
        #expect(zip(iii, zip(ii, i)).allSatisfy { abs($0 - ($1.0 - $1.1)) < 1e-4 })
        #expect(zip(aVR, zip(i, ii)).allSatisfy { abs($0 + ($1.0 + $1.1) / 2) < 1e-4 })
        let peakII = ii.max()!
        #expect(peakII > 0.7 && peakII < 1.8, "lead II R wave \(peakII) mV")
        // aVR looks at the heart from the right shoulder: mostly negative QRS
        #expect(aVR.min()! < -0.5 * peakII)
        // V1 has a deep S, V6 a tall R
        #expect(lead("V1").min()! < -0.3)
        #expect(lead("V6").max()! > 0.4)
    }

    @Test func mainsHumAppearsAtItsFrequency() throws {
        var settings = SyntheticECGSettings()
        settings.mainsAmplitude = 0.2
        settings.mainsFrequency = 60
        settings.noise = 0
        settings.sampleRate = 1000
        let hum = try Self.generate(settings, seconds: 2).leads[0]
        settings.mainsAmplitude = 0
        let clean = try Self.generate(settings, seconds: 2).leads[0]
        let difference = zip(hum, clean).map { $0 - $1 }
        #expect(abs(difference.max()! - 0.2) < 0.01)
        // zero crossings of a 60 Hz sine in 2 s: 240
        var crossings = 0
        for index in 1..<difference.count where (difference[index - 1] > 0) != (difference[index] > 0) {
            crossings += 1
        }
        #expect(abs(crossings - 240) <= 2)
    }
}

@Suite struct RhythmTests {
    @Test func scriptedEpisodesRaiseOneEventEachInOrder() throws {
        var settings = SyntheticECGSettings()
        settings.sampleRate = 250
        settings.episodes = SyntheticECGSettings.demoEpisodes
        let source = SyntheticECG(settings: settings)
        let pipeline = ECGPipeline(source: source)
        var chunk = ECGChunk(leadCount: 1, capacity: 50)
        var codes: [RhythmCode] = []
        for _ in 0..<(235 * 5) {
            _ = try source.read(into: &chunk)
            pipeline.process(&chunk)
            codes.append(pipeline.status.code)
        }
        let logged = pipeline.events.events.map(\.code)
        #expect(logged == [.bradycardia, .tachycardia, .af, .pause], "\(pipeline.events.events)")
        // the AF episode is logged once and dated from its first AF second: after the script's 80 s by the
        // engine's latency (a window of 32 beats, about 27 s at 70 beats/min, and 30 s of smoothing)
        let af = try #require(pipeline.events.events.first { $0.code == .af })
        #expect(af.time > 95 && af.time < 140, "\(af.time)")
        // the pause says how long it lasted: more than the 2 s that make a pause
        let pause = try #require(pipeline.events.events.last)
        let length = try #require(pause.durationSeconds)
        #expect(length > 2 && length < 10, "\(length)")
        let brady = try #require(pipeline.events.events.first)
        #expect(brady.time > 20 && brady.time < 30)
        #expect(abs((brady.heartRateBPM ?? 0) - 40) < 5)
        #expect(codes.last == .normal)
    }

    @Test func flatAndNoisySignalsAreReported() {
        let pipeline = ECGPipeline(leadNames: ["II"], sampleRate: 250) { _ in ECGFilterChain(stages: []) }
        var chunk = ECGChunk(leadCount: 1, capacity: 250)
        chunk.count = 250
        // each must hold 5 s to be an event (RhythmEventLog.minimumSeconds)
        for _ in 0..<7 { pipeline.process(&chunk) }
        #expect(pipeline.status.code == .signalLost)
        var random = SeededRandom(seed: 9)
        for _ in 0..<7 {
            for index in 0..<250 { chunk.leads[0][index] = Float(random.gaussian() * 0.3) }
            pipeline.process(&chunk)
        }
        #expect(pipeline.status.code == .noisy)
        #expect(pipeline.events.events.map(\.code) == [.signalLost, .noisy])
    }

    @Test func missingSamplesAreHeldAndCounted() {
        let pipeline = ECGPipeline(leadNames: ["II"], sampleRate: 250) { _ in ECGFilterChain(stages: []) }
        var chunk = ECGChunk(leadCount: 1, capacity: 4)
        chunk.leads[0] = [1, .nan, .nan, 2]
        chunk.count = 4
        pipeline.process(&chunk)
        #expect(pipeline.missingSamples == 2)
        #expect(chunk.leads[0] == [1, 1, 1, 2])
    }

    @Test func aPauseEventFollowsItsLength() {
        var log = RhythmEventLog()
        log.observe(.normal, time: 0, heartRate: 60)
        let onset = log.observe(.pause, time: 3, heartRate: 60, duration: 2.1)
        #expect(onset?.durationSeconds == 2.1)
        log.observe(.pause, time: 4, heartRate: 60, duration: 3.1)
        #expect(log.events.last?.durationSeconds == 3.1)
        log.observe(.normal, time: 4.5, heartRate: 60)
        #expect(log.events.last?.durationSeconds == 3.1)
        #expect(log.events.count == 1)
    }

    @Test func eventLogLogsOnlyFreshAbnormalitiesAndDeletes() {
        var log = RhythmEventLog(capacity: 3)
        // 12 s per status: brady- and tachycardia hold their 10 s, a pause counts at once
        let sequence: [RhythmCode] = [.normal, .bradycardia, .tachycardia, .normal, .tachycardia, .pause]
        for (index, code) in sequence.enumerated() {
            for second in 0..<12 { log.observe(code, time: Double(index * 12 + second), heartRate: 60, duration: code == .pause ? Double(second) + 2 : nil) }
        }
        // bradycardia, tachycardia, tachycardia (a new onset after normal), pause: capacity 3 keeps the last three
        #expect(log.events.map(\.code) == [.tachycardia, .tachycardia, .pause])
        #expect(log.events.map(\.time) == [24, 48, 58])
        log.select(1)
        log.deleteSelected()
        #expect(log.events.map(\.time) == [24, 58])
        #expect(log.selection == 1)
        log.deleteSelected()
        log.deleteSelected()
        #expect(log.events.isEmpty)
        #expect(log.selection == nil)
    }

    @Test func recordThroughThePipelineFindsItsBeatsAndStaysNormal() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let source = RecordSource(record: record)
        let pipeline = ECGPipeline(source: source, mains: 60, historySeconds: 10)
        var chunk = ECGChunk(leadCount: 2, capacity: 36)
        var beats = 0
        var lastBeat = -1
        while case .samples = try source.read(into: &chunk), source.position <= 360 * 300 {
            pipeline.process(&chunk)
            beats += pipeline.beats.filter { $0 > lastBeat }.count
            lastBeat = pipeline.beats.last ?? lastBeat
        }
        let reference = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100)
            .filter { $0.isBeat && $0.sample < source.position }.count
        #expect(abs(beats - reference) <= 2)
        #expect(pipeline.history.count == 3600)
        #expect(pipeline.status.code == .normal)
        #expect(abs((pipeline.heartRate ?? 0) - 75) < 15)
    }
}

