// libFuzzer harness: MIT-format annotation (.atr) reader. Any input must read
// or throw an ECGError, never crash. Needs the ECG sources in sources.txt.
#if canImport(ECG)
import ECG
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzECGAnnotation(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let annotations = try? WFDBAnnotationReader.read(bytes, file: "fuzz.atr") {
        precondition(annotations.count <= size / 2)
    }
    return 0
}
