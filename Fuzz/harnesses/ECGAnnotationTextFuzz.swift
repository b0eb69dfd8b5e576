import ECG

/// `rdann` text (and whatever claims to be it): the text reader, and the choice between text and the binary form.
func fuzzECGAnnotationText(_ bytes: UnsafeRawBufferPointer) {
    let array = Array(bytes)
    if let annotations = try? WFDBAnnotationText.parse(array, file: "fuzz.txt") {
        // one annotation a line at most, in time order
        precondition(annotations.count <= array.filter { $0 == 0x0A }.count + 1, "more annotations than lines")
        precondition(zip(annotations, annotations.dropFirst()).allSatisfy { $0.sample <= $1.sample }, "out of order")
    }
    _ = try? WFDBAnnotationReader.read(contents: array, file: "fuzz")
}
