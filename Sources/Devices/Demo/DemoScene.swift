import Foundation
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

    /// A transmitter that sends short packets on a time grid, as Wi-Fi and
    /// Bluetooth do: slot `k` starts at `k · slotSeconds + phaseSeconds` and,
    /// when it carries a packet, is on the air for `airSeconds` on one of
    /// `channelsHz` (chosen per slot: Bluetooth hops). Whether a slot carries
    /// a packet, and on which channel, is a hash of the seed and the slot, so
    /// a scene repeats exactly.
    public struct PacketEmitter: Sendable, Equatable {
        /// channel centres it transmits on [Hz]
        public var channelsHz: [Double]
        /// occupied bandwidth of one packet [Hz]
        public var widthHz: Double
        /// [int8 units]
        public var amplitude: Double
        /// slot grid [s]
        public var slotSeconds: Double
        /// offset of the grid [s]
        public var phaseSeconds: Double
        /// time on the air per packet [s]
        public var airSeconds: Double
        /// fraction of slots that carry a packet (while a session is on)
        public var slotProbability: Double
        /// traffic comes in sessions this long [s]; 0 = always on
        public var sessionSeconds: Double
        /// fraction of sessions with traffic
        public var sessionProbability: Double

        public init(channelsHz: [Double], widthHz: Double, amplitude: Double, slotSeconds: Double,
                    phaseSeconds: Double = 0, airSeconds: Double, slotProbability: Double = 1,
                    sessionSeconds: Double = 0, sessionProbability: Double = 1) {
            self.channelsHz = channelsHz
            self.widthHz = widthHz
            self.amplitude = amplitude
            self.slotSeconds = slotSeconds
            self.phaseSeconds = phaseSeconds
            self.airSeconds = airSeconds
            self.slotProbability = slotProbability
            self.sessionSeconds = sessionSeconds
            self.sessionProbability = sessionProbability
        }

        /// Calls `body` with the channel [Hz] of every packet on the air
        /// during `start`…`end` [s]; `seed` picks the slots and channels.
        public func packets(from start: Double, to end: Double, seed: UInt64, _ body: (Double) -> Void) {
            guard slotSeconds > 0, !channelsHz.isEmpty, end >= start else { return }
            // slots whose air time [k·slot + phase, … + air] overlaps the interval
            let first = Int64(((start - phaseSeconds - airSeconds) / slotSeconds).rounded(.up))
            let last = Int64(((end - phaseSeconds) / slotSeconds).rounded(.down))
            guard first <= last else { return }
            for slot in first...last {
                let slotStart = Double(slot) * slotSeconds + phaseSeconds
                if sessionSeconds > 0 {
                    let session = UInt64(bitPattern: Int64((slotStart / sessionSeconds).rounded(.down)))
                    guard Self.unit(seed ^ 0x5e55_10, session) < sessionProbability else { continue }
                }
                let key = UInt64(bitPattern: slot)
                guard Self.unit(seed, key) < slotProbability else { continue }
                let channel = channelsHz.count == 1
                    ? 0 : Int(SeededRandom.mix(seed ^ 0xc4a7 ^ key &* 0x9e37_79b9) % UInt64(channelsHz.count))
                body(channelsHz[channel])
            }
        }

        /// A uniform 0…1 from a seed and a key.
        static func unit(_ seed: UInt64, _ key: UInt64) -> Double {
            Double(SeededRandom.mix(seed ^ key &* 0xd6e8_feb8_6659_fd93) >> 11) * 0x1p-53
        }
    }

    /// A carrier keyed on and off (a radar, a pulsed beacon): on for
    /// `widthSeconds` from `phaseSeconds + k · periodSeconds`, off otherwise,
    /// sample by sample, so a swept analyzer sees it only when a dwell
    /// overlaps a pulse.
    public struct PulsedCarrier: Sendable, Equatable {
        /// centre [Hz]
        public var frequencyHz: Double
        /// [int8 units]
        public var amplitude: Double
        /// time on per pulse [s]
        public var widthSeconds: Double
        /// pulse repetition interval [s]
        public var periodSeconds: Double
        /// start of pulse 0 [s since the sweep began]
        public var phaseSeconds: Double
        /// pulses sent in all (nil: for ever), so a test knows how many there were
        public var count: Int?

        public init(frequencyHz: Double, amplitude: Double, widthSeconds: Double, periodSeconds: Double,
                    phaseSeconds: Double = 0, count: Int? = nil) {
            self.frequencyHz = frequencyHz
            self.amplitude = amplitude
            self.widthSeconds = widthSeconds
            self.periodSeconds = periodSeconds
            self.phaseSeconds = phaseSeconds
            self.count = count
        }

        /// Calls `body` with each on-interval [s] that overlaps `start`…`end`, clipped to it.
        public func pulses(from start: Double, to end: Double, _ body: (Double, Double) -> Void) {
            guard periodSeconds > 0, widthSeconds > 0, end > start else { return }
            var k = max(0, ((start - phaseSeconds - widthSeconds) / periodSeconds).rounded(.up))
            while true {
                if let count, k >= Double(count) { return }
                let on = phaseSeconds + k * periodSeconds
                if on >= end { return }
                let off = on + widthSeconds
                if off > start { body(max(on, start), min(off, end)) }
                k += 1
            }
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
    /// Wi-Fi, Bluetooth and the like
    public var packetEmitters: [PacketEmitter]
    /// carriers keyed on and off
    public var pulsedCarriers: [PulsedCarrier]

    public init(seed: UInt64, noiseSigma: Double = 2.5, carriers: [Carrier] = [],
                driftingTones: [DriftingTone] = [], scheduledBursts: [Burst] = [],
                randomBurstBand: ClosedRange<Double>? = nil, randomBurstProbability: Double = 0,
                randomBurstAmplitude: Double = 24, packetEmitters: [PacketEmitter] = [],
                pulsedCarriers: [PulsedCarrier] = []) {
        self.seed = seed
        self.noiseSigma = noiseSigma
        self.carriers = carriers
        self.driftingTones = driftingTones
        self.scheduledBursts = scheduledBursts
        self.randomBurstBand = randomBurstBand
        self.randomBurstProbability = randomBurstProbability
        self.randomBurstAmplitude = randomBurstAmplitude
        self.packetEmitters = packetEmitters
        self.pulsedCarriers = pulsedCarriers
    }

    /// The int8 amplitude per I/Q component that an input of `levelDBm`
    /// gives at the reference gain (the HackRF's LNA 16 dB, VGA 20 dB,
    /// amplifier off), before the front end's frequency response:
    /// 127 · 10^((L + 10) / 20), so a = 127 is −10 dBm — the mapping
    /// `AnalyzerScene` uses for the swept analyzers' dBm.
    public static func amplitude(levelDBm: Double) -> Double { 127 * pow(10, (levelDBm + 10) / 20) }

    /// A signal generator or comb cabled to the input: the noise floor and
    /// these steady tones, nothing from an antenna (calibration runs and their tests).
    public static func generator(seed: UInt64, tones: [GeneratorTone]) -> DemoScene {
        DemoScene(seed: seed, carriers: tones.map {
            Carrier(frequencyHz: $0.frequencyHz, amplitude: amplitude(levelDBm: $0.levelDBm))
        })
    }

    /// The built-in demo, judged beside real rtl_power captures of the FM
    /// band: a flat noise floor; 12 FM stations on the 200 kHz raster at
    /// least 0.8 MHz apart, 30–50 dB above the floor in 100 kHz bins; ISM,
    /// ADS-B and GPS carriers; a tone drifting across 144.2–145.8 MHz at
    /// 3 kHz/s; and at 2.4 GHz the packets a flat hears: faint beacons of
    /// two Wi-Fi access points (channels 1 and 11; 0.5 ms every 102.4 ms), a
    /// station on channel 6 with traffic in bursts (one second in six busy,
    /// 1.5 ms packets), and a Bluetooth link hopping over 79 channels (625 µs
    /// slots, one in sixteen used), so single packets stand out in the
    /// waterfall; and at 1030 MHz a pulsed transmitter (50 µs every 2.5 ms,
    /// as a secondary-radar interrogator keys its bursts), which hackrf_sweep's
    /// numbers show in about 2 % of sweeps and the peak detector in about 18 %.
    public static func standard(seed: UInt64 = 1) -> DemoScene {
        var random = SeededRandom(seed: seed ^ 0x5ce4e)
        var carriers: [Carrier] = []
        // 12 stations: a channel from the 200 kHz raster in each 1.65 MHz
        // stretch (so neighbours are ≥ 0.8 MHz apart), levels spread evenly
        // in dB over 30–50 dB above the floor (amplitude 1 ≈ 18 dB)
        let stations = 12
        let stretch = 20e6 / Double(stations)
        for index in 0..<stations {
            let channels = Int((stretch - 0.8e6) / 200_000)
            let channel = 88.1e6 + Double(index) * (stretch / 200_000).rounded(.down) * 200_000
                + Double(Int(random.unit() * Double(channels))) * 200_000
            let aboveFloorDB = 30 + 20 * random.unit()
            carriers.append(Carrier(frequencyHz: channel, amplitude: pow(10, (aboveFloorDB - 18) / 20),
                                    deviationHz: 50_000, modulationHz: 300 + 1_500 * random.unit()))
        }
        carriers += [
            Carrier(frequencyHz: 433.92e6, amplitude: 12),
            Carrier(frequencyHz: 915e6, amplitude: 6),
            Carrier(frequencyHz: 1090e6, amplitude: 9, deviationHz: 300_000, modulationHz: 50_000),
            Carrier(frequencyHz: 1575.42e6, amplitude: 4, deviationHz: 800_000, modulationHz: 511_000),
        ]
        let beacon = 0.1024
        // two access points' beacons, faint (10–15 dB over the floor)
        var emitters = [(2412e6, 3.0), (2462e6, 5.0)].map { channel, amplitude in
            PacketEmitter(channelsHz: [channel], widthHz: 16e6, amplitude: amplitude, slotSeconds: beacon,
                          phaseSeconds: beacon * random.unit(), airSeconds: 0.0005)
        }
        // a busy station on channel 6: one second in six with traffic
        emitters.append(PacketEmitter(channelsHz: [2437e6], widthHz: 16e6, amplitude: 20, slotSeconds: 0.004,
                                      airSeconds: 0.0015, slotProbability: 0.3, sessionSeconds: 1,
                                      sessionProbability: 1.0 / 6))
        emitters.append(PacketEmitter(channelsHz: (0..<79).map { 2402e6 + Double($0) * 1e6 }, widthHz: 1e6,
                                      amplitude: 10, slotSeconds: 0.000625, airSeconds: 0.0004,
                                      slotProbability: 1.0 / 16))
        return DemoScene(seed: seed, noiseSigma: 1, carriers: carriers,
                         driftingTones: [DriftingTone(lowerHz: 144.2e6, upperHz: 145.8e6,
                                                      rateHzPerSecond: 3_000, amplitude: 10)],
                         packetEmitters: emitters,
                         pulsedCarriers: [PulsedCarrier(frequencyHz: 1030e6, amplitude: 12, widthSeconds: 50e-6,
                                                        periodSeconds: 2.5e-3)])
    }
}

/// What a demo device is given instead of its defaults (tests and
/// demonstrations): a signal generator cabled to its input, a crystal off
/// its nominal frequency.
public struct DemoInput: Sendable, Equatable {
    /// a signal generator's tones instead of the demo scene (HackRF and RTL-SDR)
    public var generator: [GeneratorTone]?
    /// the RTL-SDR's crystal error [ppm]
    public var crystalErrorPPM: Double
    /// pulsed transmitters added to the scene (HackRF and RTL-SDR): bursts on the radio's own sample clock
    public var pulses: [DemoScene.PulsedCarrier]

    public init(generator: [GeneratorTone]? = nil, crystalErrorPPM: Double = 0, pulses: [DemoScene.PulsedCarrier] = []) {
        self.generator = generator
        self.crystalErrorPPM = crystalErrorPPM
        self.pulses = pulses
    }

    /// The scene a demo HackRF or RTL-SDR sees with this input (nil: the standard demo).
    public func scene(seed: UInt64) -> DemoScene? {
        var scene = generator.map { DemoScene.generator(seed: seed, tones: $0) }
        if !pulses.isEmpty {
            scene = scene ?? DemoScene.standard(seed: seed)
            scene?.pulsedCarriers += pulses
        }
        return scene
    }
}

extension DemoScene.PulsedCarrier {
    /// "305:-40:200:500", "305:-40:200:500:250" or "305:-40:200:500:250:21":
    /// MHz, dBm at the input, pulse width [µs], period [ms], start of the
    /// first pulse [ms], how many pulses in all (comma-separated for
    /// several); nil when malformed
    public static func list(parsing text: String) -> [DemoScene.PulsedCarrier]? {
        var pulses: [DemoScene.PulsedCarrier] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: ":").map { Double($0) }
            guard (4...6).contains(parts.count), parts.allSatisfy({ $0?.isFinite == true }),
                  let mhz = parts[0], let dbm = parts[1], let widthMicroseconds = parts[2], let periodMilliseconds = parts[3],
                  mhz > 0, dbm <= 0, widthMicroseconds > 0, periodMilliseconds * 1000 > widthMicroseconds else { return nil }
            let phase = parts.count >= 5 ? (parts[4] ?? 0) : 0
            let count = parts.count == 6 ? parts[5].map { Int($0) } : nil
            if phase < 0 { return nil }
            if let count, count < 1 { return nil }
            pulses.append(DemoScene.PulsedCarrier(frequencyHz: mhz * 1e6, amplitude: DemoScene.amplitude(levelDBm: dbm),
                                                  widthSeconds: widthMicroseconds * 1e-6,
                                                  periodSeconds: periodMilliseconds * 1e-3, phaseSeconds: phase * 1e-3,
                                                  count: count))
        }
        return pulses.isEmpty ? nil : pulses
    }
}

/// One tone of an emulated signal generator: frequency [Hz] and level at the input [dBm].
public struct GeneratorTone: Sendable, Equatable {
    public var frequencyHz: Double
    public var levelDBm: Double

    public init(frequencyHz: Double, levelDBm: Double) {
        self.frequencyHz = frequencyHz
        self.levelDBm = levelDBm
    }

    /// "433.92:-30,500:-40" (MHz:dBm, comma-separated); nil when malformed
    public static func list(parsing text: String) -> [GeneratorTone]? {
        var tones: [GeneratorTone] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: ":")
            guard parts.count == 2, let mhz = Double(parts[0]), let dbm = Double(parts[1]), mhz.isFinite, mhz > 0,
                  dbm.isFinite, dbm <= 0 else { return nil }
            tones.append(GeneratorTone(frequencyHz: mhz * 1e6, levelDBm: dbm))
        }
        return tones.isEmpty ? nil : tones
    }
}
