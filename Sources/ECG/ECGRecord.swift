/// A whole multi-lead recording in memory, in physical units.
public struct ECGRecord: Sendable {
    public var name: String
    /// samples per second per lead [Hz]
    public var sampleRate: Double
    public var leadNames: [String]
    /// one array per lead [mV]; NaN where the record marks a sample missing
    public var samples: [[Float]]

    public init(name: String, sampleRate: Double, leadNames: [String], samples: [[Float]]) {
        self.name = name
        self.sampleRate = sampleRate
        self.leadNames = leadNames
        self.samples = samples
    }

    /// samples per lead
    public var frameCount: Int { samples.first?.count ?? 0 }
    /// length [s]
    public var duration: Double { Double(frameCount) / sampleRate }
}
