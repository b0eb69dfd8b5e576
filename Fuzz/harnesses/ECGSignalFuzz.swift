import ECG

/// WFDB signal (.dat) data. The first three bytes choose the format (16, 212
/// or an unsupported one), the signal count, and the declared samples per
/// signal and byte offset; the rest is the data file.
func fuzzECGSignal(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 3 else { return }
    let formats = [16, 212, 310, 80]
    let format = formats[Int(bytes[0]) % formats.count]
    let signals = Int(bytes[1] % 16)
    let declared: Int? = bytes[2] == 0 ? nil : Int(bytes[2]) * 7
    let body = UnsafeRawBufferPointer(rebasing: bytes[3...])
    if let decoded = try? WFDBSignalDecoder.decode(body, format: format, signalCount: signals, byteOffset: Int(bytes[2] % 5),
                                                   frameCount: declared, file: "fuzz.dat") {
        precondition(decoded.count == signals && Set(decoded.map(\.count)).count <= 1, "ragged signals")
    }
}
