/// Why a band cannot be hopped.
public enum RTLSDRPlanError: Error, Equatable, Sendable, CustomStringConvertible {
    case badRange(lowerHz: Int, upperHz: Int)
    case badBinWidth(Int)
    case badCrop(Double)
    case tooWide(hops: Int)
    case unsupportedRate(Int)

    public var description: String {
        switch self {
        case .badRange(let low, let high):
            return "frequency range \(low)–\(high) Hz: need 0 ≤ low < high"
        case .badBinWidth(let bin):
            return "bin size \(bin) Hz: need at least 1 Hz"
        case .badCrop(let crop):
            return "crop \(crop) outside 0…1 (e.g. -c 20% or -c 0.2)"
        case .tooWide(let hops):
            return "bandwidth too wide: \(hops) hops, at most \(RTLSDRHopPlan.maximumHops)"
        case .unsupportedRate(let rate):
            return "bins of \(rate) Hz need a sample rate the RTL2832U cannot run (900001–3200000 S/s)"
        }
    }
}

/// How rtl_power covers `lower:upper:bin` (osmocom/rtl-sdr src/rtl_power.c,
/// `frequency_range`, release 0.6.0): the fewest evenly spaced hops whose
/// cropped width fits 2.8 MS/s; narrow spans use one hop and boxcar
/// downsampling; a power-of-two FFT whose bins are no wider than asked;
/// bins ≥ 1 MHz are "giant": no FFT, one power value per hop.
public struct RTLSDRHopPlan: Sendable, Equatable {
    /// rtl_power's MAXIMUM_RATE / MINIMUM_RATE [S/s]
    public static let maximumRate = 2_800_000
    public static let minimumRate = 1_000_000
    /// rtl_power's MAX_TUNES
    public static let maximumHops = 3000
    /// rtl_power's DEFAULT_BUF_LENGTH: bytes read per hop at least
    public static let defaultBufferBytes = 16_384

    public let lowerHz: Int
    public let upperHz: Int
    /// hops
    public let hopCount: Int
    /// spacing of hop centres ("bw_seen") [Hz]
    public let hopSpacingHz: Int
    /// dongle sample rate ("bw_used") [S/s]
    public let sampleRateHz: Int
    /// FFT size (1 for giant bins)
    public let fftSize: Int
    /// samples boxcar-summed into one
    public let downsample: Int
    /// fraction of each hop's bins dropped, half at each edge
    public let crop: Double
    /// u8 bytes read per hop and pass
    public let bufferBytes: Int

    public init(lowerHz: Int, upperHz: Int, maxBinHz: Int, crop: Double) throws(RTLSDRPlanError) {
        guard lowerHz >= 0, upperHz > lowerHz else { throw .badRange(lowerHz: lowerHz, upperHz: upperHz) }
        guard maxBinHz >= 1 else { throw .badBinWidth(maxBinHz) }
        guard crop >= 0, crop <= 1, crop.isFinite else { throw .badCrop(crop) }
        var crop = crop
        var hops = 0
        var seen = 0
        var used = 0
        // evenly sized hops, as close to the maximum rate as possible
        for count in 1..<1500 {
            seen = (upperHz - lowerHz) / count
            used = crop < 1 ? Int(Double(seen) / (1 - crop)) : Int.max
            if used > Self.maximumRate { continue }
            hops = count
            break
        }
        guard hops > 0 else { throw .tooWide(hops: 1500) }
        var downsample = 1
        if used < Self.minimumRate {
            // one hop; the dongle runs near the maximum rate and sums samples
            hops = 1
            downsample = Self.maximumRate / max(used, 1)
            used *= downsample
        }
        var exponent = 1
        for e in 1...21 {
            exponent = e
            if Double(used) / Double((1 << e) * downsample) <= Double(maxBinHz) { break }
        }
        if maxBinHz >= Self.minimumRate {
            seen = maxBinHz
            used = maxBinHz
            hops = (upperHz - lowerHz) / seen
            exponent = 0
            crop = 0
            downsample = 1
        }
        guard hops >= 1 else { throw .badRange(lowerHz: lowerHz, upperHz: upperHz) }
        guard hops <= Self.maximumHops else { throw .tooWide(hops: hops) }
        guard RTLSDRProtocol.isSupportedSampleRate(UInt32(clamping: used)) else { throw .unsupportedRate(used) }
        self.lowerHz = lowerHz
        self.upperHz = upperHz
        hopCount = hops
        hopSpacingHz = seen
        sampleRateHz = used
        fftSize = 1 << exponent
        self.downsample = downsample
        self.crop = crop
        bufferBytes = max(2 * (1 << exponent) * downsample, Self.defaultBufferBytes)
    }

    /// centre of hop `index` [Hz]
    public func hopCenterHz(_ index: Int) -> Int { lowerHz + index * hopSpacingHz + hopSpacingHz / 2 }

    /// width of one bin [Hz] (rtl_power prints it `%.2f` as "Hz step")
    public var binWidthHz: Double { Double(sampleRateHz) / Double(fftSize * downsample) }

    /// first and last kept bin of a hop, in shifted order (bin 0 = lowest frequency)
    public var keptBins: ClosedRange<Int> {
        let edge = Int(Double(fftSize) * crop * 0.5)
        return edge...(fftSize - 1 - edge)
    }

    /// half the width rtl_power prints for a hop: low = centre − this, high = centre + this [Hz]
    public var printedHalfWidthHz: Int {
        let bins = Int(Double(fftSize) * (1 - crop))
        return Int(Double(sampleRateHz) * Double(bins) / Double(fftSize * 2 * downsample))
    }

    /// centre of kept bin `bin` (shifted order) of hop `index` [Hz]: after the
    /// FFT shift bin 0 is centred on centre − rate/2 (rtl_power's "Hz low")
    public func binCenterHz(hop index: Int, bin: Int) -> Double {
        fftSize == 1 ? Double(hopCenterHz(index)) - Double(sampleRateHz) / 2
                     : Double(hopCenterHz(index)) - Double(sampleRateHz) / Double(2 * downsample)
                       + Double(bin) * binWidthHz
    }
}
