/// One power spectrum across a contiguous band: `powerDB[i]` is the power of the
/// bin whose lower edge is `startHz + i * binWidthHz`.
public struct SpectrumFrame: Sendable, Equatable {
    /// lower edge of bin 0 [Hz]
    public var startHz: Double
    /// width of one bin [Hz]
    public var binWidthHz: Double
    /// time the frame was completed [s since the Unix epoch, UTC]
    public var timestamp: Double
    /// power per bin [dB]; NaN where no data arrived for the bin
    public var powerDB: [Float]
    /// The bandwidth over which one bin's level takes in a flat (white)
    /// spectrum, in the levels' own scale: noise of density N0 reads
    /// N0 × this in every bin [Hz]. A swept analyzer's point sees through a
    /// resolution filter wider than its step (tinySA, RF Explorer); an FFT
    /// bin's is its width times the window's mean square. Channel power
    /// is Σ Pᵢ × binWidthHz / noiseBandwidthHz (`BandPower`). nil: the bins
    /// tile the band exactly (stored captures, which do not record it).
    public var noiseBandwidthHz: Double?
    /// The FFT window the bins were made with, where they came from an FFT
    /// (HackRF, RTL-SDR, SoapySDR): a marker reads a tone's level from it
    /// (`ToneLevel`). nil: a device's own resolution filter made the points
    /// (tinySA, RF Explorer), whose peaks already read a tone's level, or the
    /// source did not say (stored captures).
    public var windowing: FFTWindowing?
    /// The same bins by every detector over the same dwells, where the
    /// source was asked to keep them all (a sensor whose viewers ask for
    /// different detectors); `powerDB` is then one of them. nil otherwise.
    public var everyDetector: DetectorLevels?

    public init(startHz: Double, binWidthHz: Double, timestamp: Double, powerDB: [Float],
                noiseBandwidthHz: Double? = nil, windowing: FFTWindowing? = nil,
                everyDetector: DetectorLevels? = nil) {
        self.startHz = startHz
        self.binWidthHz = binWidthHz
        self.timestamp = timestamp
        self.powerDB = powerDB
        self.noiseBandwidthHz = noiseBandwidthHz
        self.windowing = windowing
        self.everyDetector = everyDetector
    }

    /// upper edge of the last bin [Hz]
    public var stopHz: Double { startHz + Double(powerDB.count) * binWidthHz }

    /// the band the bins cover
    public var range: FrequencyRange? { FrequencyRange(lowerHz: startHz, upperHz: stopHz) }

    /// centre frequency of bin `index` [Hz]
    public func binCenterHz(_ index: Int) -> Double {
        startHz + (Double(index) + 0.5) * binWidthHz
    }
}

/// One frame's bins as each detector made them from the same samples [dB]:
/// the largest segment power (peak), the linear mean over the dwell
/// (average, which is also rms in power), the last segment alone (sample)
/// and the linear mean of the envelope voltage (the CISPR average, as the
/// power (mean |X|)²). Each holds as many values as the frame's `powerDB`.
public struct DetectorLevels: Sendable, Equatable {
    public var peak: [Float]
    public var average: [Float]
    public var sample: [Float]
    public var cisprAverage: [Float]

    public init(peak: [Float], average: [Float], sample: [Float], cisprAverage: [Float]) {
        self.peak = peak
        self.average = average
        self.sample = sample
        self.cisprAverage = cisprAverage
    }

    /// every plane, for a change made to each alike (a calibration's offsets)
    public mutating func forEachPlane(_ body: (inout [Float]) -> Void) {
        body(&peak)
        body(&average)
        body(&sample)
        body(&cisprAverage)
    }

    /// true when every plane holds `count` levels
    public func allHold(_ count: Int) -> Bool {
        peak.count == count && average.count == count && sample.count == count && cisprAverage.count == count
    }
}
