import Foundation
import Testing
@testable import ECG
import Signals

/// The fast ways of computing a beat's correlations give the plain loop's value to the bit: the
/// beat classifier's shifted correlations side by side in the C kernel's lanes, and a stretch of a lead read in
/// place against an average beat.
@Suite struct BeatShapeTests {
    static func noisyBeat(_ count: Int, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { index in
            let t = Double(index - count / 2) / 10
            return Float(exp(-t * t) + 0.05 * random.gaussian())
        }
    }

    @Test func shiftedCorrelationsSideBySideEqualOneAtATime() {
        // equal lengths (the classifier's case), a longer and a shorter first array, overlaps too
        // short to count, flat arrays, and ranges of odd and even length
        let cases: [(a: [Float], b: [Float], shifts: ClosedRange<Int>)] = [
            (Self.noisyBeat(61, seed: 1), Self.noisyBeat(61, seed: 2), -2...2),
            (Self.noisyBeat(151, seed: 3), Self.noisyBeat(151, seed: 4), -2...2),
            (Self.noisyBeat(70, seed: 5), Self.noisyBeat(61, seed: 6), -3...3),
            (Self.noisyBeat(50, seed: 7), Self.noisyBeat(61, seed: 8), -4...1),
            (Self.noisyBeat(4, seed: 9), Self.noisyBeat(5, seed: 10), -3...3),
            ([Float](repeating: 0.5, count: 30), Self.noisyBeat(30, seed: 11), -2...2),
            (Self.noisyBeat(30, seed: 12) + [-0.0, 0.0], Self.noisyBeat(32, seed: 13), 0...0),
            // eight shifts (every lane), thirteen (two passes), shifts past either end, a NaN
            (Self.noisyBeat(61, seed: 14), Self.noisyBeat(61, seed: 15), -4...3),
            (Self.noisyBeat(61, seed: 16), Self.noisyBeat(61, seed: 17), -6...6),
            (Self.noisyBeat(10, seed: 18), Self.noisyBeat(10, seed: 19), 6...14),
            (Self.noisyBeat(10, seed: 20), Self.noisyBeat(12, seed: 21), -14...(-6)),
            (Self.noisyBeat(61, seed: 22), Self.noisyBeat(61, seed: 23).enumerated().map { $0.offset == 40 ? .nan : $0.element }, -2...2),
        ]
        var values: [Double] = []
        for (a, b, shifts) in cases {
            BeatShape.correlations(a, b, shifts: shifts, into: &values)
            #expect(values.count == shifts.count)
            for (position, shift) in shifts.enumerated() {
                let alone = BeatShape.correlation(a, b, shift: shift)
                #expect(values[position].bitPattern == alone.bitPattern,
                        "\(a.count) against \(b.count) at shift \(shift): \(values[position]) vs \(alone)")
            }
        }
        // the cases are not all trivially zero
        BeatShape.correlations(Self.noisyBeat(61, seed: 1), Self.noisyBeat(61, seed: 2), shifts: -2...2, into: &values)
        #expect(values.allSatisfy { $0 > 0.8 })
    }

    @Test func aStretchOfTheLeadInPlaceEqualsItsCopy() {
        let lead = Self.noisyBeat(400, seed: 21)
        let average = Self.noisyBeat(61, seed: 22).map(Double.init)
        lead.withUnsafeBufferPointer { buffer in
            for start in [0, 1, 150, 339] {
                let copy = lead[start..<(start + average.count)].map(Double.init)
                let inPlace = BeatShape.correlation(buffer, from: start, average)
                #expect(inPlace.bitPattern == BeatShape.correlation(copy, average).bitPattern, "from \(start)")
            }
        }
    }
}
