import Foundation
import Signals
import Testing
@testable import ViewModels

@Suite struct PersistenceModelTests {
    /// 10 columns over 100–101 MHz, 20 rows of 5 dB from 0 dB down to −100 dB
    static let geometry = PersistenceGeometry(columns: 10, rows: 20, band: FrequencyRange(lowerHz: 100e6, upperHz: 101e6)!,
                                              bottomDB: -100, topDB: 0)
    /// rows of the levels used below in `geometry` (5 dB a row from the top)
    static let carrierRow = 4, burstRow = 6, floorRow = 16

    /// 100 bins of 10 kHz over the band: a floor at −80 dB, a steady carrier at −20 dB in bin 25
    /// (column 2) and, when `burst`, −30 dB in bin 75 (column 7)
    static func frame(time: Double, burst: Bool) -> SpectrumFrame {
        var power = [Float](repeating: -80, count: 100)
        power[25] = -20
        if burst { power[75] = -30 }
        return SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: time, powerDB: power)
    }

    static func model(persistence seconds: Double) -> PersistenceModel {
        let model = PersistenceModel()
        model.setPersistence(seconds: seconds)
        #expect(model.persistenceSeconds == seconds)
        model.configure(geometry)
        return model
    }

    @Test func aBurstInOneFrameOfAHundredHasDensityOnePercentUnderASteadyCarrier() {
        // ∞ persistence: every frame weighs the same, the densities are plain fractions
        let model = Self.model(persistence: .infinity)
        for i in 0..<100 { model.add(Self.frame(time: 1000 + Double(i) / 30, burst: i == 37)) }
        #expect(model.framesAdded == 100)
        let burst = model.density(column: 7, row: Self.burstRow)
        #expect(abs(burst - 0.01) < 1e-6, "\(burst)")
        #expect(abs(model.density(column: 7, row: Self.floorRow) - 0.99) < 1e-6)
        #expect(abs(model.density(column: 2, row: Self.carrierRow) - 1) < 1e-6)
        #expect(model.density(column: 2, row: Self.floorRow) == 0)
        // the burst is drawn (a colour of the map, not background) and well below the carrier's colour
        let burstLevel = PersistenceModel.paletteLevel(density: burst)
        let carrierLevel = PersistenceModel.paletteLevel(density: model.density(column: 2, row: Self.carrierRow))
        #expect(burstLevel != nil && carrierLevel == 1)
        #expect((burstLevel ?? 0) >= PersistenceModel.lowestPaletteLevel + 0.15, "\(burstLevel ?? 0)")
        #expect((burstLevel ?? 1) < 0.8)
        // rarer than 0.1 %: not drawn
        #expect(PersistenceModel.paletteLevel(density: 0.0009) == nil)
        #expect(PersistenceModel.paletteLevel(density: .nan) == nil)
    }

    @Test func withDecayTheBurstStillReadsAboutOnePercentAndMatchesTheWeightedSum() {
        // 10 s at 30 frames/s: about 300 frames weigh in; a burst every 100th frame
        let model = Self.model(persistence: 10)
        let frames = 1000
        let dt = 1.0 / 30
        for i in 0..<frames { model.add(Self.frame(time: Double(i) * dt, burst: i % 100 == 50)) }
        // the formula: weight of frame i is k^(last − i), k = exp(−Δt/τ)
        let k = exp(-dt / 10)
        var hits = 0.0, total = 0.0
        for i in 0..<frames {
            let weight = pow(k, Double(frames - 1 - i))
            total += weight
            if i % 100 == 50 { hits += weight }
        }
        let expected = hits / total
        let burst = Double(model.density(column: 7, row: Self.burstRow))
        #expect(abs(burst - expected) < 1e-4 * expected + 1e-6, "\(burst) vs \(expected)")
        #expect(abs(burst - 0.01) < 0.002, "\(burst)")
        #expect(abs(Double(model.frameWeight(column: 7)) - total) < 1e-3 * total)
        #expect(abs(model.density(column: 2, row: Self.carrierRow) - 1) < 1e-5)
    }

    @Test func decayFollowsExpOfElapsedTimeOverThePersistenceTime() {
        let model = Self.model(persistence: 2)
        #expect(abs(Double(model.decayFactor(afterSeconds: 0.5)) - exp(-0.25)) < 1e-7)
        #expect(model.decayFactor(afterSeconds: 0) == 1)
        // a burst in the first of three frames at 0, 0.5 and 1.5 s
        model.add(Self.frame(time: 0, burst: true))
        model.add(Self.frame(time: 0.5, burst: false))
        model.add(Self.frame(time: 1.5, burst: false))
        let hit = exp(-1.5 / 2.0)                                // aged 1.5 s
        let frames = exp(-1.5 / 2.0) + exp(-1.0 / 2.0) + 1       // aged 1.5, 1 and 0 s
        #expect(abs(Double(model.hits(column: 7, row: Self.burstRow)) - hit) < 1e-6)
        #expect(abs(Double(model.frameWeight(column: 7)) - frames) < 1e-6)
        #expect(abs(Double(model.density(column: 7, row: Self.burstRow)) - hit / frames) < 1e-6)
        // ∞ does not decay
        model.setPersistence(seconds: .infinity)
        #expect(model.decayFactor(afterSeconds: 100) == 1)
    }

    @Test func aNewWindowOrAJumpBackStartsAgainAndUncoveredColumnsCountNothing() {
        let model = Self.model(persistence: 5)
        model.add(Self.frame(time: 10, burst: true))
        #expect(model.hits(column: 7, row: Self.burstRow) == 1)
        // the same geometry keeps the hits
        model.configure(Self.geometry)
        #expect(model.hits(column: 7, row: Self.burstRow) == 1)
        var lower = Self.geometry
        lower.bottomDB = -90
        model.configure(lower)
        #expect(model.hits(column: 7, row: Self.burstRow) == 0 && model.framesAdded == 0)
        model.configure(Self.geometry)
        model.add(Self.frame(time: 10, burst: true))
        model.add(Self.frame(time: 3, burst: false))    // a replay jumped back 7 s
        #expect(model.framesAdded == 1 && model.hits(column: 7, row: Self.burstRow) == 0)
        // a frame covering only the lower half of the band: the upper columns count no frame
        let half = SpectrumFrame(startHz: 100e6, binWidthHz: 10e3, timestamp: 4, powerDB: [Float](repeating: -80, count: 50))
        let before = model.frameWeight(column: 8)
        model.add(half)
        #expect(model.frameWeight(column: 8) < before)   // only decayed
        #expect(model.frameWeight(column: 1) > before)
    }

    @Test func theLogScaleSpansThreeDecades() {
        #expect(PersistenceModel.logFraction(density: 1) == 0 + 1)
        #expect(abs(PersistenceModel.logFraction(density: 0.01) - 1.0 / 3) < 1e-6)
        #expect(PersistenceModel.logFraction(density: 0.001) == 0)
        #expect(PersistenceModel.paletteLevel(density: 0.001) == PersistenceModel.lowestPaletteLevel)
        // a carrier at 100 % is the top of the map; 1 % a third of the way from the lowest level
        let onePercent = PersistenceModel.paletteLevel(density: 0.01) ?? 0
        let lowest = PersistenceModel.lowestPaletteLevel
        #expect(abs(onePercent - (lowest + (1 - lowest) / 3)) < 1e-6)
    }

    @Test func theHistogramIsAllocatedOnceAndNoFrameBeforeAGeometryCounts() {
        let model = PersistenceModel()
        model.add(Self.frame(time: 0, burst: true))
        #expect(model.framesAdded == 0)
        model.configure(Self.geometry)
        model.add(Self.frame(time: 0, burst: true))
        #expect(model.framesAdded == 1)
    }
}
