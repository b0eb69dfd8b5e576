/// Shape measures of a beat shared by the beat classifier (each beat against
/// the template) and the recording features (each beat against the average).
/// Specialised for Float and Double: the callers are in other files, and a
/// module built without whole-module optimisation would otherwise run the
/// generic code (a fifth of `ecg classify`'s time in a profile).
enum BeatShape {
    /// Pearson correlation of `a` shifted by `shift` samples against `b`, over
    /// their overlap; 0 when either is flat or the overlap has fewer than 3 samples.
    @_specialize(where Value == Float)
    @_specialize(where Value == Double)
    static func correlation<Value: BinaryFloatingPoint>(_ a: [Value], _ b: [Value], shift: Int = 0) -> Double {
        var sumA = 0.0, sumB = 0.0, sumAA = 0.0, sumBB = 0.0, sumAB = 0.0
        var count = 0.0
        for index in max(0, -shift)..<max(max(0, -shift), min(b.count, a.count - shift)) {
            let x = Double(a[index + shift]), y = Double(b[index])
            sumA += x; sumB += y; sumAA += x * x; sumBB += y * y; sumAB += x * y
            count += 1
        }
        return pearson(sumA: sumA, sumB: sumB, sumAA: sumAA, sumBB: sumBB, sumAB: sumAB, count: count)
    }

    /// The correlation from its sums (`correlation`'s last step, shared so that every way of
    /// summing ends with the same operations): 0 for fewer than 3 terms or a flat side.
    @inline(__always)
    static func pearson(sumA: Double, sumB: Double, sumAA: Double, sumBB: Double, sumAB: Double, count: Double) -> Double {
        guard count > 2 else { return 0 }
        let covariance = sumAB - sumA * sumB / count
        let varianceA = sumAA - sumA * sumA / count, varianceB = sumBB - sumB * sumB / count
        guard varianceA > 0, varianceB > 0 else { return 0 }
        return covariance / (varianceA * varianceB).squareRoot()
    }

    /// `correlation(Array(a[start..<(start + b.count)]).map(Double.init), b)` without the copy:
    /// a stretch of a lead against an average beat, term for term the same sums.
    static func correlation(_ a: UnsafeBufferPointer<Float>, from start: Int, _ b: [Double]) -> Double {
        var sumA = 0.0, sumB = 0.0, sumAA = 0.0, sumBB = 0.0, sumAB = 0.0
        var count = 0.0
        b.withUnsafeBufferPointer { b in
            for index in b.indices {
                let x = Double(a[start + index]), y = b[index]
                sumA += x; sumB += y; sumAA += x * x; sumBB += y * y; sumAB += x * y
                count += 1
            }
        }
        return pearson(sumA: sumA, sumB: sumB, sumAA: sumAA, sumBB: sumBB, sumAB: sumAB, count: count)
    }

