import ECG

/// The last few seconds of every lead, kept for drawing: one fixed-capacity
/// ring per lead, addressed by the source's sample clock
/// (`ECGChunk.firstSampleIndex`). Storage is allocated at init; appending and
/// copying out never allocate.
///
/// A chunk that starts after the newest held sample leaves a gap (samples the
/// display never got, e.g. while paused): the gap is held as NaN, drawn as
/// nothing. A chunk that starts before it means the source restarted its
/// clock: the history starts again there.
public struct ECGSweepHistory: Sendable {
    public let leadCount: Int
    /// samples held per lead
    public let capacity: Int
    /// lead-major: lead `l` owns `storage[l * capacity ..< (l + 1) * capacity]`;
    /// sample-clock index `i` lives at offset `i mod capacity`
    private var storage: [Float]
    /// sample-clock index one past the newest held sample; nil before the first chunk
    public private(set) var endIndex: Int?
    /// samples held per lead (≤ capacity), ending at `endIndex`
    public private(set) var heldCount = 0

    public init(leadCount: Int, capacity: Int) {
        self.leadCount = max(0, leadCount)
        self.capacity = max(1, capacity)
        storage = [Float](repeating: .nan, count: self.leadCount * self.capacity)
    }

    /// Forgets every sample; the next chunk starts the history.
    public mutating func clear() {
        endIndex = nil
        heldCount = 0
    }

    /// Stores the chunk's `count` samples per lead; leads the chunk lacks are NaN.
    public mutating func append(_ chunk: ECGChunk) {
        let count = min(max(chunk.count, 0), chunk.capacity)
        let first = max(chunk.firstSampleIndex, 0)
        if let end = endIndex, first >= end {
            appendGap(first - end)
        } else {
            endIndex = first
            heldCount = 0
        }
        // Only the newest `capacity` samples of a long chunk can be held.
        let skipped = max(0, count - capacity)
        let start = first + skipped
        let stored = count - skipped
        guard stored > 0 else { return }
        storage.withUnsafeMutableBufferPointer { rings in
            for lead in 0..<leadCount {
                let ring = UnsafeMutableBufferPointer(rebasing: rings[(lead * capacity)..<((lead + 1) * capacity)])
                if lead < chunk.leads.count {
                    chunk.leads[lead].withUnsafeBufferPointer { source in
                        Self.write(source.baseAddress! + skipped, count: stored, at: start, into: ring)
                    }
                } else {
                    Self.fillNaN(count: stored, at: start, in: ring)
                }
            }
        }
        endIndex = start + stored
        heldCount = min(heldCount + stored, capacity)
    }

    /// The held sample at sample-clock `index` of `lead`, NaN when not held.
    public func sample(lead: Int, at index: Int) -> Float {
        guard lead >= 0, lead < leadCount, let end = endIndex, index < end, index >= end - heldCount else {
            return .nan
        }
        return storage[lead * capacity + index % capacity]
    }

    /// Copies samples `start ..< start + out.count` of `lead` into `out`, NaN
    /// where nothing is held. At most two contiguous copies.
    public func copy(lead: Int, from start: Int, into out: UnsafeMutableBufferPointer<Float>) {
        guard !out.isEmpty else { return }
        guard lead >= 0, lead < leadCount, let end = endIndex else {
            out.update(repeating: .nan)
            return
        }
        let heldStart = end - heldCount
        let stop = start + out.count
        let from = max(start, heldStart), to = min(stop, end)
        guard from < to else {
            out.update(repeating: .nan)
            return
        }
        if from > start { UnsafeMutableBufferPointer(rebasing: out[0..<(from - start)]).update(repeating: .nan) }
        if to < stop { UnsafeMutableBufferPointer(rebasing: out[(to - start)...]).update(repeating: .nan) }
        storage.withUnsafeBufferPointer { rings in
            let ring = rings.baseAddress! + lead * capacity
            var index = from
            while index < to {
                let offset = index % capacity
                let run = min(to - index, capacity - offset)
                (out.baseAddress! + (index - start)).update(from: ring + offset, count: run)
                index += run
            }
        }
    }

    // MARK: helpers

    /// Records `count` missing samples after the newest one.
    private mutating func appendGap(_ count: Int) {
        guard count > 0, let end = endIndex else { return }
        let filled = min(count, capacity)
        let start = end + count - filled
        storage.withUnsafeMutableBufferPointer { rings in
            for lead in 0..<leadCount {
                let ring = UnsafeMutableBufferPointer(rebasing: rings[(lead * capacity)..<((lead + 1) * capacity)])
                Self.fillNaN(count: filled, at: start, in: ring)
            }
        }
        endIndex = end + count
        heldCount = min(heldCount + count, capacity)
    }

    private static func write(_ source: UnsafePointer<Float>, count: Int, at index: Int,
                              into ring: UnsafeMutableBufferPointer<Float>) {
        var done = 0
        while done < count {
            let offset = (index + done) % ring.count
            let run = min(count - done, ring.count - offset)
            (ring.baseAddress! + offset).update(from: source + done, count: run)
            done += run
        }
    }

    private static func fillNaN(count: Int, at index: Int, in ring: UnsafeMutableBufferPointer<Float>) {
        var done = 0
        while done < count {
            let offset = (index + done) % ring.count
            let run = min(count - done, ring.count - offset)
            (ring.baseAddress! + offset).update(repeating: .nan, count: run)
            done += run
        }
    }
}
