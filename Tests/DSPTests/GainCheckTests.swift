import Testing
@testable import DSP

/// The gain check's rule on readings of known level: a product whose dBc
/// stays put is the signal's; one that moves (n − 1) dB per dB of gain is
/// the analyzer's; the verdict turns at half of that.
@Suite struct GainCheckTests {
    static func tone(_ hz: Double, _ decibels: Double) -> BenchMeasurements.Tone {
        BenchMeasurements.Tone(expectedHz: hz, hz: hz, decibels: decibels)
    }

    static func harmonics(_ levels: [Double]) -> BenchMeasurements.Harmonics {
        BenchMeasurements.Harmonics(tones: levels.enumerated().map {
            BenchMeasurements.Harmonic(n: $0.offset + 1, tone: tone(Double($0.offset + 1) * 1e8, $0.element))
        })
    }

    @Test func harmonicsMoveByTheirOrderLessOne() throws {
        // fundamental −20 → −28 (ΔG = −8): H2 keeps −15 dBc (signal); H3 made in the analyzer: −40 → −56 dBc (2 dB/dB);
        // H4 moved −3 dB of the −24 an analyzer-made one would: under half, the signal's
        let before = Self.harmonics([-20, -35, -60, -50])
        let after = Self.harmonics([-28, -43, -84, -61])
        let result = try #require(GainCheck.compare(before, after, gainChangeDB: -8))
        #expect(result.referenceMovedDB == -8)
        #expect(result.products.map(\.name) == ["H2", "H3", "H4"])
        #expect(result.products.map(\.movedDB) == [0, -16, -3])
        #expect(result.products.map(\.analyzerMadeMoveDB) == [-8, -16, -24])
        #expect(result.products.map(\.analyzerMade) == [false, true, false])
    }

    @Test func intermodulationTurnsAtHalfOfTwoDBPerDB() {
        func reading(tones: Double, products: (Double, Double)) -> BenchMeasurements.Intermodulation {
            BenchMeasurements.Intermodulation(lower: Self.tone(100e6, tones), upper: Self.tone(101e6, tones),
                                              lowerProduct: Self.tone(99e6, products.0), upperProduct: Self.tone(102e6, products.1))
        }
        // +6 dB of gain: an analyzer-made IM3 rises 12 dB in dBc; the threshold is +6
        let before = reading(tones: -30, products: (-70, -70))
        let after = reading(tones: -24, products: (-57.9, -58.1))  // dBc −33.9 (moved +6.1), −34.1 (+5.9)
        let result = GainCheck.compare(before, after, gainChangeDB: 6)
        #expect(result.products.map(\.analyzerMade) == [true, false])
        // moving against the gain change is never the analyzer's
        let against = GainCheck.compare(before, reading(tones: -24, products: (-74, -74)), gainChangeDB: 6)
        #expect(against.products.allSatisfy { !$0.analyzerMade })
    }
}