    /// `correlation(a, b, shift:)` for every shift of `shifts`, in order, into `output` (resized to
    /// `shifts.count` if it is not already), with the same bits: two neighbouring shifts at a time in
    /// the two lanes of SIMD2 sums. Each lane adds exactly the terms the scalar loop adds, in its
    /// order; where a lane's shift has no overlap at an index it adds +0, which leaves a sum started
    /// at +0 as it was (such a sum is never −0). The beat classifier compares every beat with its
    /// template at five shifts, and those correlations were a tenth of `ecg classify`'s time.
    static func correlations(_ a: [Float], _ b: [Float], shifts: ClosedRange<Int>, into output: inout [Double]) {
        if output.count != shifts.count { output = [Double](repeating: 0, count: shifts.count) }
        var shift = shifts.lowerBound, slot = 0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                while shift < shifts.upperBound {
                    let pair = correlationPair(a, b, shift: shift)
                    output[slot] = pair[0]
                    output[slot + 1] = pair[1]
                    shift += 2
                    slot += 2
                }
            }
        }
        // an odd one out as a pair too (its neighbour's lane thrown away): cheaper than alone
        if shift == shifts.upperBound {
            output[slot] = a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in correlationPair(a, b, shift: shift)[0] } }
        }
    }

    /// `correlation(a, b, shift:)` at `shift` and `shift + 1`, in the two lanes.
    private static func correlationPair(_ a: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<Float>,
                                        shift: Int) -> SIMD2<Double> {
        // each shift's overlap, as `correlation` takes it
        func overlap(_ shift: Int) -> Range<Int> {
            let low = max(0, -shift)
            return low..<max(low, min(b.count, a.count - shift))
        }
        let first = overlap(shift), second = overlap(shift + 1)
        var sumA = SIMD2<Double>(), sumB = SIMD2<Double>(), sumAA = SIMD2<Double>(), sumBB = SIMD2<Double>()
        var sumAB = SIMD2<Double>(), count = SIMD2<Double>()
        @inline(__always) func add(_ x: SIMD2<Double>, _ y: SIMD2<Double>, _ counted: SIMD2<Double>) {
            sumA += x; sumB += y; sumAA += x * x; sumBB += y * y; sumAB += x * y
            count += counted
        }
        /// an index where one lane (or neither) has a term
        @inline(__always) func addEdge(_ index: Int) {
            let inFirst = first.contains(index), inSecond = second.contains(index)
            guard inFirst || inSecond else { return }
            let y = Double(b[index])
            add(SIMD2(inFirst ? Double(a[index + shift]) : 0, inSecond ? Double(a[index + shift + 1]) : 0),
                SIMD2(inFirst ? y : 0, inSecond ? y : 0), SIMD2(inFirst ? 1 : 0, inSecond ? 1 : 0))
        }
        let start = min(first.lowerBound, second.lowerBound), end = max(first.upperBound, second.upperBound)
        let bothStart = max(first.lowerBound, second.lowerBound)
        let bothEnd = max(bothStart, min(first.upperBound, second.upperBound))
        for index in start..<bothStart { addEdge(index) }
        let one = SIMD2<Double>(repeating: 1)
        for index in bothStart..<bothEnd {
            add(SIMD2(Double(a[index + shift]), Double(a[index + shift + 1])), SIMD2(repeating: Double(b[index])), one)
        }
        for index in bothEnd..<max(bothEnd, end) { addEdge(index) }
        // as `correlation` ends, lane by lane
        return SIMD2(pearson(sumA: sumA[0], sumB: sumB[0], sumAA: sumAA[0], sumBB: sumBB[0], sumAB: sumAB[0], count: count[0]),
                     pearson(sumA: sumA[1], sumB: sumB[1], sumAA: sumAA[1], sumBB: sumBB[1], sumAB: sumAB[1], count: count[1]))
    }

    /// The span of `values[from...to]` holding the central 80 % of the slope
    /// energy (the sum of squared first differences): the first index where
    /// it reaches 10 % and the one where it reaches 90 %. `from` ≥ 1.
    @_specialize(where Value == Float)
    @_specialize(where Value == Double)
    static func slopeEnergySpan<Value: BinaryFloatingPoint>(_ values: [Value], from: Int, to: Int) -> (first: Int, last: Int) {
        var total = 0.0
        for index in from...to {
            let slope = Double(values[index] - values[index - 1])
            total += slope * slope
        }
        var running = 0.0, first = from, last = to, foundFirst = false
        for index in from...to {
            let slope = Double(values[index] - values[index - 1])
            running += slope * slope
            if !foundFirst && running >= 0.1 * total { first = index; foundFirst = true }
            if running >= 0.9 * total { last = index; break }
        }
        return (first, last)
    }

    /// The slope energy of `values[from..<to]` (squared first differences; `from` ≥ 1).
    @_specialize(where Value == Float)
    @_specialize(where Value == Double)
    static func slopeEnergy<Value: BinaryFloatingPoint>(_ values: [Value], from: Int, to: Int) -> Double {
        var total = 0.0
        for index in from..<max(from, to) {
            let slope = Double(values[index] - values[index - 1])
            total += slope * slope
        }
        return total
    }
}
