import Signals

/// The mean power in a band over every frame added since the last `take`:
/// each frame's band power (linear sum over its bins, weighted by the part of
/// each bin inside the band, `BandPower`) averaged in linear units, so a
/// reading covers all sweeps, not just the ones that were drawn. Not
/// thread-safe: the owner locks (`FrameMailbox`, the meter command).
public struct BandPowerAverage: Sendable {
    /// the band measured [Hz]; changing it starts a new average
    public var band: FrequencyRange? {
        didSet { if band != oldValue { reset() } }
    }

    /// sum of the frames' band powers [linear, relative to 0 dB]
    private var linearSum = 0.0
    private var frames = 0

    public init(band: FrequencyRange? = nil) {
        self.band = band
    }

    /// Adds one frame; frames that do not overlap the band are skipped.
    public mutating func add(_ frame: SpectrumFrame) {
        guard let band, let decibels = BandPower.decibels(in: band, of: frame), decibels.isFinite else { return }
        linearSum += Units.power(decibels: decibels)
        frames += 1
    }

    /// The mean band power of the frames since the last take [dB] and how
    /// many there were; nil when none arrived.
    public mutating func take() -> (decibels: Double, frames: Int)? {
        defer { reset() }
        guard frames > 0 else { return nil }
        return (Units.decibels(power: linearSum / Double(frames)), frames)
    }

    public mutating func reset() {
        linearSum = 0
        frames = 0
    }
}
