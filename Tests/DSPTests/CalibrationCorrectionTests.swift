import DSP
import Signals
import Testing

/// A calibration table read back and applied bin by bin, checked against a
/// plain interpolation written out here.
@Suite struct CalibrationCorrectionTests {
    static let table = CalibrationTable(
        model: "HackRF One", serial: "demo", firmware: "", settings: "LNA 16 dB, VGA 20 dB, amp off", gainDB: 36,
        madeAt: 1_764_000_000,
        points: [.init(frequencyHz: 100e6, offsetDB: -40, uncertaintyDB: 0.1),
                 .init(frequencyHz: 200e6, offsetDB: -42, uncertaintyDB: 0.2),
                 .init(frequencyHz: 400e6, offsetDB: -38, uncertaintyDB: 0.05)])

    @Test func theFileRoundTrips() throws {
        let parsed = try CalibrationTable.parse(Self.table.fileText, file: "t.csv")
        #expect(parsed == Self.table)
        // a table that went through an editor that writes CRLF reads the same
        let crlf = Self.table.fileText.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try CalibrationTable.parse(crlf, file: "t.csv") == Self.table)
    }

    @Test func offsetsAreLinearInDBBetweenPointsAndAbsentOutside() {
        #expect(Self.table.offsetDB(atHz: 150e6) == -41)
        #expect(Self.table.offsetDB(atHz: 300e6) == -40)
        #expect(Self.table.offsetDB(atHz: 100e6) == -40)
        #expect(Self.table.offsetDB(atHz: 400e6) == -38)
        #expect(Self.table.offsetDB(atHz: 99e6) == nil)
        #expect(Self.table.offsetDB(atHz: 401e6) == nil)
    }

    @Test func badFilesNameTheLine() {
        let cases: [(String, String)] = [
            ("frequency_hz,offset_db,uncertainty_db\n1,2,3\n", "t.csv:1: expected '# tscope calibration 1'"),
            ("# tscope calibration 1\nfreq,offset\n", "t.csv:2: expected the header"),
            ("# tscope calibration 1\nfrequency_hz,offset_db,uncertainty_db\n1e8,x,0\n", "t.csv:3: expected frequency_hz"),
            ("# tscope calibration 1\nfrequency_hz,offset_db,uncertainty_db\n2e8,1,0\n1e8,1,0\n", "t.csv:4: frequency"),
            ("# tscope calibration 1\nfrequency_hz,offset_db,uncertainty_db\n", "t.csv: no calibration points"),
        ]
        for (text, expected) in cases {
            #expect(throws: InputError.self) { try CalibrationTable.parse(text, file: "t.csv") }
            do {
                _ = try CalibrationTable.parse(text, file: "t.csv")
            } catch {
                #expect(error.description.hasPrefix(expected), "\(error)")
            }
        }
    }

    /// Each bin gets the plain interpolation at its centre plus the gain
    /// correction; beyond the ends the nearest end's offset.
    @Test func appliedPerBinAsThePlainInterpolation() {
        var correction = CalibrationCorrection(table: Self.table, gainDB: 44)
        #expect(correction.gainCorrectionDB == -8)
        let powers: [Float] = (0..<500).map { Float($0 % 7) - 60 }
        var frame = SpectrumFrame(startHz: 90e6, binWidthHz: 1e6, timestamp: 0, powerDB: powers)
        frame.powerDB[3] = .nan
        correction.apply(to: &frame)
        for i in 0..<powers.count where i != 3 {
            let f = 90e6 + (Double(i) + 0.5) * 1e6
            let expected: Double
            if f <= 100e6 { expected = -40 } else if f >= 400e6 { expected = -38 } else if f <= 200e6 {
                expected = -40 + (f - 100e6) / 100e6 * -2
            } else {
                expected = -42 + (f - 200e6) / 200e6 * 4
            }
            #expect(abs(Double(frame.powerDB[i]) - (Double(powers[i]) + expected - 8)) < 1e-3, "bin \(i)")
        }
        #expect(frame.powerDB[3].isNaN)
    }

    /// A frame that carries every detector's levels (a sensor's) has each
    /// plane corrected by the same per-bin offsets as its own levels, so a
    /// viewer reading another detector reads dBm too.
    @Test func everyDetectorsLevelsAreCorrectedAlike() {
        var correction = CalibrationCorrection(table: Self.table, gainDB: 36)
        let peak: [Float] = (0..<50).map { Float($0) - 50 }
        let levels = DetectorLevels(peak: peak, average: peak.map { $0 - 6 }, sample: peak.map { $0 - 9 },
                                    cisprAverage: peak.map { $0 - 12 })
        var frame = SpectrumFrame(startHz: 120e6, binWidthHz: 1e6, timestamp: 0, powerDB: peak, everyDetector: levels)
        correction.apply(to: &frame)
        let corrected = frame.everyDetector!
        for i in 0..<peak.count {
            let offset = frame.powerDB[i] - peak[i]
            #expect(abs(Double(offset) - Self.table.offsetDB(atHz: frame.binCenterHz(i))!) < 1e-3, "bin \(i)")
            #expect(corrected.peak[i] == frame.powerDB[i])
            #expect(abs(corrected.average[i] - (levels.average[i] + offset)) < 1e-4, "bin \(i)")
            #expect(abs(corrected.sample[i] - (levels.sample[i] + offset)) < 1e-4, "bin \(i)")
            #expect(abs(corrected.cisprAverage[i] - (levels.cisprAverage[i] + offset)) < 1e-4, "bin \(i)")
        }
    }

    /// A live calibration corrects only while the tuned band is covered.
    @Test func aLiveCalibrationCorrectsOnlyCoveredBands() {
        let live = LiveCalibration(table: Self.table, gainDB: 36)
        let frame = SpectrumFrame(startHz: 150e6, binWidthHz: 1e6, timestamp: 0, powerDB: [-50])
        #expect(live.tune(to: FrequencyRange(lowerHz: 120e6, upperHz: 180e6)!) == .dBm)
        #expect(abs(live.correct(frame).powerDB[0] - (-50 - 41.005)) < 0.01)
        #expect(live.tune(to: FrequencyRange(lowerHz: 50e6, upperHz: 180e6)!) == .dB)
        #expect(live.correct(frame).powerDB[0] == -50)
    }

    /// A table made at a known gain is never applied at an unknown one (an
    /// RTL-SDR on automatic gain), nor the other way round.
    @Test func aGainNobodyKnowsIsNeverCalibrated() {
        let band = FrequencyRange(lowerHz: 120e6, upperHz: 180e6)!
        let automatic = LiveCalibration(table: Self.table, gainDB: nil)
        #expect(automatic.tune(to: band) == .dB && automatic.unusable == "gain auto")
        var madeAutomatic = Self.table
        madeAutomatic.gainDB = nil
        let fixed = LiveCalibration(table: madeAutomatic, gainDB: 29.7)
        #expect(fixed.tune(to: band) == .dB && fixed.unusable == "made at gain auto")
        #expect(LiveCalibration(table: madeAutomatic, gainDB: nil).tune(to: band) == .dBm)
    }
}
