import Foundation
import Signals

/// The one-key measurements of a bench analyzer, over one (averaged)
/// spectrum: harmonics and THD, two-tone third-order intermodulation and the
/// intercept, adjacent-channel power, and a noise marker. Tones are read with
/// `ToneLevel` (coherent gain and scalloping corrected), channels with
/// `BandPower` (noise-bandwidth corrected). Levels are in the frame's unit:
/// dBc and the intercept's distance from the tones hold in any unit; an
/// absolute intercept needs a calibrated analyzer.
public enum BenchMeasurements {
    /// A tone found near where it was looked for.
    public struct Tone: Sendable, Equatable {
        /// where it was looked for [Hz]
        public var expectedHz: Double
        /// where it was found [Hz] (the peak's interpolated frequency)
        public var hz: Double
        public var decibels: Double
    }

    /// The largest bin within ±`searchHz` of `hz`, read as a tone; nil where
    /// the frame does not reach or every bin there is NaN.
    public static func tone(near hz: Double, searchHz: Double, in frame: SpectrumFrame) -> Tone? {
        let count = frame.powerDB.count
        guard count > 0, frame.binWidthHz > 0 else { return nil }
        let first = max(0, Int(((hz - searchHz - frame.startHz) / frame.binWidthHz).rounded(.down)))
        let last = min(count - 1, Int(((hz + searchHz - frame.startHz) / frame.binWidthHz).rounded(.down)))
        guard first <= last else { return nil }
        var best = -1
        for bin in first...last where frame.powerDB[bin].isFinite && (best < 0 || frame.powerDB[bin] > frame.powerDB[best]) {
            best = bin
        }
        guard best >= 0 else { return nil }
        let reading = ToneLevel.read(bin: best, of: frame)
        return Tone(expectedHz: hz, hz: reading.hz, decibels: Double(reading.decibels))
    }

    /// How far to look for a tone: three bins, or 0.1 % of its frequency
    /// (a generator's or the analyzer's frequency error), whichever is wider.
    public static func searchHz(at hz: Double, binWidthHz: Double) -> Double { max(3 * binWidthHz, 1e-3 * hz) }

    // MARK: harmonics

    public struct Harmonic: Sendable, Equatable {
        /// 1 for the fundamental
        public var n: Int
        /// the strongest bin where the harmonic was looked for; below the noise, the noise's, so the
        /// harmonic is at most this
        public var tone: Tone
        /// whether the strongest bin there does not stand clear of the noise around it (see `standsClear`):
        /// the harmonic is "below noise (< tone dBc)", as a bench analyzer prints it
        public var belowNoise = false

        public init(n: Int, tone: Tone, belowNoise: Bool = false) {
            self.n = n
            self.tone = tone
            self.belowNoise = belowNoise
        }
    }

    public struct Harmonics: Sendable, Equatable {
        /// the fundamental first (n = 1), then each harmonic looked for within the frame
        public var tones: [Harmonic]
        /// total harmonic distortion: the power of the harmonics that stand clear of the noise over the
        /// fundamental's [dB]; nil when none does
        public var thdDB: Double? {
            guard let fundamental = tones.first?.tone.decibels else { return nil }
            let measured = tones.dropFirst().filter { !$0.belowNoise }
            guard !measured.isEmpty else { return nil }
            let sum = measured.reduce(0.0) { $0 + pow(10, ($1.tone.decibels - fundamental) / 10) }
            return 10 * log10(sum)
        }
        /// the same as a share of the fundamental's amplitude [%]
        public var thdPercent: Double? { thdDB.map { 100 * pow(10, $0 / 20) } }
    }

