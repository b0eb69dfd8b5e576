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

    /// The same record with lead `index` moved to the front (the strip layout shows the first leads).
    public func movingLeadFirst(_ index: Int) -> ECGRecord {
        guard leadNames.indices.contains(index), samples.indices.contains(index) else { return self }
        var moved = self
        moved.leadNames.insert(moved.leadNames.remove(at: index), at: 0)
        moved.samples.insert(moved.samples.remove(at: index), at: 0)
        return moved
    }
}
