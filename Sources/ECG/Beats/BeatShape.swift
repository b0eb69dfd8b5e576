import CECGKernels
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
    /// `shifts.count` if it is not already), with the same bits: the sums of up to five shifts at a
    /// time in one pass, four in the lanes of a vector and one beside them, in the C kernel
    /// `tscope_shifted_correlation_sums` (CECGKernels: four-double AVX registers where the processor
    /// has them). Each lane adds exactly the terms the
    /// scalar loop adds, in its order (`BeatShapeTests` holds them to it bit for bit). The beat
    /// classifier compares every beat with its template at five shifts: one after the other, each
    /// shift's sums were a chain of dependent additions, and those correlations were a tenth of
    /// `ecg classify`'s time; side by side the chains overlap.
    static func correlations(_ a: [Float], _ b: [Float], shifts: ClosedRange<Int>, into output: inout [Double]) {
        if output.count != shifts.count { output = [Double](repeating: 0, count: shifts.count) }
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 30) { sums in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    var first = shifts.lowerBound, slot = 0
                    while first <= shifts.upperBound {
                        let count = min(5, shifts.upperBound - first + 1)
                        tscope_shifted_correlation_sums(a.baseAddress, a.count, b.baseAddress, b.count, first, count,
                                                        sums.baseAddress)
                        for lane in 0..<count {
                            output[slot + lane] = pearson(sumA: sums[lane], sumB: sums[5 + lane], sumAA: sums[10 + lane],
                                                          sumBB: sums[15 + lane], sumAB: sums[20 + lane],
                                                          count: sums[25 + lane])
                        }
                        first += count
                        slot += count
                    }
                }
            }
        }
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
