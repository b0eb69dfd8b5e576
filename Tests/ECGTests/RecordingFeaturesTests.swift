import Foundation
import Testing
@testable import ECG

/// The RR-shape and QRST-cancellation features of the verdict model: exact
/// values on series whose answer is known by hand, and on real MIT-BIH 201
/// (development half; Fixtures/README.md) AF against sinus rhythm of the same
/// record, as the reference annotations mark them.
@Suite struct RecordingFeaturesTests {
    @Test func aRegularRhythmSitsAtTheLorenzOriginAndAFScatters() {
        var regular: [String: Double] = [:]
        RecordingFeatures.rrShape([Double](repeating: 0.8, count: 30), median: 0.8, into: &regular)
        #expect(regular["lorenz_origin_fraction"] == 1 && regular["lorenz_cell_fraction"] == 0)
        #expect(regular["rr_near_median_fraction"] == 1 && regular["poincare_sd1_ratio"] == 0)
        // a constant series: one histogram bin, entropy 0
        #expect(regular["rr_entropy"] == 0)

        // bigeminy 0.6 / 1.0 s: ΔRR alternates ±0.4 s: two Lorenz cells, (10, −10) and (−10, 10)
        let bigeminy = (0..<30).map { $0 % 2 == 0 ? 0.6 : 1.0 }
        var paired: [String: Double] = [:]
        RecordingFeatures.rrShape(bigeminy, median: 1.0, into: &paired)
        #expect(paired["lorenz_origin_fraction"] == 0)
        #expect(paired["lorenz_cell_fraction"] == 2.0 / 28)
        #expect(paired["rr_near_median_fraction"] == 0.5)

        // uniformly spread intervals (a fixed pseudo-random series): many cells, none at the origin mostly
        var state: UInt64 = 42
        let scattered = (0..<60).map { _ -> Double in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return 0.5 + 0.6 * Double(state >> 11) / Double(1 << 53)
        }
        var af: [String: Double] = [:]
        RecordingFeatures.rrShape(scattered, median: scattered.sorted()[30], into: &af)
        #expect(af["lorenz_cell_fraction"]! > 0.5, "\(af)")
        #expect(af["lorenz_origin_fraction"]! < 0.1, "\(af)")
        #expect(af["rr_entropy"]! > 0.8, "\(af)")
        #expect(af["poincare_sd_ratio"]! > 0.8, "\(af)")
    }

