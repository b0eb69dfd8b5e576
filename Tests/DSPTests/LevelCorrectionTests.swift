import DSP
import Foundation
import Signals
import Testing

/// `--unit`, `--correction` and `--antenna-factor`: the table file, its
/// interpolation, the 50 Ω voltage units against P = V²/R computed here, and
/// the per-bin application to frames.
@Suite struct LevelCorrectionTests {
    @Test func tablesReadWithHeaderCommentsAndSemicolonsAndInterpolateLikeTheCalibration() throws {
        let text = "# cable RG-58, 10 m\r\nfrequency_hz,correction_db\r\n30000000,0.5\r\n300000000,1.5\r\n1000000000,3\r\n"
        let table = try LevelCorrectionTable.parse(text, file: "cable.csv")
        #expect(table.points.count == 3 && table.name == "cable.csv")
        #expect(table.correctionDB(atHz: 10e6) == 0.5)  // held below the first row
        #expect(table.correctionDB(atHz: 2e9) == 3)  // and above the last
        #expect(abs(table.correctionDB(atHz: 165e6) - 1.0) < 1e-12)  // halfway, linear in dB
        #expect(abs(table.correctionDB(atHz: 650e6) - 2.25) < 1e-12)
        let semicolons = try LevelCorrectionTable.parse("30e6; -20\n1e9; -18\n", file: "preamp.csv")
        #expect(semicolons.points.map(\.correctionDB) == [-20, -18])
    }

