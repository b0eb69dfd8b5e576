import Foundation

/// The bench check of whether the analyzer made a product itself: measure,
/// change the analyzer's front-end gain (or attenuation) by ΔG, measure
/// again, and compare each product's level relative to its reference (the
/// fundamental, the two tones).
///
/// A product that is in the signal scales with it: its dBc stays put. A
/// product of order n made in the analyzer's front end grows n dB per dB of
/// the level there while its reference grows 1 dB per dB, so its dBc moves
/// (n − 1) dB per dB of gain change: 2 dB/dB for a third-order
/// intermodulation product or third harmonic, 1 dB/dB for a second harmonic.
/// A product is called the analyzer's when its dBc moves, in the direction
/// of the gain change, by at least half of that: |moved| ≥ (n − 1)·|ΔG|/2.
/// A product made by both in similar shares moves in between.
public enum GainCheck {
    public struct Product: Sendable, Equatable {
        /// "H2", "2F1−F2" …
        public var name: String
        /// the product's order n (a harmonic's number; 3 for IM3)
        public var order: Int
        public var hz: Double
        public var dBcBefore: Double
        public var dBcAfter: Double
        /// dBc after − dBc before [dB]
        public var movedDB: Double { dBcAfter - dBcBefore }
        /// how far an analyzer-made product's dBc moves for this gain change [dB]: (n − 1)·ΔG
        public var analyzerMadeMoveDB: Double
        /// moved at least half of `analyzerMadeMoveDB`, in its direction
        public var analyzerMade: Bool {
            analyzerMadeMoveDB != 0 && movedDB * analyzerMadeMoveDB.sign.factor >= abs(analyzerMadeMoveDB) / 2
        }
    }

    public struct Result: Sendable, Equatable {
        /// the gain change made [dB] (negative: less gain, more attenuation)
        public var gainChangeDB: Double
        /// how far the reference (fundamental, or the tones' mean) moved [dB]: about the gain change on an uncalibrated SDR
        public var referenceMovedDB: Double
        public var products: [Product]
    }

    /// Harmonics 2… found clear of the noise both times (by number): a noise reading moves with the noise.
    public static func compare(_ before: BenchMeasurements.Harmonics, _ after: BenchMeasurements.Harmonics,
                               gainChangeDB: Double) -> Result? {
        guard let first = before.tones.first?.tone, let second = after.tones.first?.tone else { return nil }
        var products: [Product] = []
        for harmonic in before.tones.dropFirst() where !harmonic.belowNoise {
            guard let later = after.tones.first(where: { $0.n == harmonic.n }), !later.belowNoise else { continue }
            products.append(Product(name: "H\(harmonic.n)", order: harmonic.n, hz: harmonic.tone.hz,
                                    dBcBefore: harmonic.tone.decibels - first.decibels,
                                    dBcAfter: later.tone.decibels - second.decibels,
                                    analyzerMadeMoveDB: Double(harmonic.n - 1) * gainChangeDB))
        }
        return Result(gainChangeDB: gainChangeDB, referenceMovedDB: second.decibels - first.decibels, products: products)
    }

    /// Both third-order products.
    public static func compare(_ before: BenchMeasurements.Intermodulation, _ after: BenchMeasurements.Intermodulation,
                               gainChangeDB: Double) -> Result {
        Result(gainChangeDB: gainChangeDB, referenceMovedDB: after.toneLevel - before.toneLevel, products: [
            Product(name: "2F1−F2", order: 3, hz: before.lowerProduct.hz, dBcBefore: before.lowerDBc, dBcAfter: after.lowerDBc,
                    analyzerMadeMoveDB: 2 * gainChangeDB),
            Product(name: "2F2−F1", order: 3, hz: before.upperProduct.hz, dBcBefore: before.upperDBc, dBcAfter: after.upperDBc,
                    analyzerMadeMoveDB: 2 * gainChangeDB),
        ])
    }
}

private extension FloatingPointSign {
    var factor: Double { self == .minus ? -1 : 1 }
}