    /// 60 s inside each of record 201's reference AF intervals against 60 s
    /// of its sinus rhythm: the remainder after QRST cancellation holds more
    /// of its power at 4–10 Hz in AF, the RR intervals scatter.
    @Test func record201AFLeavesFibrillatoryWavesAfterCancellation() throws {
        let path = Fixture.directory + "/mitdb-201/201"
        let record = try WFDBRecordReader.read(path: path)
        let rate = record.sampleRate
        let annotations = try WFDBRecordReader.readAnnotations(recordPath: path)
        let duration = Double(record.samples[0].count) / rate
        let referenceAF = AFRhythmScore.referenceAF(annotations, sampleRate: rate, end: duration)
        func features(from start: Double) -> RecordingFeatures {
            let first = Int(start * rate), last = min(record.samples[0].count, first + Int(60 * rate))
            return RecordingFeatures(RhythmAnalysis.analyze(Array(record.samples[0][first..<last]), sampleRate: rate))
        }
        let afStretches = referenceAF.filter { $0.upperBound - $0.lowerBound >= 70 }.map { features(from: $0.lowerBound + 5) }
        // sinus: the longest stretch the reference marks "(N" (normal sinus rhythm)
        let rhythmNotes = annotations.filter { $0.code == WFDBAnnotation.rhythmCode }.map { annotation in
            (time: Double(annotation.sample) / rate, rhythm: (annotation.aux ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\0 ")))
        }
        var sinusStretches: [ClosedRange<Double>] = []
        for (index, note) in rhythmNotes.enumerated() where note.rhythm == "(N" {
            sinusStretches.append(note.time...(index + 1 < rhythmNotes.count ? rhythmNotes[index + 1].time : duration))
        }
        let longestSinus = try #require(sinusStretches.max { $0.upperBound - $0.lowerBound < $1.upperBound - $1.lowerBound })
        try #require(longestSinus.upperBound - longestSinus.lowerBound >= 70)
        let sinus = features(from: longestSinus.lowerBound + 5)
        try #require(!afStretches.isEmpty)
        for af in afStretches {
            #expect(af["residual_fwave_share"] > sinus["residual_fwave_share"], "AF \(af["residual_fwave_share"]) sinus \(sinus["residual_fwave_share"])")
            #expect(af["lorenz_cell_fraction"] > sinus["lorenz_cell_fraction"])
            #expect(af["rr_near_median_fraction"] < sinus["rr_near_median_fraction"])
            // sinus keeps an organised P wave in the mean beat, beat after beat alike; AF has none
            // (measured: P deviation 0.042 of the QRS in sinus, 0.004–0.007 in AF; beats' P part off it 0.4× against 7×)
            #expect(af["p_template_ratio"] * 3 < sinus["p_template_ratio"], "AF \(af["p_template_ratio"]) sinus \(sinus["p_template_ratio"])")
            #expect(af["p_residual_ratio"] > 3 * sinus["p_residual_ratio"], "AF \(af["p_residual_ratio"]) sinus \(sinus["p_residual_ratio"])")
            for name in QRSTCancellation.names { #expect(af[name].isFinite, "\(name)") }
            // the median beat's P-wave region is flat in AF (measured: spread 0.043 of the QRS in
            // sinus, 0.009 and 0.013 in AF)
            #expect(af["shape_pr_spread"] * 2 < sinus["shape_pr_spread"], "AF \(af["shape_pr_spread"]) sinus \(sinus["shape_pr_spread"])")
        }
    }

    /// The median beat is the same shape whichever way up the lead is: turned
    /// upright and flagged. MIT-BIH 100's MLII, 60 s, as recorded and negated;
    /// the record is sinus rhythm by its reference, so its median beat has a P
    /// wave where a PR interval of 120–200 ms puts it: the largest bin before
    /// the QRS lies 240–100 ms before the R peak (measured: 0.087 of the QRS,
    /// 160–140 ms before it), and the R peak within 20 ms of it.
    @Test func anUpsideDownLeadGivesTheSameBeatShapeTurned() throws {
        let record = try WFDBRecordReader.read(path: Fixture.directory + "/mitdb-100/100")
        let lead = Array(record.samples[0][0..<Int(60 * record.sampleRate)])
        let upright = RecordingFeatures(RhythmAnalysis.analyze(lead, sampleRate: record.sampleRate))
        let turned = RecordingFeatures(RhythmAnalysis.analyze(lead.map { -$0 }, sampleRate: record.sampleRate))
        #expect(upright["shape_inverted"] == 0)
        #expect(turned["shape_inverted"] == 1)
        for name in RecordingFeatures.shapeNames where name != "shape_inverted" {
            #expect(abs(upright[name] - turned[name]) < 0.05, "\(name): \(upright[name]) against \(turned[name])")
        }
        let bins = RecordingFeatures.shapeNames.prefix(RecordingFeatures.shapeBins).map { upright[$0] }
        // bin b covers 300 − 20·b to 280 − 20·b ms before the R peak
        let pBin = try #require((0...11).max { bins[$0] < bins[$1] })
        #expect((3...9).contains(pBin), "P-wave bin \(pBin): \(bins)")
        #expect(bins[pBin] > 0.03, "\(bins)")
        let rBin = try #require(bins.indices.max { bins[$0] < bins[$1] })
        #expect((14...16).contains(rBin), "R bin \(rBin): \(bins)")
    }
}
