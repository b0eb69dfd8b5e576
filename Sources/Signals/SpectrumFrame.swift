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

    public init(startHz: Double, binWidthHz: Double, timestamp: Double, powerDB: [Float],
                noiseBandwidthHz: Double? = nil) {
        self.startHz = startHz
        self.binWidthHz = binWidthHz
        self.timestamp = timestamp
        self.powerDB = powerDB
        self.noiseBandwidthHz = noiseBandwidthHz
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