    @Test(arguments: [
        ("", "no frequency_hz,correction_db rows"),
        ("30e6,1\n20e6,2\n", "bad.csv:2:"),
        ("30e6,1,2\n", "bad.csv:1:"),
        ("30e6,abc\n", "expected frequency_hz,correction_db"),
        ("30e6,1\n40e6,nan\n", "bad.csv:2:"),
        ("30e6,500\n", "±200 dB"),
    ])
    func badTablesAreOneLineNamingTheLine(text: String, expected: String) {
        do {
            _ = try LevelCorrectionTable.parse(text, file: "bad.csv")
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.description.contains("bad.csv") && error.description.contains(expected), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func voltageUnitsAreDBmAcrossFiftyOhms() {
        // an independent route: P [W] → V = √(P·R) → 20·log10(V / 1 µV) and 20·log10(V / 1 mV)
        for dBm in [-100.0, -30, 0, 13] {
            let volts = (pow(10, dBm / 10) / 1000 * 50).squareRoot()
            let microvolts = 20 * log10(volts / 1e-6), millivolts = 20 * log10(volts / 1e-3)
            #expect(abs(dBm + LevelUnits(reading: .dBuV).offsetDB(atHz: 1e8, from: .dBm) - microvolts) < 1e-9)
            #expect(abs(dBm + LevelUnits(reading: .dBmV).offsetDB(atHz: 1e8, from: .dBm) - millivolts) < 1e-9)
        }
        #expect(LevelUnits(reading: .dBuV).unit(from: .dBm) == .dBuV)
        #expect(LevelUnits(reading: .dBmV).unit(from: .dBm) == .dBmV)
        #expect(LevelUnits(reading: .W).unit(from: .dBm) == .dBm)
        // an uncalibrated SDR's dB is relative: no voltage, the tables still add
        let cable = LevelCorrectionTable(name: "cable.csv", points: [.init(frequencyHz: 1e8, correctionDB: 2)])
        let units = LevelUnits(reading: .dBuV, corrections: [cable])
        #expect(units.unit(from: .dB) == .dB && units.offsetDB(atHz: 1e8, from: .dB) == 2)
        #expect(abs(units.offsetDB(atHz: 1e8, from: .dBm) - (2 + 106.98970004336019)) < 1e-12)
    }

    @Test func anAntennaFactorMakesFieldStrengthAndTablesAdd() {
        let factor = LevelCorrectionTable(name: "bicon.csv", points: [.init(frequencyHz: 30e6, correctionDB: 12),
                                                                      .init(frequencyHz: 230e6, correctionDB: 16)])
        let cable = LevelCorrectionTable(name: "cable.csv", points: [.init(frequencyHz: 30e6, correctionDB: 1)])
        let preamp = LevelCorrectionTable(name: "preamp.csv", points: [.init(frequencyHz: 30e6, correctionDB: -20)])
        let units = LevelUnits(reading: .dBuV, corrections: [cable, preamp], antennaFactor: factor)
        #expect(units.unit(from: .dBm) == .dBuVPerMetre)
        // at 130 MHz: AF 14 dB/m, cable +1, preamp −20, plus dBm → dBµV
        #expect(abs(units.offsetDB(atHz: 130e6, from: .dBm) - (14 + 1 - 20 + 106.98970004336019)) < 1e-9)
        #expect(units.summary == "AF bicon.csv, + cable.csv, + preamp.csv")
    }

    @Test func framesGetEachBinsCorrectionAndEveryDetectorToo() {
        let factor = LevelCorrectionTable(name: "af.csv", points: [.init(frequencyHz: 100e6, correctionDB: 10),
                                                                   .init(frequencyHz: 200e6, correctionDB: 20)])
        let live = LiveLevelCorrection(LevelUnits(antennaFactor: factor))
        var frame = SpectrumFrame(startHz: 100e6, binWidthHz: 25e6, timestamp: 0, powerDB: [-50, -50, -50, -50, .nan])
        frame.everyDetector = DetectorLevels(peak: [Float](repeating: -40, count: 5),
                                                           average: [Float](repeating: -50, count: 5),
                                                           sample: [Float](repeating: -60, count: 5),
                                                           cisprAverage: [Float](repeating: -55, count: 5))
        live.apply(to: &frame, incoming: .dBm)
        for bin in 0..<4 {
            let expected = -50 + 106.98970004336019 + min(20, 10 + 10 * (frame.binCenterHz(bin) - 100e6) / 100e6)
            #expect(abs(Double(frame.powerDB[bin]) - expected) < 1e-3, "bin \(bin)")
            #expect(abs(Double(frame.everyDetector!.peak[bin]) - (expected + 10)) < 1e-3)
            #expect(abs(Double(frame.everyDetector!.cisprAverage[bin]) - (expected - 5)) < 1e-3)
        }
        #expect(frame.powerDB[4].isNaN)
        // the same geometry again reuses the offsets; a relative frame gets only the tables (none here)
        var relative = SpectrumFrame(startHz: 100e6, binWidthHz: 25e6, timestamp: 1, powerDB: [-50, -50, -50, -50, -50])
        live.apply(to: &relative, incoming: .dB)
        #expect(relative.powerDB == [-50, -50, -50, -50, -50])
    }
}

/// The bench measurements on synthetic spectra whose answer is known: white
/// noise of a chosen density (each bin's power exponentially distributed, as
/// an FFT bin of Gaussian noise is), tones of chosen levels in device-RBW frames.
@Suite struct BenchMeasurementsTests {
    @Test func theNoiseMarkerReadsTheDensityWithoutTheLogAveragingBias() {
        // N0 = −150 dBm/Hz, 1 kHz bins whose noise bandwidth is 375 Hz (a Hann FFT's scale)
        var state: UInt64 = 7
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Double(state >> 11) + 0.5) / Double(1 << 53)
        }
        let perBin = pow(10, -150.0 / 10) * 375
        let bins = (0..<20_000).map { _ in Float(10 * log10(-log(uniform()) * perBin)) }
        let frame = SpectrumFrame(startHz: 100e6, binWidthHz: 1e3, timestamp: 0, powerDB: bins, noiseBandwidthHz: 375)
        let marker = BenchMeasurements.noiseDensity(at: 110e6, halfBins: 5_000, in: frame)!
        #expect(abs(marker.decibelsPerHz + 150) < 0.1, "\(marker)")
        // averaging the dB values instead would read 2.51 dB low (the Rayleigh log bias)
        let logMean = bins[5_000...15_000].reduce(0.0) { $0 + Double($1) } / 10_001 - 10 * log10(375)
        #expect(abs(logMean + 150 + 2.51) < 0.1, "\(logMean)")
    }

