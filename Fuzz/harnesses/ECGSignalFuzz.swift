import ECG

/// WFDB signal (.dat) data. The first three bytes choose the format (16, 212
/// or an unsupported one), the signal count, and the declared samples per
/// signal and byte offset; the rest is the data file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 3 else { return 0 }
    let formats = [16, 212, 310, 80]
    let format = formats[Int(data[0]) % formats.count]
    let signals = Int(data[1] % 16)
    let declared: Int? = data[2] == 0 ? nil : Int(data[2]) * 7
    let body = UnsafeRawBufferPointer(start: data + 3, count: size - 3)
    if let decoded = try? WFDBSignalDecoder.decode(body, format: format, signalCount: signals, byteOffset: Int(data[2] % 5),
                                                   frameCount: declared, file: "fuzz.dat") {
        precondition(decoded.count == signals && Set(decoded.map(\.count)).count <= 1, "ragged signals")
    }
    return 0
}
