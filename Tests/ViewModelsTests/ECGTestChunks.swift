import ECG

/// A chunk of `count` samples per lead starting at sample-clock `first`,
/// lead `l` sample `i` = `value(l, first + i)`.
func ecgChunk(leads: Int, first: Int, count: Int, capacity: Int? = nil,
              value: (Int, Int) -> Float = { lead, index in Float(index) + Float(lead) * 0.5 }) -> ECGChunk {
    var chunk = ECGChunk(leadCount: leads, capacity: capacity ?? max(count, 1))
    chunk.firstSampleIndex = first
    chunk.count = count
    for lead in 0..<leads {
        for i in 0..<count { chunk.leads[lead][i] = value(lead, first + i) }
    }
    return chunk
}