    /// The fundamental at `fundamentalHz` and harmonics 2…`count`, each the
    /// tone near n × the fundamental's found frequency.
    public static func harmonics(fundamentalHz: Double, count: Int, in frame: SpectrumFrame) -> Harmonics? {
        guard let fundamental = tone(near: fundamentalHz, searchHz: searchHz(at: fundamentalHz, binWidthHz: frame.binWidthHz),
                                     in: frame) else { return nil }
        var tones = [Harmonic(n: 1, tone: fundamental)]
        for n in 2...max(2, count) where n <= count {
            let expected = Double(n) * fundamental.hz
            let search = searchHz(at: expected, binWidthHz: frame.binWidthHz)
            if let found = tone(near: expected, searchHz: search, in: frame) {
                let clear = standsClear(found, searchHz: search, in: frame) ?? true
                tones.append(Harmonic(n: n, tone: found, belowNoise: !clear))
            }
        }
        return Harmonics(tones: tones)
    }

    /// How far a tone's peak must rise above the noise around it to be read as a tone [dB].
    public static let clearOfNoiseDB = 3.0

    /// Whether `tone` (the strongest bin within ±`searchHz` of where it was looked for) stands
    /// `clearOfNoiseDB` above the strongest bin of the noise beside it, bin level against bin level
    /// (not the tone's window-corrected reading): four windows of the same width
    /// on each side. Noise alone puts its strongest bin in the tone's window no higher than in the eight
    /// beside it in 8 of 9 cases; the margin makes noise read as a tone rarer still. A tone or spur in the
    /// windows beside makes a real harmonic read "below noise": an upper bound that stays true.
    /// Nil where the frame holds fewer than one window of finite bins beside it.
    public static func standsClear(_ tone: Tone, searchHz: Double, in frame: SpectrumFrame) -> Bool? {
        let count = frame.powerDB.count
        guard count > 0, frame.binWidthHz > 0 else { return nil }
        let bin = { (hz: Double) in Int(((hz - frame.startHz) / frame.binWidthHz).rounded(.down)) }
        let innerLow = bin(tone.expectedHz - searchHz), innerHigh = bin(tone.expectedHz + searchHz)
        let width = max(1, innerHigh - innerLow + 1)
        var strongest = -Float.infinity
        var finite = 0
        for range in [max(0, innerLow - 4 * width)..<max(0, min(count, innerLow)),
                      min(count, innerHigh + 1)..<min(count, innerHigh + 1 + 4 * width)] {
            for index in range where frame.powerDB[index].isFinite {
                finite += 1
                strongest = max(strongest, frame.powerDB[index])
            }
        }
        guard finite >= width else { return nil }
        // bins against bins: the tone's reading is corrected for the window (ToneLevel), the noise's is not
        var peak = -Float.infinity
        for index in max(0, innerLow)..<max(0, min(count, innerHigh + 1)) where frame.powerDB[index].isFinite {
            peak = max(peak, frame.powerDB[index])
        }
        return Double(peak) >= Double(strongest) + clearOfNoiseDB
    }

    // MARK: two-tone intermodulation

    public struct Intermodulation: Sendable, Equatable {
        public var lower: Tone
        public var upper: Tone
        /// 2F1 − F2 (below the lower tone) and 2F2 − F1 (above the upper)
        public var lowerProduct: Tone
        public var upperProduct: Tone
        /// each product against the tones' mean level [dBc]; the worse (higher) one
        public var lowerDBc: Double { lowerProduct.decibels - toneLevel }
        public var upperDBc: Double { upperProduct.decibels - toneLevel }
        public var worstDBc: Double { max(lowerDBc, upperDBc) }
        /// the tones' mean level (in power) [dB]
        public var toneLevel: Double {
            10 * log10((pow(10, lower.decibels / 10) + pow(10, upper.decibels / 10)) / 2)
        }
        /// output third-order intercept: the tones' level + half their distance above the worse product
        /// (third-order products rise 3 dB per dB of tone, so the lines meet there) [dB]
        public var outputInterceptDB: Double { toneLevel - worstDBc / 2 }
    }

