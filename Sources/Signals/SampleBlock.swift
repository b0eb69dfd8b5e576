/// A block of raw interleaved 8-bit signed I/Q samples captured at one tuning.
public struct SampleBlock: Sendable, Equatable {
    /// frequency the device reported for this block [Hz] (HackRF: the sweep
    /// frequency; the radio is tuned `tuningOffsetHz` above it)
    public var frequencyHz: UInt64
    /// sample rate [samples/s]
    public var sampleRate: Double
    /// time of arrival [s since the Unix epoch, UTC]
    public var timestamp: Double
    /// interleaved I, Q, I, Q … as signed 8-bit integers
    public var iq: [Int8]

    public init(frequencyHz: UInt64, sampleRate: Double, timestamp: Double, iq: [Int8]) {
        self.frequencyHz = frequencyHz
        self.sampleRate = sampleRate
        self.timestamp = timestamp
        self.iq = iq
    }

    /// number of complex samples
    public var sampleCount: Int { iq.count / 2 }
}
