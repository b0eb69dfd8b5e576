import Testing
@testable import ECG

/// The CSV files people have: one or more columns without times, other
/// separators, units in the header, jittery device clocks (issues 11 and 16).
@Suite struct CSVFormatsTests {
    @Test func oneColumnWithoutHeaderTakesTheGivenRate() throws {
        // e0103: 120 s at 250 Hz in mV, no header, offset +0.5 mV (heartpy's example)
        let recording = try CSVRecordReader.read(path: Fixture.e0103, options: CSVReadOptions(rate: 250))
        let record = recording.record
        #expect(record.sampleRate == 250 && record.frameCount == 30000 && record.leadNames == ["1"])
        #expect(record.samples[0].prefix(3) == [0.455, 0.46, 0.45])
        #expect(recording.notes.isEmpty)
        // the detector finds a plausible rhythm on it, offset and all
        let beats = QRSDetector.detect(record.samples[0], sampleRate: 250)
        let minutes = record.duration / 60
        #expect((50...110).contains(Double(beats.count) / minutes), "\(beats.count) beats in \(minutes) min")
        do {
            _ = try CSVRecordReader.read(path: Fixture.e0103)
            Issue.record("no rate: expected an error")
        } catch {
            #expect("\(error)".hasSuffix("e0103.csv: no time column (no header): give the sample rate with --rate"))
        }
    }

    @Test func leadNamesFromAHeaderSeparatorsAndDecimalCommas() throws {
        let semicolons = try CSVRecordReader.parse("MLII;V5\n0,5;-0,25\n1,5;0,75\n", file: "s.csv", name: "s",
                                                   options: CSVReadOptions(rate: 360))
        #expect(semicolons.record.leadNames == ["MLII", "V5"])
        #expect(semicolons.record.samples == [[0.5, 1.5], [-0.25, 0.75]])
        let spaces = try CSVRecordReader.parse("# board dump\n512 500\n 520\t510\n", file: "w.txt", name: "w",
                                               options: CSVReadOptions(rate: 500, gain: 200, baseline: 500))
        #expect(spaces.record.leadNames == ["1", "2"])
        #expect(spaces.record.samples == [[0.06, 0.1], [0, 0.05]])
        let indexed = try CSVRecordReader.parse("sample,ecg (mV)\n0,1\n1,2\n", file: "i.csv", name: "i",
                                                options: CSVReadOptions(rate: 125))
        #expect(indexed.record.leadNames == ["ecg (mV)"] && indexed.record.samples == [[1, 2]])
    }

    @Test(arguments: [("ecg_uv", Float(0.001)), ("II [µV]", 0.001), ("V1 (mV)", 1), ("lead_mv", 1), ("II", 1)])
    func unitsFromTheHeaderScaleToMillivolts(name: String, scale: Float) throws {
        let recording = try CSVRecordReader.parse("time_s,\(name)\n0,1000\n0.004,-500\n", file: "u.csv", name: "u",
                                                  options: CSVReadOptions())
        #expect(recording.record.samples[0] == [1000 * scale, -500 * scale])
        #expect(recording.record.sampleRate == 250)
    }

    @Test func polarTimestampsGoingBackAreToleratedAndCounted() throws {
        let recording = try CSVRecordReader.read(path: Fixture.polarExcerpt)
        let record = recording.record
        #expect(record.sampleRate == 130, "\(record.sampleRate)")
        #expect(record.leadNames == ["ecg_uv"])
        // every row kept, in file order, in mV (the first rows are −203, 105, 802 µV)
        #expect(record.frameCount >= 1169)
        #expect(record.samples[0].prefix(3) == [-0.203, 0.105, 0.802])
        #expect(record.samples[0].filter { !$0.isNaN }.count == 1169)
        #expect(recording.notes.contains { $0.hasPrefix("7 timestamps went back (at most 15 ms)") }, "\(recording.notes)")
    }

    @Test func aLargeForwardJumpIsAGapOfMissingSamples() throws {
        var text = "time_ms,II\n"
        for index in 0..<10 { text += "\(index * 4),\(index)\n" }
        for index in 0..<10 { text += "\(1000 + index * 4),\(10 + index)\n" }
        let recording = try CSVRecordReader.parse(text, file: "g.csv", name: "g", options: CSVReadOptions())
        let samples = recording.record.samples[0]
        #expect(recording.record.sampleRate == 250)
        #expect(samples.count == 260)
        #expect(samples[9] == 9 && samples[10].isNaN && samples[249].isNaN && samples[250] == 10)
        #expect(recording.notes == ["1 gaps in the time column (0.96 s in all) filled with missing samples"])
    }

    @Test func millisecondTimesOfAnOddRateStillGiveTheRate() throws {
        // 360 Hz written to whole milliseconds: steps of 2 and 3 ms
        var text = "time_ms,MLII\n"
        for index in 0..<3600 { text += "\(Int((Double(index) * 1000 / 360).rounded())),0\n" }
        let recording = try CSVRecordReader.parse(text, file: "m.csv", name: "m", options: CSVReadOptions())
        #expect(recording.record.sampleRate == 360)
        #expect(recording.record.frameCount == 3600)
        #expect(recording.notes.isEmpty)
    }

    /// Found by ECGLineFuzz (Fuzz/corpus/ECGLine/regression-declared-rate-0): a
    /// declared rate of 0 (or any non-positive one) made a record of rate 0.
    @Test func aNonPositiveDeclaredRateIsAnErrorNotARecordOfRateZero() {
        for rate in [0.0, -250, .infinity, .nan] {
            #expect(throws: ECGError.self) {
                _ = try CSVRecordReader.parse("0.1\n0.2\n0.3\n", file: "r.csv", name: "r", declaredRate: rate)
            }
        }
    }

    /// Found by ECGLineFuzz (Fuzz/corpus/ECGLine/regression-time-jump-overflow):
    /// a time far ahead trapped converting the jump to a sample count.
    @Test func aHugeTimeJumpIsAnErrorNotATrap() {
        #expect {
            _ = try CSVRecordReader.parse("time_s,ecg\n0,1\n0.004,2\n0.008,3\n1e300,4\n", file: "j.csv", name: "j",
                                          declaredRate: nil)
        } throws: { "\($0)".contains("time jumps ahead") }
    }

    /// Found by ECGLineFuzz (Fuzz/corpus/ECGLine/regression-microsecond-steps-huge-gap):
    /// microsecond steps gave a rate of megahertz whose gap asked for terabytes.
    @Test func anImplausibleRateFromTheTimeColumnIsAnError() {
        #expect {
            _ = try CSVRecordReader.parse("time_s,ecg\n0,1\n0.000001,2\n0.000002,3\n5,4\n", file: "r.csv", name: "r",
                                          declaredRate: nil)
        } throws: { "\($0)".contains("more than the 100000 Hz an ECG is sampled at") }
    }
}