    public static func intermodulation(f1: Double, f2: Double, in frame: SpectrumFrame) -> Intermodulation? {
        let (low, high) = (min(f1, f2), max(f1, f2))
        // products lie one spacing outside the tones: look no further than a third of it
        let spacing = high - low
        func search(_ hz: Double) -> Double { min(searchHz(at: hz, binWidthHz: frame.binWidthHz), max(spacing / 3, frame.binWidthHz)) }
        guard let lower = tone(near: low, searchHz: search(low), in: frame),
              let upper = tone(near: high, searchHz: search(high), in: frame) else { return nil }
        let lowerProductHz = 2 * lower.hz - upper.hz, upperProductHz = 2 * upper.hz - lower.hz
        guard let lowerProduct = tone(near: lowerProductHz, searchHz: search(lowerProductHz), in: frame),
              let upperProduct = tone(near: upperProductHz, searchHz: search(upperProductHz), in: frame) else { return nil }
        return Intermodulation(lower: lower, upper: upper, lowerProduct: lowerProduct, upperProduct: upperProduct)
    }

    // MARK: adjacent-channel power

    public struct AdjacentChannels: Sendable, Equatable {
        public struct Channel: Sendable, Equatable {
            /// offset of its centre from the main channel's [Hz]
            public var offsetHz: Double
            public var band: FrequencyRange
            public var decibels: Double
            public var dBc: Double
        }

        public var main: FrequencyRange
        public var mainDecibels: Double
        /// lower then upper at each offset, offsets in the order given
        public var adjacent: [Channel]
    }

    /// The main channel's power and each adjacent channel's (at ± each
    /// offset, `adjacentWidthHz` wide) against it, as a 3GPP ACLR table.
    public static func adjacentChannels(centreHz: Double, widthHz: Double, offsetsHz: [Double], adjacentWidthHz: Double,
                                        in frame: SpectrumFrame) -> AdjacentChannels? {
        guard let main = FrequencyRange(lowerHz: centreHz - widthHz / 2, upperHz: centreHz + widthHz / 2),
              let mainDecibels = BandPower.decibels(in: main, of: frame) else { return nil }
        var adjacent: [AdjacentChannels.Channel] = []
        for offset in offsetsHz {
            for signed in [-offset, offset] {
                let centre = centreHz + signed
                guard let band = FrequencyRange(lowerHz: centre - adjacentWidthHz / 2, upperHz: centre + adjacentWidthHz / 2),
                      let decibels = BandPower.decibels(in: band, of: frame) else { return nil }
                adjacent.append(.init(offsetHz: signed, band: band, decibels: decibels, dBc: decibels - mainDecibels))
            }
        }
        return AdjacentChannels(main: main, mainDecibels: mainDecibels, adjacent: adjacent)
    }

    // MARK: noise marker

    public struct NoiseDensity: Sendable, Equatable {
        public var hz: Double
        /// the level per hertz [dB/Hz in the frame's reference: dBm/Hz when calibrated]
        public var decibelsPerHz: Double
        /// bins averaged (in power)
        public var bins: Int
        /// the noise bandwidth one bin takes in [Hz]
        public var noiseBandwidthHz: Double
    }

    /// The noise density at `hz`: the mean power (linear, so free of the
    /// −2.51 dB bias of averaging logarithms of noise) of the bins within
    /// ±`halfBins` of it, divided by one bin's noise bandwidth (the frame's;
    /// its bin width where the frame does not say).
    public static func noiseDensity(at hz: Double, halfBins: Int = 5, in frame: SpectrumFrame) -> NoiseDensity? {
        let count = frame.powerDB.count
        guard count > 0, frame.binWidthHz > 0 else { return nil }
        let centre = Int(((hz - frame.startHz) / frame.binWidthHz).rounded(.down))
        guard centre >= 0, centre < count else { return nil }
        var power = 0.0, used = 0
        for bin in max(0, centre - halfBins)...min(count - 1, centre + halfBins) where frame.powerDB[bin].isFinite {
            power += pow(10, Double(frame.powerDB[bin]) / 10)
            used += 1
        }
        guard used > 0 else { return nil }
        let noiseBandwidth = frame.noiseBandwidthHz ?? frame.binWidthHz
        return NoiseDensity(hz: hz, decibelsPerHz: 10 * log10(power / Double(used) / noiseBandwidth), bins: used,
                            noiseBandwidthHz: noiseBandwidth)
    }
}
