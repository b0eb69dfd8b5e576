import ECG

/// MIT-format annotation (.atr) bytes; every annotation takes at least 2 bytes.
func fuzzECGAnnotation(_ bytes: UnsafeRawBufferPointer) {
    if let annotations = try? WFDBAnnotationReader.read(bytes, file: "fuzz.atr") {
        precondition(annotations.count <= bytes.count / 2, "more annotations than the bytes can hold")
    }
}
