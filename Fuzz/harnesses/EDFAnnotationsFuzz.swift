import ECG

/// The bytes of one data record's "EDF Annotations" signal: a sequence of
/// TALs. Every TAL takes at least 3 bytes (`+0` 0x14 … 0x00 needs 4).
func fuzzEDFAnnotations(_ bytes: UnsafeRawBufferPointer) {
    if let tals = try? EDFAnnotationParser.parse(bytes, file: "fuzz.edf", fileOffset: 0) {
        precondition(tals.count <= bytes.count / 4, "more TALs than bytes")
        precondition(tals.allSatisfy { $0.onset.isFinite && ($0.duration.map { $0.isFinite && $0 >= 0 } ?? true) }, "impossible time")
    }
}
