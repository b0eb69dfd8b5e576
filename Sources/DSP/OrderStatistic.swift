/// Order statistics without sorting (the ECG's medians, occupancy's noise floor).
public enum OrderStatistic {
    /// The value that sorting `values` would put at `rank`, found by
    /// quickselect (Hoare's FIND) in linear expected time; `values` is reordered.
    /// The same value as `values.sorted()[rank]` without sorting: the median
    /// of a whole lead, of each second's differences and of each beat's window
    /// took a sixth of `ecg classify`'s time when they were sorted. Allocates nothing.
    public static func select(_ values: inout [Float], rank: Int) -> Float {
        // Through one buffer pointer: indexing the inout array checked bounds and uniqueness on
        // every read and swap, which was half of this function's time in `ecg classify`.
        return values.withUnsafeMutableBufferPointer { select(in: $0, rank: rank) }
    }

    /// `select(_:rank:)` on a buffer: reorders it and returns the value of rank `rank` in it.
    public static func select(in values: UnsafeMutableBufferPointer<Float>, rank: Int) -> Float {
        precondition(values.indices.contains(rank), "OrderStatistic.select: rank \(rank) of \(values.count) values")
        var low = 0, high = values.count - 1
        while low < high {
            // the median of three as pivot keeps sorted and constant runs linear
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
