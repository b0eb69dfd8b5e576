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
        guard count > 2 else { return 0 }
        let covariance = sumAB - sumA * sumB / count
        let varianceA = sumAA - sumA * sumA / count, varianceB = sumBB - sumB * sumB / count
        guard varianceA > 0, varianceB > 0 else { return 0 }
        return covariance / (varianceA * varianceB).squareRoot()
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
