// libFuzzer harness: WFDB signal (.dat) decoder. The first three bytes choose
// the format (16, 212 or another), the signal count and the declared sample
// count; the rest is the data file. Needs the ECG sources in sources.txt.
#if canImport(ECG)
import ECG
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzECGSignal(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 3 else { return 0 }
    let formats = [16, 212, 310, 80]
    let format = formats[Int(data[0]) % formats.count]
    let signals = Int(data[1] % 16)
    let declared: Int? = data[2] == 0 ? nil : Int(data[2]) * 7
    let body = UnsafeRawBufferPointer(start: data + 3, count: size - 3)
    if let decoded = try? WFDBSignalDecoder.decode(body, format: format, signalCount: signals, byteOffset: Int(data[2] % 5),
                                                   frameCount: declared, file: "fuzz.dat") {
        precondition(decoded.count == signals && Set(decoded.map(\.count)).count <= 1)
    }
    return 0
}
