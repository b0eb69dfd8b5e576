import Signals
/// What the demo device "receives": a seeded description of an RF
/// environment. `DemoSynthesizer` turns it into the int8 I/Q a radio tuned
/// to some centre frequency with 20 MHz of bandwidth would see.
///
/// Amplitudes are in int8 units (full scale 127) so levels map directly to
/// what the HackRF's ADC delivers.
public struct DemoScene: Sendable {
    /// A carrier, optionally frequency-modulated by a sine so it has width.
    public struct Carrier: Sendable, Equatable {
        /// centre [Hz]
        public var frequencyHz: Double
        /// peak amplitude per I/Q component [int8 units]
        public var amplitude: Double
        /// peak FM deviation [Hz]
        public var deviationHz: Double
        /// FM modulating tone [Hz]
        public var modulationHz: Double

        public init(frequencyHz: Double, amplitude: Double, deviationHz: Double = 0, modulationHz: Double = 0) {
            self.frequencyHz = frequencyHz
            self.amplitude = amplitude
            self.deviationHz = deviationHz
            self.modulationHz = modulationHz
        }
    }

    /// A tone that wanders back and forth across a band at a fixed rate.
    public struct DriftingTone: Sendable, Equatable {
        /// band it moves in [Hz]
        public var lowerHz: Double
        public var upperHz: Double
        /// speed [Hz/s]
        public var rateHzPerSecond: Double
        /// [int8 units]
        public var amplitude: Double

        public init(lowerHz: Double, upperHz: Double, rateHzPerSecond: Double, amplitude: Double) {
            self.lowerHz = lowerHz
            self.upperHz = upperHz
            self.rateHzPerSecond = rateHzPerSecond
            self.amplitude = amplitude
        }

        /// frequency at time `t` [s]: a triangle between the band edges
        public func frequencyHz(at t: Double) -> Double {
            let span = upperHz - lowerHz
            guard span > 0 else { return lowerHz }
            let travelled = (t * rateHzPerSecond).truncatingRemainder(dividingBy: 2 * span)
            return travelled <= span ? lowerHz + travelled : upperHz - (travelled - span)
        }
    }

    /// A packet that exists in exactly one kept block.
    public struct Burst: Sendable, Equatable {
        /// index of the kept block (0 = first block after RX_SWEEP starts)
        public var blockIndex: UInt64
        /// where in the block's band: offset from the block's sweep frequency [Hz]
        /// (0…5 MHz and 10…15 MHz are the quarters a sweep keeps)
        public var offsetHz: Double
        /// [int8 units]
        public var amplitude: Double

        public init(blockIndex: UInt64, offsetHz: Double, amplitude: Double) {
            self.blockIndex = blockIndex
            self.offsetHz = offsetHz
            self.amplitude = amplitude
        }
    }

    /// seed of the noise and of random bursts
    public var seed: UInt64
    /// noise standard deviation per I/Q component [int8 units]
    public var noiseSigma: Double
    /// steady (and FM) carriers
    public var carriers: [Carrier]
    public var driftingTones: [DriftingTone]
    /// bursts at given blocks (tests)
    public var scheduledBursts: [Burst]
    /// band where random bursts appear [Hz]
    public var randomBurstBand: ClosedRange<Double>?
    /// chance that a block whose kept quarters touch `randomBurstBand` carries one
    public var randomBurstProbability: Double
    /// random burst amplitude [int8 units]
    public var randomBurstAmplitude: Double

    public init(seed: UInt64, noiseSigma: Double = 2.5, carriers: [Carrier] = [],
                driftingTones: [DriftingTone] = [], scheduledBursts: [Burst] = [],
                randomBurstBand: ClosedRange<Double>? = nil, randomBurstProbability: Double = 0,
                randomBurstAmplitude: Double = 24) {
        self.seed = seed
        self.noiseSigma = noiseSigma
        self.carriers = carriers
        self.driftingTones = driftingTones
        self.scheduledBursts = scheduledBursts
        self.randomBurstBand = randomBurstBand
        self.randomBurstProbability = randomBurstProbability
        self.randomBurstAmplitude = randomBurstAmplitude
    }

    /// The built-in demo: FM broadcast 88–108 MHz on a 200 kHz raster with
    /// varying levels, ISM/ADS-B/GPS carriers, a tone drifting across
    /// 144–146 MHz at 3 kHz/s, and Wi-Fi-like bursts at 2.4–2.48 GHz.
    public static func standard(seed: UInt64 = 1) -> DemoScene {
        var random = SeededRandom(seed: seed ^ 0x5ce4e)
        var carriers: [Carrier] = []
        // 88.1 … 107.9 MHz: every station present, levels spread over ~25 dB
        var channel = 88.1e6
        while channel < 108e6 {
            let level = 0.6 + 5.5 * random.unit() * random.unit()
            carriers.append(Carrier(frequencyHz: channel, amplitude: level, deviationHz: 40_000,
                                    modulationHz: 400 + 2_000 * random.unit()))
            channel += 200_000
        }
        carriers += [
            Carrier(frequencyHz: 433.92e6, amplitude: 12),
            Carrier(frequencyHz: 915e6, amplitude: 6),
            Carrier(frequencyHz: 1090e6, amplitude: 9, deviationHz: 300_000, modulationHz: 50_000),
            Carrier(frequencyHz: 1575.42e6, amplitude: 4, deviationHz: 800_000, modulationHz: 511_000),
        ]
        return DemoScene(seed: seed, carriers: carriers,
                         driftingTones: [DriftingTone(lowerHz: 144.2e6, upperHz: 145.8e6,
                                                      rateHzPerSecond: 3_000, amplitude: 10)],
                         randomBurstBand: 2.4e9...2.48e9, randomBurstProbability: 0.15)
    }
}
