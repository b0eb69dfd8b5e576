// libFuzzer harness: WFDB header (.hea) parser. Any input must parse or throw
// an ECGError, never crash. Needs the ECG sources in sources.txt; built with
// swiftc -sanitize=fuzzer,address -parse-as-library (see Tools/fuzz).
#if canImport(ECG)
import ECG
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzECGHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let header = try? WFDBHeader.parse(text, file: "fuzz.hea") {
        // a parsed header is internally consistent
        precondition(!header.signals.isEmpty && header.sampleRate > 0)
    }
    return 0
}
