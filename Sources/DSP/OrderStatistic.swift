/// Order statistics without sorting (the ECG's medians, occupancy's noise floor).
public enum OrderStatistic {
    /// The value that sorting `values` would put at `rank`, found in linear expected time without
    /// sorting; what `values` holds afterwards is unspecified (its values, partly moved and partly
    /// overwritten). The same value as `values.sorted()[rank]`: the median of a whole lead, of each
    /// second's differences and of each beat's window took a sixth of `ecg classify`'s time when
    /// they were sorted. Its one scratch copy is a temporary allocation (on the stack when small).
    public static func select(_ values: inout [Float], rank: Int) -> Float {
        // Through one buffer pointer: indexing the inout array checked bounds and uniqueness on
        // every read and swap, which was half of this function's time in `ecg classify`.
        return values.withUnsafeMutableBufferPointer { select(in: $0, rank: rank) }
    }

    /// `select(_:rank:)` on a buffer: returns the value of rank `rank` in it, leaving its contents unspecified.
    public static func select(in values: UnsafeMutableBufferPointer<Float>, rank: Int) -> Float {
        precondition(values.indices.contains(rank), "OrderStatistic.select: rank \(rank) of \(values.count) values")
        // Values that compare equal have the same bits, but for the two zeros (−0 == +0) and NaN
        // (unordered). With either present, which of several "equal" values comes out depends on the
        // algorithm, so such input keeps the one it always had; other input may take any exact one.
        var unusual: UInt32 = 0
        for value in values {
            let bits = value.bitPattern
            unusual |= UInt32(unsafeBitCast(bits == 0x8000_0000, to: UInt8.self))
                | UInt32(unsafeBitCast(bits & 0x7FFF_FFFF > 0x7F80_0000, to: UInt8.self))
        }
        if unusual != 0 { return hoareSelect(in: values, rank: rank) }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: values.count) { spare in
            partitionSelect(in: values, spare: spare, rank: rank)
        }
    }

    /// Quickselect whose rounds have no data-dependent branch: a round counts the values below and
    /// above a median-of-three pivot, then copies only the side holding `rank` into the other buffer
    /// (each value is written at the next free place, which moves on only for a value of that side).
    /// Values equal to the pivot are all the pivot's bits, so a rank among them is answered at once.
    /// The comparisons of Hoare's partition were mispredicted about every other value on an ECG's
    /// noise. The two buffers swap roles each round. Needs no −0 and no NaN (`select` checks).
    private static func partitionSelect(in values: UnsafeMutableBufferPointer<Float>,
                                        spare: UnsafeMutableBufferPointer<Float>, rank: Int) -> Float {
        var source = values.baseAddress!, target = spare.baseAddress!
        var count = values.count, rank = rank // the values still holding `rank`, source[0..<count]
        while count > 1 {
            // the median of three as pivot keeps sorted and constant runs linear
            let first = source[0], middle = source[count / 2], last = source[count - 1]
            let pivot = max(min(first, middle), min(max(first, middle), last))
            var lessCount = 0, greaterCount = 0
            for index in 0..<count {
                let value = source[index]
                lessCount &+= Int(unsafeBitCast(value < pivot, to: UInt8.self))
                greaterCount &+= Int(unsafeBitCast(value > pivot, to: UInt8.self))
            }
            // the side's values, in order, to the front of `target`: two loops, not one testing the
            // side per value (measured slower: 4.3 → 5.8 % of `ecg classify`)
            var kept = 0
            if rank < lessCount {
                for index in 0..<count {
                    let value = source[index]
                    target[kept] = value
                    kept &+= Int(unsafeBitCast(value < pivot, to: UInt8.self))
                }
            } else if rank >= count - greaterCount {
                for index in 0..<count {
                    let value = source[index]
                    target[kept] = value
                    kept &+= Int(unsafeBitCast(value > pivot, to: UInt8.self))
                }
                rank -= count - greaterCount
            } else {
                return pivot
            }
            count = kept
            swap(&source, &target)
        }
        return source[0]
    }

    /// Hoare's FIND with a median-of-three pivot: the algorithm `select` always used, kept for input
    /// holding −0 or NaN so that such input gives what it always gave.
    private static func hoareSelect(in values: UnsafeMutableBufferPointer<Float>, rank: Int) -> Float {
        var low = 0, high = values.count - 1
        while low < high {
            let middle = low + (high - low) / 2
            let pivot = max(min(values[low], values[middle]), min(max(values[low], values[middle]), values[high]))
            var left = low, right = high
            while left <= right {
                while values[left] < pivot { left += 1 }
                while values[right] > pivot { right -= 1 }
                if left <= right {
                    values.swapAt(left, right)
                    left += 1
                    right -= 1
                }
            }
            if rank <= right { high = right } else if rank >= left { low = left } else { return values[rank] }
        }
        return values[rank]
    }
}
