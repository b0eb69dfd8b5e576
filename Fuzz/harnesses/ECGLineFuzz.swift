import ECG

/// ECG text lines, as a serial board or stdin sends them and as a CSV file
/// holds them. The first byte chooses the lead count (1…4) and how the rest
/// is cut into reads for `LineSampleParser`; the same text is then read whole
/// by `CSVRecordReader` (with no, a matching-or-not declared rate). Every
/// emitted sample has one finite value per lead; a CSV record that reads has
/// equally long leads and a positive, finite rate.
func fuzzECGLine(_ bytes: UnsafeRawBufferPointer) {
    guard let seed = bytes.first else { return }
    let text = UnsafeRawBufferPointer(rebasing: bytes[1...])
    var parser = LineSampleParser(leadCount: 1 + Int(seed & 3), gain: 200, baseline: 512)
    let leads = parser.leadCount
    forEachChunk(text, seed: seed >> 2) { chunk in
        parser.feed(chunk) { sample in
            precondition(sample.count == leads && sample.allSatisfy(\.isFinite), "impossible sample")
        }
    }
    let rates: [Double?] = [nil, 250, 360, 0]
    let string = String(decoding: text, as: UTF8.self)
    if let record = try? CSVRecordReader.parse(string, file: "fuzz.csv", name: "fuzz", declaredRate: rates[Int(seed >> 6)]) {
        precondition(record.sampleRate.isFinite && record.sampleRate > 0, "impossible rate")
        precondition(Set(record.samples.map(\.count)).count <= 1, "ragged leads")
        precondition(record.samples.count == record.leadNames.count, "leads without names")
    }
}
