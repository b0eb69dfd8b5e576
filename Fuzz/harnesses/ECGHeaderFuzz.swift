import ECG

/// WFDB header (.hea) text; a header that parses must be internally consistent.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let header = try? WFDBHeader.parse(text, file: "fuzz.hea") {
        precondition(!header.signals.isEmpty && header.sampleRate > 0, "impossible header")
    }
    return 0
}
