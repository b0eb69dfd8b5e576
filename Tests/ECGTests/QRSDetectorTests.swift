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

    /// The C kernel (CECGKernels, baseline or AVX as the processor has it) against the Swift
    /// band-pass and matched filters it replaces: the same bits for every sample, and the same beats,
    /// on real records at three rates, with missing samples at the start and inside.
    @Test func theKernelGivesTheSwiftFiltersBits() throws {
        var signals: [(name: String, samples: [Float], rate: Double)] = []
        let mitdb = try WFDBRecordReader.read(path: Fixture.mitdb100)
        signals.append(("MIT-BIH 100", Array(mitdb.samples[0].prefix(360 * 120)), mitdb.sampleRate))
        let cinc = try WFDBRecordReader.read(path: Fixture.directory + "/cinc2017-validation/A00234")
        signals.append(("CinC A00234", cinc.samples[0], cinc.sampleRate))
        let excerpt = try WFDBRecordReader.read(path: Fixture.mitdb105Excerpt)
        signals.append(("MIT-BIH 105 at 250 Hz", excerpt.samples[0], excerpt.sampleRate))
        var gappy = Array(mitdb.samples[0].prefix(360 * 30))
        for index in 0..<37 { gappy[index] = .nan }
        for index in 5_000..<5_400 { gappy[index] = .nan }
        gappy[9_001] = .infinity
        signals.append(("MIT-BIH 100 with gaps", gappy, 360))
        for signal in signals {
            let kernel = QRSDetector(sampleRate: signal.rate, usesKernel: true)
            let swift = QRSDetector(sampleRate: signal.rate, usesKernel: false)
            // odd batch lengths too: the kernel's last sample alone
            var start = 0, length = 511
            var kernelOutputs: (filtered: [Double], energy: [Double]) = ([], [])
            var swiftOutputs: (filtered: [Double], energy: [Double]) = ([], [])
            while start < signal.samples.count {
                let part = Array(signal.samples[start..<min(signal.samples.count, start + length)])
                let (kernelFiltered, kernelEnergy) = kernel.filterOutputs(part)
                let (swiftFiltered, swiftEnergy) = swift.filterOutputs(part)
                kernelOutputs.filtered += kernelFiltered
                kernelOutputs.energy += kernelEnergy
                swiftOutputs.filtered += swiftFiltered
                swiftOutputs.energy += swiftEnergy
                start += length
                length = length == 511 ? 512 : 511
            }
            #expect(kernelOutputs.filtered.map(\.bitPattern) == swiftOutputs.filtered.map(\.bitPattern), "\(signal.name)")
            #expect(kernelOutputs.energy.map(\.bitPattern) == swiftOutputs.energy.map(\.bitPattern), "\(signal.name)")
            #expect(kernelOutputs.energy.contains { $0 > 0 }, "\(signal.name)")

            let kernelBeats = QRSDetector.detect(signal.samples, sampleRate: signal.rate)
            let swiftDetector = QRSDetector(sampleRate: signal.rate, usesKernel: false)
            var swiftBeats: [Int] = []
            swiftDetector.process(signal.samples, beats: &swiftBeats)
            swiftDetector.finish(beats: &swiftBeats)
            #expect(kernelBeats == swiftBeats, "\(signal.name)")
            #expect(kernelBeats.count > 10, "\(signal.name)")
        }
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

/// A Polar H10 streams at 130 Hz; other straps and boards at 100 Hz and up. MIT-BIH 100 taken down to those
/// rates (a moving average over one output sample's span against aliasing, then linear interpolation, as a
/// sensor's decimator would) reads as it does at 360 Hz: every beat found and every second readable.
@Suite struct LowSampleRateTests {
    static func resample(_ samples: [Float], from rate: Double, to newRate: Double) -> [Float] {
        let span = max(1, Int((rate / newRate).rounded()))
        var smoothed = [Float](repeating: 0, count: samples.count)
        var sum: Float = 0
        for index in samples.indices {
            sum += samples[index]
            if index >= span { sum -= samples[index - span] }
            smoothed[index] = sum / Float(min(index + 1, span))
        }
        let count = Int(Double(samples.count - span) * newRate / rate)
        return (0..<count).map { k in
            // the average of the `span` samples ending at `position` is centred (span − 1) / 2 earlier
            let position = Double(k) * rate / newRate + Double(span - 1) / 2
            let low = Int(position), fraction = Float(position - Double(low))
            return smoothed[low] * (1 - fraction) + smoothed[min(low + 1, smoothed.count - 1)] * fraction
        }
    }

    @Test(arguments: [130.0, 100.0])
    func record100AtASensorsRateFindsEveryBeat(rate: Double) throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        let samples = Self.resample(record.samples[0], from: record.sampleRate, to: rate)
        let reference = try WFDBRecordReader.readAnnotations(recordPath: Fixture.mitdb100).filter(\.isBeat)
            .map { Int((Double($0.sample) * rate / record.sampleRate).rounded()) }
            .filter { $0 < samples.count - Int(rate) }
        let analysis = RhythmAnalysis.analyze(samples, sampleRate: rate)
        let detections = analysis.beats.map(\.sample)
        let score = BeatScore(reference: reference, detections: detections, window: Int(0.150 * rate))
        #expect(score.truePositives + score.falseNegatives > 2_250)   // the reference's 2,273 beats, less the last second
        #expect(score.sensitivity >= 0.998 && score.positivePredictivity >= 0.998, "\(score)")
        #expect(!analysis.secondCodes.contains(.noisy) && !analysis.secondCodes.contains(.unreadable),
                "\(analysis.secondCodes.enumerated().filter { [.noisy, .unreadable].contains($0.element) }.prefix(5))")
    }
}
