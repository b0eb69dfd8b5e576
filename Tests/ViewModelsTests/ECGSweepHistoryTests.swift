import ECG
import Signals
import Testing
@testable import ViewModels

@Suite struct ECGSweepHistoryTests {
    private func copied(_ history: ECGSweepHistory, lead: Int, from start: Int, count: Int) -> [Float] {
        var out = [Float](repeating: 12345, count: count)
        out.withUnsafeMutableBufferPointer { history.copy(lead: lead, from: start, into: $0) }
        return out
    }

    /// NaN-aware equality: both NaN, or equal.
    private func same(_ a: [Float], _ b: [Float]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.isNaN && $1.isNaN || $0 == $1 }
    }

    @Test func wrapsAroundAndCopiesWhatIsHeld() {
        var history = ECGSweepHistory(leadCount: 2, capacity: 10)
        history.append(ecgChunk(leads: 2, first: 0, count: 7))
        history.append(ecgChunk(leads: 2, first: 7, count: 6))
        #expect(history.endIndex == 13)
        #expect(history.heldCount == 10)
        let expected: [Float] = [.nan, .nan, .nan] + (3..<13).map { Float($0) + 0.5 } + [.nan, .nan]
        #expect(same(copied(history, lead: 1, from: 0, count: 15), expected))
        #expect(history.sample(lead: 0, at: 12) == 12)
        #expect(history.sample(lead: 0, at: 2).isNaN)
        #expect(history.sample(lead: 2, at: 12).isNaN)
    }

    @Test func aLaterChunkLeavesAGapAndAnEarlierOneRestarts() {
        var history = ECGSweepHistory(leadCount: 1, capacity: 20)
        history.append(ecgChunk(leads: 1, first: 0, count: 5))
        history.append(ecgChunk(leads: 1, first: 8, count: 2))
        #expect(same(copied(history, lead: 0, from: 3, count: 7), [3, 4, .nan, .nan, .nan, 8, 9]))
        history.append(ecgChunk(leads: 1, first: 2, count: 3))
        #expect(history.endIndex == 5)
        #expect(history.heldCount == 3)
        #expect(same(copied(history, lead: 0, from: 0, count: 6), [.nan, .nan, 2, 3, 4, .nan]))
    }

    @Test func aChunkLongerThanTheRingKeepsItsNewestSamples() {
        var history = ECGSweepHistory(leadCount: 1, capacity: 8)
        history.append(ecgChunk(leads: 1, first: 100, count: 30))
        #expect(history.endIndex == 130)
        #expect(same(copied(history, lead: 0, from: 121, count: 9), [.nan] + (122..<130).map { Float($0) }))
    }

    @Test func leadsTheChunkLacksAreNaN() {
        var history = ECGSweepHistory(leadCount: 3, capacity: 8)
        history.append(ecgChunk(leads: 1, first: 0, count: 4))
        #expect(history.sample(lead: 0, at: 3) == 3)
        #expect(history.sample(lead: 2, at: 3).isNaN)
    }

    /// Random chunk lengths, gaps and reads against a plain dictionary of every sample.
    @Test func matchesAPlainReferenceUnderRandomAppends() {
        var random = SeededRandom(seed: 42)
        let capacity = 37
        var history = ECGSweepHistory(leadCount: 2, capacity: capacity)
        var reference: [Int: Float] = [:]
        var next = 0
        for _ in 0..<400 {
            if random.unit() < 0.1 { next += Int(random.unit() * 50) } // a gap
            let count = Int(random.unit() * 60)
            let chunk = ecgChunk(leads: 2, first: next, count: count, capacity: 64) { _, i in Float(i % 1000) }
            history.append(chunk)
            for i in next..<(next + count) { reference[i] = Float(i % 1000) }
            next += count
            let start = next - capacity - 5 + Int(random.unit() * 10)
            let length = Int(random.unit() * Double(capacity + 10))
            let expected = (start..<(start + length)).map { i -> Float in
                i >= next - capacity && i < next ? reference[i] ?? .nan : .nan
            }
            #expect(same(copied(history, lead: 1, from: start, count: length), expected), "at \(next)")
        }
    }
}
