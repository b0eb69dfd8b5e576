/// A fixed-capacity ring of one lead's samples: chunks of any length go in and
/// come out; when full, writing overwrites the oldest samples (counted in
/// `overwritten`), so memory never grows with run time.
public struct SampleRing: Sendable {
    private var storage: [Float]
    /// index of the oldest sample in `storage`
    private var head = 0
    public private(set) var count = 0
    /// samples lost to overwriting before they were read
    public private(set) var overwritten = 0

    public init(capacity: Int) {
        storage = Array(repeating: 0, count: max(1, capacity))
    }

    public var capacity: Int { storage.count }
    public var isEmpty: Bool { count == 0 }

    public mutating func write(_ samples: UnsafeBufferPointer<Float>) {
        let capacity = storage.count
        // only the newest `capacity` samples can survive
        let kept = samples.count > capacity ? UnsafeBufferPointer(rebasing: samples[(samples.count - capacity)...]) : samples
        // samples that never fit, and held samples the new ones overwrite
        let neverStored = samples.count - kept.count
        let evicted = max(0, kept.count - (capacity - count))
        head = (head + evicted) % capacity
        count -= evicted
        overwritten += neverStored + evicted
        storage.withUnsafeMutableBufferPointer { ring in
            var tail = (head + count) % capacity
            var source = 0
            while source < kept.count {
                let run = min(kept.count - source, capacity - tail)
                _ = UnsafeMutableBufferPointer(rebasing: ring[tail..<tail + run])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: kept[source..<source + run]))
                source += run
                tail = (tail + run) % capacity
            }
        }
        count += kept.count
    }

    public mutating func write(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { write($0) }
    }

    /// Moves up to `destination.count` of the oldest samples out; returns how many.
    @discardableResult
    public mutating func read(into destination: UnsafeMutableBufferPointer<Float>) -> Int {
        let taken = copyOldest(into: destination)
        head = (head + taken) % storage.count
        count -= taken
        return taken
    }

    /// Copies up to `destination.count` of the oldest samples without releasing them.
    public func copyOldest(into destination: UnsafeMutableBufferPointer<Float>) -> Int {
        let taken = min(destination.count, count)
        withSegments { first, second in
            let fromFirst = min(taken, first.count)
            _ = UnsafeMutableBufferPointer(rebasing: destination[0..<fromFirst])
                .update(fromContentsOf: UnsafeBufferPointer(rebasing: first[0..<fromFirst]))
            if taken > fromFirst {
                _ = UnsafeMutableBufferPointer(rebasing: destination[fromFirst..<taken])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: second[0..<(taken - fromFirst)]))
            }
        }
        return taken
    }

    /// Calls `body` with the held samples, oldest first, as at most two contiguous segments.
    public func withSegments<Result>(
        _ body: (UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) throws -> Result
    ) rethrows -> Result {
        try storage.withUnsafeBufferPointer { ring in
            let firstLength = min(count, ring.count - head)
            let first = UnsafeBufferPointer(rebasing: ring[head..<head + firstLength])
            let second = UnsafeBufferPointer(rebasing: ring[0..<(count - firstLength)])
            return try body(first, second)
        }
    }

    /// the sample `age` places before the newest (0 = newest)
    public subscript(fromNewest age: Int) -> Float {
        precondition(age >= 0 && age < count, "ring index out of range")
        return storage[(head + count - 1 - age) % storage.count]
    }

    public mutating func removeAll() {
        head = 0
        count = 0
    }
}

/// One `SampleRing` per lead, written and read a chunk at a time.
public struct ECGLeadRings: Sendable {
    public private(set) var leads: [SampleRing]
    /// sample-clock index of the oldest held sample
    public private(set) var firstSampleIndex = 0

    public init(leadCount: Int, capacity: Int) {
        leads = Array(repeating: SampleRing(capacity: capacity), count: leadCount)
    }

    public var count: Int { leads.first?.count ?? 0 }

    /// Appends the chunk's valid samples to every lead.
    public mutating func write(_ chunk: ECGChunk) {
        let before = leads.first?.overwritten ?? 0
        for lead in leads.indices where lead < chunk.leads.count {
            chunk.leads[lead].withUnsafeBufferPointer {
                leads[lead].write(UnsafeBufferPointer(rebasing: $0[0..<min(chunk.count, $0.count)]))
            }
        }
        firstSampleIndex += (leads.first?.overwritten ?? 0) - before
    }

    /// Moves up to `chunk.capacity` of the oldest samples per lead into `chunk`.
    public mutating func read(into chunk: inout ECGChunk) -> Int {
        var taken = 0
        chunk.firstSampleIndex = firstSampleIndex
        for lead in leads.indices where lead < chunk.leads.count {
            taken = chunk.leads[lead].withUnsafeMutableBufferPointer { leads[lead].read(into: $0) }
        }
        chunk.count = taken
        firstSampleIndex += taken
        return taken
    }
}
