/// Plays an in-memory record (WFDB, CSV) as an `ECGSource`, as fast as it is
/// read; wrap it in `PacedSource` to play at the recorded rate.
public final class RecordSource: ECGSource {
    public let record: ECGRecord
    /// index of the next sample to deliver
    public private(set) var position = 0

    public init(record: ECGRecord) {
        self.record = record
    }

    public var leadNames: [String] { record.leadNames }
    public var sampleRate: Double { record.sampleRate }

    public func read(into chunk: inout ECGChunk) throws -> ECGReadResult {
        let count = min(chunk.capacity, record.frameCount - position)
        guard count > 0 else { return .end }
        for lead in 0..<min(chunk.leads.count, record.samples.count) {
            chunk.leads[lead].withUnsafeMutableBufferPointer { destination in
                record.samples[lead].withUnsafeBufferPointer { source in
                    _ = UnsafeMutableBufferPointer(rebasing: destination[0..<count])
                        .update(fromContentsOf: UnsafeBufferPointer(rebasing: source[position..<position + count]))
                }
            }
        }
        chunk.count = count
        chunk.firstSampleIndex = position
        position += count
        return .samples(count)
    }

    /// Moves the play position to `sample` (clamped to the record).
    public func seek(to sample: Int) {
        position = min(max(0, sample), record.frameCount)
    }
}
