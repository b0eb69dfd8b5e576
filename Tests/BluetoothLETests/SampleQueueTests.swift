@testable import BluetoothLE
import Testing

/// The reader's queue: each take says when the notification of its oldest sample
/// arrived (where the viewer's notification-to-screen latency starts), and a
/// reader that stops taking loses the oldest samples, counted, never memory.
@Suite struct SampleQueueTests {
    /// `count` samples numbered from `first`, as one notification that arrived at `at`
    static func notification(_ first: Int, _ count: Int) -> [Float] { (first..<(first + count)).map(Float.init) }

    static func take(_ queue: inout SampleQueue, _ count: Int) -> (values: [Float], oldest: Double?) {
        var buffer = [Float](repeating: -1, count: count)
        let (taken, oldest) = buffer.withUnsafeMutableBufferPointer { queue.take(into: $0) }
        return (Array(buffer[0..<taken]), oldest)
    }

    @Test func eachTakeCarriesItsOldestSamplesArrival() {
        var queue = SampleQueue(capacity: 1000)
        #expect(Self.take(&queue, 10).oldest == nil)
        // three notifications of 18 samples, arriving at 1, 2 and 3 s
        queue.append(Self.notification(0, 18), arrivals: [BLEArrival(delivered: 18, at: 1)])
        queue.append(Self.notification(18, 36), arrivals: [BLEArrival(delivered: 36, at: 2), BLEArrival(delivered: 54, at: 3)])
        var taken = Self.take(&queue, 10)
        #expect(taken.values == Self.notification(0, 10) && taken.oldest == 1)
        taken = Self.take(&queue, 10)            // samples 10–19: the first notification's end, the second's start
        #expect(taken.values == Self.notification(10, 10) && taken.oldest == 1)
        taken = Self.take(&queue, 20)            // 20–39
        #expect(taken.values == Self.notification(20, 20) && taken.oldest == 2)
        taken = Self.take(&queue, 100)           // 40–53, all that waits
        #expect(taken.values == Self.notification(40, 14) && taken.oldest == 3)
        #expect(queue.waiting == 0 && queue.taken == 54 && queue.dropped == 0)
    }

    @Test func beyondItsCapacityTheOldestGoAndAreCounted() {
        var queue = SampleQueue(capacity: 50)
        for index in 0..<10 {
            queue.append(Self.notification(index * 18, 18), arrivals: [BLEArrival(delivered: (index + 1) * 18, at: Double(index))])
        }
        // 180 decoded, 50 kept: the newest, samples 130–179
        #expect(queue.waiting == 50 && queue.dropped == 130)
        let taken = Self.take(&queue, 50)
        #expect(taken.values == Self.notification(130, 50))
        // sample 130 came in the eighth notification (126–143), which arrived at 7 s
        #expect(taken.oldest == 7)
        #expect(queue.taken == 180 && queue.waiting == 0)
    }
}
