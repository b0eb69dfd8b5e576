import ECG

/// MIT-format annotation (.atr) bytes; every annotation takes at least 2 bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let annotations = try? WFDBAnnotationReader.read(bytes, file: "fuzz.atr") {
        precondition(annotations.count <= size / 2, "more annotations than the bytes can hold")
    }
    return 0
}
