import Foundation
import Signals

/// What the emulated swept analyzers (tinySA, RF Explorer) measure: the
/// demo's `DemoScene` carriers as levels in dBm seen through a resolution
/// filter, over a noise floor. Each call draws fresh noise from the seeded
/// generator, so a run repeats for a given seed.
public struct AnalyzerScene: Sendable {
    /// displayed average noise level [dBm]
    public var noiseFloorDBm: Double
    /// standard deviation of the noise around the floor [dB]
    public var noiseSigmaDB: Double
    /// carriers: centre [Hz], level [dBm], occupied width [Hz]
    public var carriers: [(frequencyHz: Double, levelDBm: Double, widthHz: Double)]
    /// When set, the noise is white with this density [dBm/Hz] instead of
    /// the fixed floor: a point reads density + 10·log10(noise bandwidth of
    /// its RBW filter), spread ±20 % in linear power around that mean, so a
    /// band of it has a known power.
    public var noiseDensityDBmPerHz: Double?
    private var random: SeededRandom

    public init(seed: UInt64, noiseFloorDBm: Double = -105, noiseSigmaDB: Double = 1.5,
                carriers: [(frequencyHz: Double, levelDBm: Double, widthHz: Double)]) {
        self.noiseFloorDBm = noiseFloorDBm
        self.noiseSigmaDB = noiseSigmaDB
        self.carriers = carriers
        random = SeededRandom(seed: seed ^ 0xa11a_5c3e)
    }

    /// The demo scene's steady carriers (FM band, 433.92 MHz, 915 MHz,
    /// ADS-B, GPS). An int8 amplitude a maps to 20·log10(a/127) − 10 dBm, so
    /// the 433.92 MHz carrier (a = 12) reads about −30 dBm.
    public static func standard(seed: UInt64 = 1) -> AnalyzerScene {
        let demo = DemoScene.standard(seed: seed)
        let carriers = demo.carriers.map { carrier in
            (frequencyHz: carrier.frequencyHz,
             levelDBm: 20 * log10(max(carrier.amplitude, 1e-3) / 127) - 10,
             widthHz: 2 * carrier.deviationHz)
        }
        return AnalyzerScene(seed: seed, carriers: carriers)
    }

    /// Level an analyzer reads at `frequencyHz` with a resolution filter
    /// `rbwHz` wide [dBm]: noise plus every carrier within reach, summed as
    /// power; a carrier falls off as a Gaussian filter would
    /// (−12 dB at one filter width from its edge). Only carriers inside
    /// `receiving` reach the detector (an analyzer input that does not cover
    /// a carrier shows the floor there).
    public mutating func levelDBm(at frequencyHz: Double, rbwHz: Double,
                                  receiving: ClosedRange<Double>? = nil) -> Double {
        let filter = max(rbwHz, 1)
        var power: Double
        if let density = noiseDensityDBmPerHz {
            let mean = Units.power(decibels: density) * ResolutionFilter.noiseBandwidth(rbwHz: filter)
            power = mean * max(0.05, 1 + 0.2 * random.gaussian())
        } else {
            power = Units.power(decibels: noiseFloorDBm + noiseSigmaDB * random.gaussian())
        }
        for carrier in carriers where receiving?.contains(carrier.frequencyHz) ?? true {
            let outside = max(0, abs(frequencyHz - carrier.frequencyHz) - carrier.widthHz / 2) / filter
            guard outside < 4 else { continue }
            power += Units.power(decibels: carrier.levelDBm - 12 * outside * outside)
        }
        return Units.decibels(power: power)
    }
}
