import Capture

/// The first byte picks the sample format; the rest are samples through a 64-bin FFT.
func fuzzIQSpectrum(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 1 else { return }
    let formats = IQSampleFormat.allCases
    let format = formats[Int(bytes[0]) % formats.count]
    let iq = IQOptions(fftSize: 64, averaging: 2)
    drain(UnsafeRawBufferPointer(rebasing: bytes[1...])) { input, _ in
        // valid fixed settings: construction only fails on bad settings, which would be a harness bug
        guard let reader = try? IQSpectrumReader(input: input, format: format, sampleRateHz: 1e6, segments: [],
                                                 options: iq, metadataFormat: "fuzz") else {
            preconditionFailure("IQSpectrumReader refused valid settings")
        }
        return reader
    }
}
