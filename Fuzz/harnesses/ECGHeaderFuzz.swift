import ECG

/// WFDB header (.hea) text; a header that parses must be internally consistent.
func fuzzECGHeader(_ bytes: UnsafeRawBufferPointer) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let header = try? WFDBHeader.parse(text, file: "fuzz.hea") {
        precondition(!header.signals.isEmpty && header.sampleRate > 0, "impossible header")
    }
}
