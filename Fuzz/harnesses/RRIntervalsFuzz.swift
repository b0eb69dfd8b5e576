import ECG

/// RR-interval lists as straps and HRV apps export them (`--rr FILE`: one a line, tables with a header,
/// Polar .hrm, ann2rr's start-interval-end lines): beats ascending on a positive clock.
func fuzzRRIntervals(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let list = try? BeatListFile.parseIntervals(text, file: "fuzz.txt") {
        precondition(list.sampleRate > 0 && list.sampleRate.isFinite, "clock \(list.sampleRate)")
        precondition(zip(list.samples, list.samples.dropFirst()).allSatisfy { $0 <= $1 }, "beats out of order")
        precondition(list.samples.count >= 2, "a list of fewer than two beats")
    }
}
