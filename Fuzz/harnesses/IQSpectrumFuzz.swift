import Capture

/// The first byte picks the sample format; the rest are samples through a 64-bin FFT.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let formats = IQSampleFormat.allCases
    let format = formats[Int(data[0]) % formats.count]
    let iq = IQOptions(fftSize: 64, averaging: 2)
    drain(data + 1, size - 1) { input, _ in
        // valid fixed settings: construction only fails on bad settings, which would be a harness bug
        guard let reader = try? IQSpectrumReader(input: input, format: format, sampleRateHz: 1e6, segments: [],
                                                 options: iq, metadataFormat: "fuzz") else {
            preconditionFailure("IQSpectrumReader refused valid settings")
        }
        return reader
    }
    return 0
}
