import ECG

/// A whole EDF/EDF+ file: header, signal headers, data records and the TALs
/// of its annotation signals. A file that reads must be consistent with its
/// header: every signal at a positive rate, no more samples or annotations
/// than the bytes can hold.
func fuzzEDF(_ bytes: UnsafeRawBufferPointer) {
    if let recording = try? EDFReader.decode(bytes, file: "fuzz.edf", name: "fuzz") {
        for signal in recording.signals {
            precondition(signal.sampleRate > 0 && signal.sampleRate.isFinite, "impossible rate")
            precondition(signal.gain.isFinite && signal.gain != 0, "impossible scale")
        }
        let hasGaps = recording.notes.contains { $0.contains("gap") }
        precondition(hasGaps || recording.signals.reduce(0) { $0 + 2 * $1.digital.count } <= bytes.count, "more samples than bytes")
        precondition(recording.annotations.count <= bytes.count / 3, "more annotations than TALs fit")
        _ = try? recording.record(lead: nil, file: "fuzz.edf")
    }
}
