import Foundation

/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast, seedable generator
/// so every demo byte stream and every randomised test repeats for a given seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        return Self.mix(state)
    }

    /// The SplitMix64 finaliser: a stateless hash of `value`.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// uniform in [0, 1)
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// standard normal (Box–Muller)
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-300)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
