/// A frequency converter between the antenna and the analyzer (an
/// up-converter for HF on an RTL-SDR, a satellite LNB, a block
/// down-converter), as `--frequency-offset` and `--spectrum-inverted` give it.
/// Every frequency a user sees or stores is the real one:
///
/// - low-side conversion: real = tuned + offset (an LNB with a 9.75 GHz LO is
///   +9750M; a 125 MHz up-converter is −125M);
/// - high-side conversion (`inverted`): real = offset − tuned, the LO above
///   the signal, so the spectrum comes out mirrored and bins are reversed.
public struct FrequencyConversion: Sendable, Equatable, CustomStringConvertible {
    /// [Hz]
    public var offsetHz: Double
    public var inverted: Bool

    public init(offsetHz: Double, inverted: Bool = false) {
        self.offsetHz = offsetHz
        self.inverted = inverted
    }

    /// none: real = tuned
    public var isIdentity: Bool { offsetHz == 0 && !inverted }

    /// the real frequency of a tuned one [Hz]
    public func realHz(tunedHz: Double) -> Double { inverted ? offsetHz - tunedHz : tunedHz + offsetHz }

    /// the frequency to tune for a real one [Hz] (the same map: it is its own inverse when inverted)
    public func tunedHz(realHz: Double) -> Double { inverted ? offsetHz - realHz : realHz - offsetHz }

    /// the real band of a tuned one, cut at 0 Hz (a 125 MHz up-converter
    /// before a 27 MHz dongle reaches from 0 Hz); nil if none of it is above 0 Hz
    public func real(_ tuned: FrequencyRange) -> FrequencyRange? {
        let a = realHz(tunedHz: tuned.lowerHz), b = realHz(tunedHz: tuned.upperHz)
        return FrequencyRange(lowerHz: max(0, min(a, b)), upperHz: max(a, b))
    }

    /// the band to tune for a real one; nil if it would reach below 0 Hz
    public func tuned(_ real: FrequencyRange) -> FrequencyRange? {
        let a = tunedHz(realHz: real.lowerHz), b = tunedHz(realHz: real.upperHz)
        return FrequencyRange(lowerHz: min(a, b), upperHz: max(a, b)).flatMap { $0.lowerHz >= 0 ? $0 : nil }
    }

    /// Moves a frame of tuned frequencies to real ones, in place: its start,
    /// and for an inverted spectrum the order of its bins (every detector's).
    public func toReal(_ frame: inout SpectrumFrame) {
        guard inverted else {
            frame.startHz += offsetHz
            return
        }
        frame.startHz = offsetHz - frame.stopHz
        frame.powerDB.reverse()
        if var levels = frame.everyDetector {
            levels.forEachPlane { $0.reverse() }
            frame.everyDetector = levels
        }
    }

    /// "+9750 MHz", "−125 MHz, inverted"
    public var description: String {
        let sign = offsetHz < 0 ? "−" : "+"
        return sign + FrequencyFormat.label(abs(offsetHz), maxFractionDigits: 6) + (inverted ? ", inverted" : "")
    }
}
