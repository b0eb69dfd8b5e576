import Testing
@testable import ECG
import Signals

@Suite struct SampleRingTests {
    @Test func chunksOfAnyLengthBehaveLikeABoundedQueue() {
        var random = SeededRandom(seed: 5)
        var ring = SampleRing(capacity: 50)
        var reference: [Float] = []
        var lost = 0
        var next: Float = 0
        for _ in 0..<2000 {
            if random.next() % 2 == 0 {
                let length = Int(random.next() % 80)
                let chunk = (0..<length).map { _ in next += 1; return next }
                ring.write(chunk)
                reference += chunk
                if reference.count > 50 {
                    lost += reference.count - 50
                    reference.removeFirst(reference.count - 50)
                }
            } else {
                var out = [Float](repeating: -1, count: Int(random.next() % 40))
                let taken = out.withUnsafeMutableBufferPointer { ring.read(into: $0) }
                #expect(Array(out.prefix(taken)) == Array(reference.prefix(taken)))
                reference.removeFirst(taken)
            }
            #expect(ring.count == reference.count)
            #expect(ring.overwritten == lost)
        }
        let held = ring.withSegments { Array($0) + Array($1) }
        #expect(held == reference)
        if let newest = reference.last { #expect(ring[fromNewest: 0] == newest) }
    }

    @Test func leadRingsMoveChunksAndKeepTheSampleClock() {
        var rings = ECGLeadRings(leadCount: 2, capacity: 8)
        var chunk = ECGChunk(leadCount: 2, capacity: 6)
        for start in stride(from: 0, to: 12, by: 6) {
            for index in 0..<6 {
                chunk.leads[0][index] = Float(start + index)
                chunk.leads[1][index] = -Float(start + index)
            }
            chunk.count = 6
            rings.write(chunk)
        }
        // 12 written into 8: the first four were overwritten
        #expect(rings.firstSampleIndex == 4)
        var out = ECGChunk(leadCount: 2, capacity: 5)
        #expect(rings.read(into: &out) == 5)
        #expect(out.firstSampleIndex == 4)
        #expect(out.leads[0] == [4, 5, 6, 7, 8])
        #expect(out.leads[1] == [-4, -5, -6, -7, -8])
        #expect(rings.count == 3)
    }
}