    /// A harmonic under the noise reads as the noise's strongest bin where it was looked for: flagged
    /// "below noise" with that bin as its bound, left out of THD; one above the noise keeps its level.
    @Test func aHarmonicUnderTheNoiseIsFlaggedNotRead() {
        // Rayleigh noise (exponential power) of mean −60 dB per bin, one sweep, 10 kHz bins from 0
        var state: UInt64 = 11
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Double(state >> 11) + 0.5) / Double(1 << 53)
        }
        var bins = (0..<40_000).map { _ in Float(10 * log10(-log(uniform()) * 1e-6)) }
        func put(_ hz: Double, _ dB: Double) {
            let index = Int(hz / 1e4)
            bins[index] = Float(10 * log10(pow(10, Double(dB) / 10) + pow(10, Double(bins[index]) / 10)))
        }
        put(100e6, -10); put(200e6, -35); put(300e6, -80)   // H3 20 dB under the noise's mean
        let frame = SpectrumFrame(startHz: 0, binWidthHz: 1e4, timestamp: 0, powerDB: bins)
        let harmonics = BenchMeasurements.harmonics(fundamentalHz: 100e6, count: 3, in: frame)!
        #expect(harmonics.tones.map(\.belowNoise) == [false, false, true], "\(harmonics)")
        #expect(abs(harmonics.tones[1].tone.decibels + 35) < 0.1)
        // the bound is the noise's strongest bin: above the truth, as "< X dBc" must be
        let bound = harmonics.tones[2].tone.decibels + 10
        // (noise of mean −50 dBc: the strongest of the 61 bins within ±300 kHz some 6 dB above it)
        #expect(bound > -60 && bound < -35, "\(bound)")
        #expect(abs(harmonics.thdDB! + 25) < 0.1, "THD of H2 alone")
        // noise alone over many places: read as a tone in few of them
        var falseTones = 0
        for index in 0..<200 {
            let hz = 1e6 + Double(index) * 1.5e6
            let tone = BenchMeasurements.tone(near: hz, searchHz: 3e4, in: frame)!
            if BenchMeasurements.standsClear(tone, searchHz: 3e4, in: frame) == true { falseTones += 1 }
        }
        #expect(falseTones <= 6, "\(falseTones) of 200 noise windows read as tones")
    }

    @Test func harmonicsIntermodulationAndAdjacentChannelsOnKnownTones() {
        // a device-RBW frame (no FFT window): a tone's level is its bin's
        var levels = [Float](repeating: -120, count: 1000)
        func put(_ hz: Double, _ dB: Float) { levels[Int((hz - 0) / 1e6)] = dB }
        put(100.5e6, -10); put(200.5e6, -40); put(300.5e6, -50)
        let frame = SpectrumFrame(startHz: 0, binWidthHz: 1e6, timestamp: 0, powerDB: levels)
        let harmonics = BenchMeasurements.harmonics(fundamentalHz: 100.5e6, count: 3, in: frame)!
        #expect(harmonics.tones.map(\.tone.decibels) == [-10, -40, -50])
        #expect(abs(harmonics.thdDB! - 10 * log10(pow(10, -3.0) + pow(10, -4.0))) < 1e-6)

        #expect(harmonics.tones.map(\.belowNoise) == [false, false, false])

        var two = [Float](repeating: -120, count: 100)
        two[40] = -20; two[50] = -20; two[30] = -60; two[60] = -70
        let pair = SpectrumFrame(startHz: 0, binWidthHz: 1e3, timestamp: 0, powerDB: two)
        let im = BenchMeasurements.intermodulation(f1: 40_500, f2: 50_500, in: pair)!
        #expect(abs(im.worstDBc + 40) < 1e-4 && abs(im.outputInterceptDB - 0) < 1e-4, "\(im)")

        var flat = [Float](repeating: -60, count: 100)
        for bin in 45..<55 { flat[bin] = -30 }
        let channels = SpectrumFrame(startHz: 0, binWidthHz: 1e3, timestamp: 0, powerDB: flat)
        let acpr = BenchMeasurements.adjacentChannels(centreHz: 50e3, widthHz: 10e3, offsetsHz: [10e3], adjacentWidthHz: 10e3,
                                                      in: channels)!
        #expect(abs(acpr.adjacent[0].dBc + 30) < 1e-4 && abs(acpr.adjacent[1].dBc + 30) < 1e-4, "\(acpr)")
    }
}
